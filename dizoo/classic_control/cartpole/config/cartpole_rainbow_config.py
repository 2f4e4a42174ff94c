"""Rainbow (noisy dueling C51, n-step, prioritized replay) on CartPole-v0 (episodes
capped at 200 steps, solved at an eval return of 195).

DI-engine's `cartpole_rainbow_config` keys and values except the collection rhythm, which is
DQN's (`cartpole_dqn_config`): 5 updates per 8 env steps (`update_per_collect=5`,
`n_sample=8`; DI-engine's 3 per 80) and an evaluation every 40 updates. Measured here on
seeds 0-2 that reaches 195 within ~2k env steps; DI-engine's rhythm needed 13k-35k steps
(C51, IQN) and QR-DQN had not reached it at 100k (seed 0)."""
from easydict import EasyDict

cartpole_rainbow_config = dict(
    exp_name='cartpole_rainbow_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=195,
    ),
    policy=dict(
        cuda=False,
        priority=True,
        model=dict(
            obs_shape=4,
            action_shape=2,
            encoder_hidden_size_list=[128, 128, 64],
        ),
        discount_factor=0.97,
        nstep=3,
        learn=dict(
            update_per_collect=5,
            batch_size=64,
            learning_rate=0.001,
            target_update_freq=100,
        ),
        collect=dict(
            n_sample=8,
            unroll_len=1,
        ),
        eval=dict(evaluator=dict(eval_freq=40, )),
        other=dict(
            eps=dict(
                type='exp',
                start=0.95,
                end=0.1,
                decay=10000,
            ), replay_buffer=dict(replay_buffer_size=20000, )
        ),
    ),
)
cartpole_rainbow_config = EasyDict(cartpole_rainbow_config)
main_config = cartpole_rainbow_config

cartpole_rainbow_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='rainbow'),
)
cartpole_rainbow_create_config = EasyDict(cartpole_rainbow_create_config)
create_config = cartpole_rainbow_create_config
