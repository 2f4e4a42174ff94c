"""C51 (categorical distributional DQN) on MinAtar Asterix (MinAtar/Asterix-v1: 10x10 grid of 4 channels,
5 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Learning rate 5e-5, a tenth of the other MinAtar configs' (as for DQN and QR-DQN on this game).
Seed 0, 4M env steps, one torch thread, beside another run (2026-11-28, benchmarks/learning/minatar_configs.py
--override; benchmarks/results/minatar_configs_asterix_c51_lr5e-5.json): first evaluation of 10
or more at 0.96M env steps (576 s); mean evaluation 16.9 over 1.5-2.0M env steps; best 52.4.
At 5e-4 (the config before; 2026-11-27, 8.0M env steps,
benchmarks/results/minatar_configs_asterix_c51_long.json) it first reached 10 at 1.70M env steps,
mean 5.2 over 1.5-2.0M, best 58.6; in 300k env steps it reached 2.6.

Seeds 1 and 2 at 5e-5 first reached 10 at 0.75M and 0.79M env steps (2026-11-28, benchmarks/results/
minatar_configs_lr5e-5_seed{1,2}.json).

Train: ding -m serial -c asterix_c51_config.py -s 0"""
from easydict import EasyDict

asterix_c51_config = dict(
    exp_name='minatar_asterix_c51_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=10,
        env_id='MinAtar/Asterix-v1',
    ),
    policy=dict(
        cuda=False,
        priority=False,
        model=dict(
            obs_shape=[4, 10, 10],
            action_shape=5,
            encoder_hidden_size_list=[16, 128],
            v_min=-10,
            v_max=10,
            n_atom=51,
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
asterix_c51_config = EasyDict(asterix_c51_config)
main_config = asterix_c51_config

asterix_c51_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='c51'),
)
asterix_c51_create_config = EasyDict(asterix_c51_create_config)
create_config = asterix_c51_create_config
