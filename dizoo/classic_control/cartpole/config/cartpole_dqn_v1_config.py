"""DQN on CartPole-v1 (episodes capped at 500 steps), tuned to reach an eval return of 475
(10 greedy episodes) within 100k env steps: 3-step returns with discount 0.99, half an update
per env step, linear exploration decay over the first 10k steps, evaluation about every
1,000 env steps."""
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
            encoder_hidden_size_list=[128, 128, 64],
            dueling=True,
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=4,
            batch_size=64,
            learning_rate=0.001,
            target_update_freq=100,
        ),
        collect=dict(n_sample=8),
        eval=dict(evaluator=dict(eval_freq=500)),
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
