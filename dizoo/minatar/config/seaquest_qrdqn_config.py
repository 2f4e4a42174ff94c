"""QR-DQN (quantile regression DQN) on MinAtar Seaquest (MinAtar/Seaquest-v1: 10x10 grid of 10 channels,
6 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Learning rate 5e-5, as in the Asterix configs and Seaquest's DQN and C51 (on Asterix, QR-DQN at
5e-4 never learned). Trained with it (benchmarks/learning/minatar_configs.py --games seaquest --algos qrdqn
--override '{"policy": {"learn": {"learning_rate": 0.00005}}}', seed 0, one torch thread, beside
the C51 run; 2026-11-28; benchmarks/results/minatar_configs_seaquest_qrdqn_lr5e-5_long.json): first
evaluation of 10 or more at 2.00M env steps (1,705 s), best 99.4 at 5.69M; mean evaluation 4.8
over 1.0-1.5M env steps, 30.1 over 3.0-3.5M. DQN first reached 10 at 5.16M at 5e-4, at 2.02M at 5e-5. At 5e-4,
QR-DQN was only run for 300k env steps here (best 2.2, against 0.08 for random play).

Train: ding -m serial -c seaquest_qrdqn_config.py -s 0"""
from easydict import EasyDict

seaquest_qrdqn_config = dict(
    exp_name='minatar_seaquest_qrdqn_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=10,
        env_id='MinAtar/Seaquest-v1',
    ),
    policy=dict(
        cuda=False,
        priority=False,
        model=dict(
            obs_shape=[10, 10, 10],
            action_shape=6,
            encoder_hidden_size_list=[16, 128],
            num_quantiles=32,
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=4,
            batch_size=64,
            learning_rate=0.00005,
            target_update_freq=500,
        ),
        collect=dict(n_sample=32, ),
        eval=dict(evaluator=dict(eval_freq=500, )),
        other=dict(
            eps=dict(
                type='exp',
                start=1.,
                end=0.05,
                decay=50000,
            ),
            replay_buffer=dict(replay_buffer_size=100000, ),
        ),
    ),
)
seaquest_qrdqn_config = EasyDict(seaquest_qrdqn_config)
main_config = seaquest_qrdqn_config

seaquest_qrdqn_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='qrdqn'),
)
seaquest_qrdqn_create_config = EasyDict(seaquest_qrdqn_create_config)
create_config = seaquest_qrdqn_create_config
