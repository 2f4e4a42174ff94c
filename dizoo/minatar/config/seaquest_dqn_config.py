"""DQN on MinAtar Seaquest (MinAtar/Seaquest-v1: 10x10 grid of 10 channels,
6 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Learning rate 5e-5, a tenth of the other MinAtar configs' (as for QR-DQN on this game). Seed 0,
4M env steps, one torch thread, beside another run (2026-11-28, benchmarks/learning/minatar_configs.py
--override; benchmarks/results/minatar_configs_seaquest_dqn_lr5e-5.json): first evaluation of 10
or more at 2.02M env steps (1,098 s); mean evaluation 16.8 over 2.5-3.0M env steps, 31.5 over
3.5-4.0M; best 68.4. At 5e-4 (the config before; 2026-11-27, 6.80M env steps in 90 minutes,
benchmarks/results/minatar_configs_seaquest_long.json) it first reached 10 at 5.16M env steps,
mean 2.9 over 3.5-4.0M, best 22.8; neither more updates per env step nor 2M env steps got it there.

Seeds 1 and 2 at 5e-5 first reached 10 at 3.51M and 2.88M env steps (2026-11-28, benchmarks/results/
minatar_configs_lr5e-5_seed{1,2}.json).

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
