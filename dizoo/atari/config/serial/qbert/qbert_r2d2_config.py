"""R2D2 (recurrent DQN on replayed sequences with burn-in) on Atari Qbert
(QbertNoFrameskip-v4: DI-engine's DeepMind wrapper stack, 4 stacked 84x84 frames).

DI-engine 0.5.3's dizoo/atari keys and values except `replay_buffer_size`,
which counts transitions here: 1M, the same data as DI-engine's 10000 sequences of 100
steps (about 7.3 GB in the frame buffer).
The replay buffer is the frame-once uint8 pixel replay (`replay_buffer.type='frame'`,
ding/data/buffer/frame_buffer.py): about one 84x84 frame (7 KB) per stored transition.

Train: ding -m serial -c qbert_r2d2_config.py -s 0

The stop value (DI-engine's 1e6) is never reached: the run trains to its env-step budget."""
from easydict import EasyDict

collector_env_num = 8
evaluator_env_num = 8
qbert_r2d2_config = dict(
    exp_name='qbert_r2d2_seed0',
    env=dict(
        collector_env_num=collector_env_num,
        evaluator_env_num=evaluator_env_num,
        n_evaluator_episode=evaluator_env_num,
        stop_value=int(1e6),  # DI-engine's: a stop value no run reaches (train to the env-step budget)
        env_id='QbertNoFrameskip-v4',
        frame_stack=4,
    ),
    policy=dict(
        cuda=True,
        # prioritized sequence replay (ding/data/buffer/middleware/sequence_priority.py)
        priority=True,
        priority_IS_weight=True,
        model=dict(
            obs_shape=[4, 84, 84],
            action_shape=6,
            encoder_hidden_size_list=[128, 128, 512],
            res_link=False,
        ),
        discount_factor=0.997,
        nstep=5,
        burnin_step=20,
        # the sampled sequence is unroll_len = burnin_step + learn_unroll_len steps
        learn_unroll_len=80,
        learn=dict(
            update_per_collect=8,
            batch_size=64,
            learning_rate=0.0005,
            target_update_theta=0.001,
        ),
        collect=dict(
            n_sample=32,
            traj_len_inf=True,
            env_num=collector_env_num,
        ),
        eval=dict(env_num=evaluator_env_num, ),
        other=dict(
            eps=dict(
                type='exp',
                start=0.95,
                end=0.05,
                decay=1e5,
            ),
            replay_buffer=dict(
                replay_buffer_size=1000000,
                alpha=0.6,  # how much prioritization: 0 is uniform
                beta=0.4,  # how much importance-weight correction (annealed to 1)
            ),
        ),
    ),
)
qbert_r2d2_config = EasyDict(qbert_r2d2_config)
main_config = qbert_r2d2_config

qbert_r2d2_create_config = dict(
    env=dict(
        type='atari',
        import_names=['dizoo.atari.envs.atari_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='r2d2'),
    replay_buffer=dict(type='frame', import_names=['ding.data.buffer.frame_buffer']),
)
qbert_r2d2_create_config = EasyDict(qbert_r2d2_create_config)
create_config = qbert_r2d2_create_config
