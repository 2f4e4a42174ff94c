"""EDAC on hopper-medium-v2 (DI-engine's values but the stop value, a published result). The
dataset is local, never downloaded: make it with
`python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id hopper-medium-v2` (read from `$D4RL_DATASET_DIR`)."""
from easydict import EasyDict

# The stop value is a published result: EDAC on hopper-medium-v2, 101.6 normalised (An et al. 2021,
# "Uncertainty-Based Offline Reinforcement Learning with Diversified Q-Ensemble", Table 1), about
# 3,286 raw (-20.27 + 1.016 * (3234.3 + 20.27), D4RL's random and expert returns for Hopper). That
# score is on D4RL's own data (1M transitions); the local file is made by our SAC and is smaller.
STOP_VALUE_SOURCE = 'EDAC, hopper-medium-v2: 101.6 normalised (An et al. 2021, Table 1) = 3,286 raw'

main_config = EasyDict(dict(
    exp_name='hopper_medium_edac_seed0',
    env=dict(
        env_id='hopper-medium-v2',
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=3286,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=11,
            action_shape=3,
            ensemble_num=50,
            actor_head_hidden_size=256,
            actor_head_layer_num=3,
            critic_head_hidden_size=256,
            critic_head_layer_num=3,
        ),
        learn=dict(
            data_path=None,
            train_epoch=30000,
            batch_size=256,
            learning_rate_q=0.0003,
            learning_rate_policy=0.0003,
            learning_rate_alpha=0.0003,
            alpha=1,
            auto_alpha=True,
            eta=1.0,
            with_q_entropy=False,
            learner=dict(
                hook=dict(
                    save_ckpt_after_iter=100000,
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
    ),
    seed=0,
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
        type='edac',
        import_names=['ding.policy.edac'],
    ),
))
