"""DQN on MinAtar Seaquest (MinAtar/Seaquest-v1: 10x10 grid of 10 channels,
6 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Measured here (benchmarks/minatar_configs.py, seed 0, 300k env steps in 152 s, one
torch thread; benchmarks/results/minatar_configs.json): best evaluation 1.6 against
0.08 for random play; it did not reach 10.
The game needs far longer runs (the MinAtar paper trains 5M frames); one update per 2
env steps instead of 8 gave no clear gain at equal wall time (240 s). Trained on for 2M env
steps (1,129 s, two runs sharing the machine's two cores;
benchmarks/results/minatar_configs_2m.json), its best evaluation was 3.6: still short of 10.
With one update per 2 env steps (`update_per_collect=16`) for 35 minutes (2026-11-27, 1.0M env
steps; benchmarks/results/minatar_configs_seaquest_upc16.json) it did worse: best 2.2, evaluations
averaging 0.1-0.3, against 1.5-1.9 after 0.5M steps at one update per 8.

It reaches 10 given the MinAtar paper's order of frames: trained for 90 minutes (2026-11-27,
6.80M env steps, one torch thread; benchmarks/results/minatar_configs_seaquest_long.json) it
first evaluated at 10.0 after 5.16M env steps, where `ding -m serial` stops, and went on
climbing: evaluations averaging 6.4 over 5.0-5.5M env steps, 7.7 over 6.0-6.5M, best 22.8.

Train: ding -m serial -c seaquest_dqn_config.py -s 0"""
from easydict import EasyDict

seaquest_dqn_config = dict(
    exp_name='minatar_seaquest_dqn_seed0',
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
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=4,
            batch_size=64,
            learning_rate=0.0005,
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
seaquest_dqn_config = EasyDict(seaquest_dqn_config)
main_config = seaquest_dqn_config

seaquest_dqn_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
)
seaquest_dqn_create_config = EasyDict(seaquest_dqn_create_config)
create_config = seaquest_dqn_create_config
