"""R2D2 (recurrent DQN on replayed sequences with burn-in) on Atari Breakout
(BreakoutNoFrameskip-v4: DI-engine's DeepMind wrapper stack, 4 stacked 84x84 frames).

DI-engine 0.5.3's dizoo/atari keys and values except `replay_buffer_size`,
which counts transitions here: 1M, the same data as DI-engine's 10000 sequences of 100
steps (about 7.3 GB in the frame buffer).
The replay buffer is the frame-once uint8 pixel replay (`replay_buffer.type='frame'`,
ding/data/buffer/frame_buffer.py): about one 84x84 frame (7 KB) per stored transition.

Train: ding -m serial -c breakout_r2d2_config.py -s 0

DI-engine 0.5.3 ships no Breakout config: these are its Qbert values with Breakout's 4 actions, and a
stop value that is never reached (train to the env-step budget)."""
from easydict import EasyDict

collector_env_num = 8
evaluator_env_num = 8
breakout_r2d2_config = dict(
    exp_name='breakout_r2d2_seed0',
    env=dict(
        collector_env_num=collector_env_num,
        evaluator_env_num=evaluator_env_num,
        n_evaluator_episode=evaluator_env_num,
        stop_value=int(1e6),
        env_id='BreakoutNoFrameskip-v4',
        frame_stack=4,
    ),
    policy=dict(
        cuda=True,
        # prioritized sequence replay (ding/data/buffer/middleware/sequence_priority.py)
        priority=True,
        priority_IS_weight=True,
        model=dict(
            obs_shape=[4, 84, 84],
            action_shape=4,
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
breakout_r2d2_config = EasyDict(breakout_r2d2_config)
main_config = breakout_r2d2_config

breakout_r2d2_create_config = dict(
    env=dict(
        type='atari',
        import_names=['dizoo.atari.envs.atari_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='r2d2'),
    replay_buffer=dict(type='frame', import_names=['ding.data.buffer.frame_buffer']),
)
breakout_r2d2_create_config = EasyDict(breakout_r2d2_create_config)
create_config = breakout_r2d2_create_config
