"""R2D2 (recurrent DQN on replayed sequences with burn-in) on CartPole-v0 (episodes capped at
200 steps, solved at an eval return of 195).

DI-engine's `cartpole_r2d2_config` keys: sequences of `unroll_len = burnin_step +
learn_unroll_len` steps, 5-step double-DQN targets with value rescaling, soft target
updates. `n_sample` counts sequences' worth of steps per collection (n_sample * unroll_len
env steps), as in DI-engine's StepCollector."""
from easydict import EasyDict

collector_env_num = 8
evaluator_env_num = 8
burnin_step = 2
learn_unroll_len = 40
cartpole_r2d2_config = dict(
    exp_name='cartpole_r2d2_seed0',
    env=dict(
        collector_env_num=collector_env_num,
        evaluator_env_num=evaluator_env_num,
        n_evaluator_episode=evaluator_env_num,
        stop_value=195,
    ),
    policy=dict(
        cuda=False,
        priority=False,
        priority_IS_weight=False,
        model=dict(
            obs_shape=4,
            action_shape=2,
            encoder_hidden_size_list=[128, 128, 64],
        ),
        discount_factor=0.995,
        nstep=5,
        burnin_step=burnin_step,
        learn_unroll_len=learn_unroll_len,
        learn=dict(
            update_per_collect=8,
            batch_size=64,
            learning_rate=0.0005,
            target_update_theta=0.001,
        ),
        collect=dict(
            n_sample=8,
            unroll_len=burnin_step + learn_unroll_len,
            traj_len_inf=True,
            env_num=collector_env_num,
        ),
        eval=dict(env_num=evaluator_env_num, evaluator=dict(eval_freq=30)),
        other=dict(
            eps=dict(
                type='exp',
                start=0.95,
                end=0.05,
                decay=10000,
            ), replay_buffer=dict(replay_buffer_size=100000, )
        ),
    ),
)
cartpole_r2d2_config = EasyDict(cartpole_r2d2_config)
main_config = cartpole_r2d2_config

cartpole_r2d2_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='r2d2'),
)
cartpole_r2d2_create_config = EasyDict(cartpole_r2d2_create_config)
create_config = cartpole_r2d2_create_config
