"""TD3+BC on halfcheetah-medium-v2 (DI-engine's values but the stop value, a published result). The
dataset is local, never downloaded: make it with
`python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id halfcheetah-medium-v2` (read from `$D4RL_DATASET_DIR`)."""
from easydict import EasyDict

# The stop value is a published result: TD3+BC on halfcheetah-medium, 42.8 normalised (Fujimoto & Gu
# 2021, "A Minimalist Approach to Offline Reinforcement Learning", Table 1), about 5,034 raw
# (-280.18 + 0.428 * (12135.0 + 280.18), D4RL's random and expert returns for HalfCheetah). DI-engine's
# 7,600 cites nothing. That score is on D4RL's own data (1M transitions); the local file is made by
# our SAC and is smaller.
STOP_VALUE_SOURCE = 'TD3+BC, halfcheetah-medium: 42.8 normalised (Fujimoto & Gu 2021, Table 1) = 5,034 raw'

main_config = EasyDict(dict(
    exp_name='halfcheetah_medium_td3-bc_seed0',
    env=dict(
        env_id='halfcheetah-medium-v2',
        norm_obs=dict(
            use_norm=True,
            offline_stats=dict(
                use_offline_stats=True,
            ),
        ),
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=5034,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=17,
            action_shape=6,
        ),
        learn=dict(
            train_epoch=30000,
            batch_size=256,
            learning_rate_actor=0.0003,
            learning_rate_critic=0.0003,
            actor_update_freq=2,
            noise=True,
            noise_sigma=0.2,
            noise_range=dict(
                min=-0.5,
                max=0.5,
            ),
            alpha=2.5,
        ),
        collect=dict(
            data_type='d4rl',
            data_path=None,
        ),
        eval=dict(
            evaluator=dict(
                eval_freq=10000,
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
        type='td3_bc',
        import_names=['ding.policy.td3_bc'],
    ),
    replay_buffer=dict(
        type='naive',
    ),
))
