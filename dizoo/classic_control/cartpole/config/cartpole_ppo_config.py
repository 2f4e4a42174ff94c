"""PPO on CartPole. RL Zoo's CartPole recipe in our keys (256 transitions per collect from 8 envs
x 32, 20 epochs of one minibatch, the learning rate annealed to 0 over 7,800 updates = 100k env
steps) with a learning rate of 3e-3 instead of 1e-3, chosen for the least time to a return of
475 on CartPole-v1 on tuning seeds (benchmarks/results/ppo_cartpole_sweep.json): on seeds 20-59
its median was 7,168 env steps against 10,240 at 1e-3, and timed by the comparison's own runner
on seeds 60-71 (rows `protocol:*`) 4.3 s against 8.3 s; every seed reached 475 in both.

The entry script runs CartPole-v1 to 475; `env_id` and `stop_value` keep DI-engine's v0
defaults so its pipelines, which build `CartPole-v0` envs themselves, stop as before."""
from easydict import EasyDict

cartpole_ppo_config = dict(
    exp_name='cartpole_ppo_seed0',
    env=dict(
        env_id='CartPole-v0',
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=195,
    ),
    policy=dict(
        cuda=False,
        action_space='discrete',
        model=dict(
            obs_shape=4,
            action_shape=2,
            action_space='discrete',
            share_encoder=False,
            encoder_hidden_size_list=[64, 64],
            actor_head_hidden_size=64,
            critic_head_hidden_size=64,
        ),
        learn=dict(
            epoch_per_collect=20,
            batch_size=256,
            learning_rate=3e-3,
            # linear to 0 over 7800 updates (100k env steps): steadier near the 500 cap
            lr_decay_iters=7800,
            clip_ratio=0.2,
            value_weight=0.5,
            entropy_weight=0.0,
            adv_norm=True,
            grad_clip_value=0.5,
        ),
        collect=dict(n_sample=256, unroll_len=1, discount_factor=0.98, gae_lambda=0.8),
        # 20 updates per collect of 256: evaluate every ~1,000 env steps
        eval=dict(evaluator=dict(eval_freq=80)),
    ),
)
cartpole_ppo_config = EasyDict(cartpole_ppo_config)
main_config = cartpole_ppo_config

cartpole_ppo_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='ppo'),
)
cartpole_ppo_create_config = EasyDict(cartpole_ppo_create_config)
create_config = cartpole_ppo_create_config
