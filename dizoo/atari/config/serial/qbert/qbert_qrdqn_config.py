"""QR-DQN (quantile regression DQN) on Atari Qbert
(QbertNoFrameskip-v4: DI-engine's DeepMind wrapper stack, 4 stacked 84x84 frames).

DI-engine 0.5.3's dizoo/atari keys and values.
The replay buffer is the frame-once uint8 pixel replay (`replay_buffer.type='frame'`,
ding/data/buffer/frame_buffer.py): about one 84x84 frame (7 KB) per stored transition.

Train: ding -m serial -c qbert_qrdqn_config.py -s 0"""
from easydict import EasyDict

# The stop value is a published result: QR-DQN-1, Qbert: 572,510 (Dabney et al. 2018,
# "Distributional Reinforcement Learning with Quantile Regression", QR-DQN-1's per-game raw scores).
# It was DI-engine's 30000, uncited and never run here.
STOP_VALUE_SOURCE = 'QR-DQN-1, Qbert: 572,510 (Dabney et al. 2018)'

qbert_qrdqn_config = dict(
    exp_name='qbert_qrdqn_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=572510,  # a published score: STOP_VALUE_SOURCE
        env_id='QbertNoFrameskip-v4',
        frame_stack=4,
    ),
    policy=dict(
        cuda=True,
        priority=True,
        model=dict(
            obs_shape=[4, 84, 84],
            action_shape=6,
            encoder_hidden_size_list=[128, 128, 512],
            num_quantiles=64,
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=10,
            batch_size=32,
            learning_rate=0.0001,
            target_update_freq=500,
        ),
        collect=dict(n_sample=100, ),
        eval=dict(evaluator=dict(eval_freq=4000, )),
        other=dict(
            eps=dict(
                type='exp',
                start=1.,
                end=0.05,
                decay=1000000,
            ),
            replay_buffer=dict(replay_buffer_size=400000, ),
        ),
    ),
)
qbert_qrdqn_config = EasyDict(qbert_qrdqn_config)
main_config = qbert_qrdqn_config

qbert_qrdqn_create_config = dict(
    env=dict(
        type='atari',
        import_names=['dizoo.atari.envs.atari_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='qrdqn'),
    replay_buffer=dict(type='frame', import_names=['ding.data.buffer.frame_buffer']),
)
qbert_qrdqn_create_config = EasyDict(qbert_qrdqn_create_config)
create_config = qbert_qrdqn_create_config
