"""EDAC on a locally made Pendulum dataset (`ding -m serial_offline -c pendulum_edac_config.py`;
make the dataset with `python -m dizoo.classic_control.pendulum.entry.pendulum_make_dataset`).
A small ensemble (5 critics of 128 units) for a 3-d observation; `eta` weighs the
ensemble-diversity penalty. It stops at -250, but does not get there on DI-engine's 1,000-transition
expert set (`expert_demos.hdf5`): best -1,066 to -1,144 in 20,000 updates on held-out seeds, where
BCQ and TD3+BC reach -250 in about 2,000 (benchmarks/results/stop_values.json). On the 10,000-
transition "medium" set, with 64-unit heads and a policy learning rate of 1e-3, it reaches -400
(ding/config/tuned/edac_pendulum-v1.yaml)."""
from easydict import EasyDict

pendulum_edac_config = dict(
    exp_name='pendulum_edac_seed0',
    env=dict(
        evaluator_env_num=5,
        act_scale=True,
        n_evaluator_episode=5,
        stop_value=-250,
    ),
    policy=dict(
        cuda=False,
        model=dict(
            obs_shape=3,
            action_shape=1,
            ensemble_num=5,
            actor_head_hidden_size=128,
            critic_head_hidden_size=128,
        ),
        learn=dict(
            train_epoch=30000,
            batch_size=128,
            learning_rate_q=1e-3,
            learning_rate_policy=3e-4,
            learning_rate_alpha=3e-4,
            alpha=0.2,
            auto_alpha=True,
            eta=1.0,
            with_q_entropy=False,
            # Pendulum never terminates: every transition bootstraps
            ignore_done=True,
        ),
        collect=dict(data_type='hdf5', data_path='./pendulum_sac_data_generation/expert_demos.hdf5'),
        eval=dict(evaluator=dict(eval_freq=500)),
    ),
)
pendulum_edac_config = EasyDict(pendulum_edac_config)
main_config = pendulum_edac_config

pendulum_edac_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='edac', import_names=['ding.policy.edac']),
)
pendulum_edac_create_config = EasyDict(pendulum_edac_create_config)
create_config = pendulum_edac_create_config
