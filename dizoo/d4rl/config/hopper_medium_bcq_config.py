"""BCQ on hopper-medium-v0 (DI-engine's values but the stop value, a published result). The
dataset is local, never downloaded: make it with
`python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id hopper-medium-v0` (read from `$D4RL_DATASET_DIR`)."""
from easydict import EasyDict

# The stop value is a published result: BCQ on hopper-medium, 54.5 normalised (Fu et al. 2020,
# "D4RL: Datasets for Deep Data-Driven Reinforcement Learning", Table 2, on D4RL's -v0 data), about
# 1,753 raw (-20.27 + 0.545 * (3234.3 + 20.27), D4RL's random and expert returns for Hopper). That
# score is on D4RL's own data (1M transitions); the local file is made by our SAC and is smaller.
STOP_VALUE_SOURCE = 'BCQ, hopper-medium: 54.5 normalised (Fu et al. 2020, Table 2) = 1,753 raw'

main_config = EasyDict(dict(
    exp_name='hopper_medium_bcq_seed0_43_v0',
    env=dict(
        env_id='hopper-medium-v0',
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=1753,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=11,
            action_shape=3,
            actor_head_hidden_size=[400, 300],
            critic_head_hidden_size=[400, 300],
            phi=0.05,
        ),
        learn=dict(
            data_path=None,
            train_epoch=30000,
            batch_size=100,
            learning_rate_q=0.003,
            learning_rate_policy=0.003,
            learning_rate_alpha=0.003,
            lmbda=0.75,
            learner=dict(
                hook=dict(
                    save_ckpt_after_iter=1000000000,
                ),
            ),
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
    seed=123,
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
        type='bcq',
        import_names=['ding.policy.bcq'],
    ),
    replay_buffer=dict(
        type='naive',
    ),
))
