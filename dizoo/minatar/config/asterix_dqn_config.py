"""DQN on MinAtar Asterix (MinAtar/Asterix-v1: 10x10 grid of 4 channels,
5 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Learning rate 5e-5, a tenth of the other MinAtar configs' (as for QR-DQN on this game). A sweep,
seed 0, 4M env steps each, one torch thread, two runs at once (2026-11-28, benchmarks/learning/minatar_configs.py
--variant; benchmarks/results/minatar_configs_asterix_dqn_lr.json): first evaluation of 10 or more
- at lr 5e-5: 0.56M env steps (369 s); mean evaluation 9.7 over 0.5-1.0M env steps, 37.4 over
  3.5-4.0M; best 60.8;
- at lr 1e-4: 1.39M (780 s); best 20.4;
- at lr 5e-4 (the config before): 3.12M (2026-11-27, 6.72M env steps in 95 minutes;
  benchmarks/results/minatar_configs_asterix_long.json); best 51.8. In 300k env steps (130 s) it
  reached 1.6, and neither more updates per env step nor 2M env steps got it to 10.

Seeds 1 and 2 at 5e-5 first reached 10 at 0.87M and 0.66M env steps (2026-11-28, benchmarks/results/
minatar_configs_lr5e-5_seed{1,2}.json).

Train: ding -m serial -c asterix_dqn_config.py -s 0"""
from easydict import EasyDict

asterix_dqn_config = dict(
    exp_name='minatar_asterix_dqn_seed0',
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
asterix_dqn_config = EasyDict(asterix_dqn_config)
main_config = asterix_dqn_config

asterix_dqn_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
)
asterix_dqn_create_config = EasyDict(asterix_dqn_create_config)
create_config = asterix_dqn_create_config
