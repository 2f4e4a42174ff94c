"""QR-DQN (quantile regression DQN) on MinAtar Asterix (MinAtar/Asterix-v1: 10x10 grid of 4 channels,
5 actions, MinAtar's sticky actions 0.1 and difficulty ramping).

DI-engine's config keys. The encoder is the MinAtar paper's (Young & Tian 2019): one 3x3 conv
of 16 channels, then 128 units (`encoder_hidden_size_list=[16, 128]`, ding/model/conv_encoders.py).
The rest follows the DI-engine Atari configs scaled to MinAtar: n-step 3, Adam, 8 collector
envs. The stop value is a return well above random play, not a published target.

Learning rate 5e-5, a tenth of the other MinAtar configs' (the QR-DQN paper's Atari value).
With their 5e-4 QR-DQN did not learn Asterix: over 7.9M env steps (2026-11-27;
benchmarks/results/minatar_configs_asterix_qrdqn_long.json) its evaluations stayed at 0.5-1.1
on average, near random play (0.32), while DQN and C51 with the same settings reached 10 at
3.12M and 1.70M env steps. Seed 0, 4M env steps each, one torch thread, two runs at once
(2026-11-28, benchmarks/learning/minatar_configs.py --override; results in
benchmarks/results/minatar_configs_asterix_qrdqn_lr{1e-4,5e-5}.json):
- lr 5e-5: first evaluation of 10 or more at 0.64M env steps (406 s); mean evaluation 7.6 over
  0.5-1.0M env steps, 34.2 over 3.5-4.0M; best 55.2;
- lr 1e-4: first at 3.65M (1,989 s); best 17.4.

Train: ding -m serial -c asterix_qrdqn_config.py -s 0"""
from easydict import EasyDict

asterix_qrdqn_config = dict(
    exp_name='minatar_asterix_qrdqn_seed0',
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
asterix_qrdqn_config = EasyDict(asterix_qrdqn_config)
main_config = asterix_qrdqn_config

asterix_qrdqn_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='qrdqn'),
)
asterix_qrdqn_create_config = EasyDict(asterix_qrdqn_create_config)
create_config = asterix_qrdqn_create_config
