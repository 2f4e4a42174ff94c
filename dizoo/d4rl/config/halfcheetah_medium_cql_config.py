"""CQL on halfcheetah-medium-v2 (DI-engine's values but the stop value, a published result). The
dataset is local, never downloaded: make it with
`python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id halfcheetah-medium-v2` (read from `$D4RL_DATASET_DIR`)."""
from easydict import EasyDict

# The stop value is a published result: CQL on halfcheetah-medium, 44.4 normalised (Kumar et al. 2020,
# "Conservative Q-Learning for Offline Reinforcement Learning", Table 1, on D4RL's -v0 data), about
# 5,232 raw (-280.18 + 0.444 * (12135.0 + 280.18), D4RL's random and expert returns for HalfCheetah).
# DI-engine's 6,000 cites nothing. That score is on D4RL's own data (1M transitions); the local file
# is made by our SAC and is smaller.
STOP_VALUE_SOURCE = 'CQL, halfcheetah-medium: 44.4 normalised (Kumar et al. 2020, Table 1) = 5,232 raw'

main_config = EasyDict(dict(
    exp_name='halfcheetah_medium_cql_seed0',
    env=dict(
        env_id='halfcheetah-medium-v2',
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=5232,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=17,
            action_shape=6,
        ),
        learn=dict(
            data_path=None,
            train_epoch=30000,
            batch_size=256,
            learning_rate_q=0.0003,
            learning_rate_policy=0.0001,
            learning_rate_alpha=0.0001,
            alpha=0.2,
            auto_alpha=False,
            lagrange_thresh=-1.0,
            min_q_weight=5.0,
        ),
        collect=dict(
            data_type='d4rl',
        ),
        eval=dict(
            evaluator=dict(
                eval_freq=500,
            ),
        ),
        other=dict(
            replay_buffer=dict(
                replay_buffer_size=2000000,
            ),
        ),
    ),
))

create_config = EasyDict(dict(
    env=dict(
        type='d4rl',
        import_names=['dizoo.d4rl.envs.d4rl_env'],
    ),
    env_manager=dict(
        type='base',
    ),
    policy=dict(
        type='cql',
        import_names=['ding.policy.cql'],
    ),
    replay_buffer=dict(
        type='naive',
    ),
))
