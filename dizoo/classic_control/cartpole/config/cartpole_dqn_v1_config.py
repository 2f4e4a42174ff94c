"""DQN on CartPole-v1 (episodes capped at 500 steps), tuned to reach an eval return of 475
(10 greedy episodes) within 100k env steps: a small 64-64 dueling net, 3-step returns with
discount 0.99, a quarter of an update per env step (cheap: wall time matters as well),
linear exploration decay over the first 10k steps, evaluation every 1,000 env steps
(250 updates). Seeds 0, 1, 2 reached 500 at 29k, 29k and 20k env steps (about 23 s each,
imports included, on the shared 2-core machine)."""
from easydict import EasyDict

cartpole_dqn_v1_config = dict(
    exp_name='cartpole_dqn_v1_seed0',
    env=dict(
        env_id='CartPole-v1',
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=10,
        stop_value=475,
    ),
    policy=dict(
        model=dict(
            obs_shape=4,
            action_shape=2,
            encoder_hidden_size_list=[64, 64],
            dueling=True,
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=2,
            batch_size=64,
            learning_rate=0.002,
            target_update_freq=50,
        ),
        collect=dict(n_sample=8),
        eval=dict(evaluator=dict(eval_freq=250)),
        other=dict(
            eps=dict(
                type='linear',
                start=1.0,
                end=0.05,
                decay=10000,
            ),
            replay_buffer=dict(replay_buffer_size=100000),
        ),
    ),
)
cartpole_dqn_v1_config = EasyDict(cartpole_dqn_v1_config)
main_config = cartpole_dqn_v1_config

cartpole_dqn_v1_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
)
cartpole_dqn_v1_create_config = EasyDict(cartpole_dqn_v1_create_config)
create_config = cartpole_dqn_v1_create_config
