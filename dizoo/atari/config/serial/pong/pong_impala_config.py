"""IMPALA (V-trace) on Atari Pong
(PongNoFrameskip-v4: DI-engine's DeepMind wrapper stack, 4 stacked 84x84 frames).

DI-engine 0.5.3's dizoo/atari keys and values: windows of 64 steps, 2 updates of 128 windows
per collect of 16, a conv encoder of 64-128-256 channels with two-layer heads of 256, Adam at
6e-4, gradient norm 0.5. The replay is the frame-once uint8 pixel replay
(`replay_buffer.type='frame'`, ding/data/buffer/frame_buffer.py), which hands back windows of
`unroll_len` steps. `benchmarks/throughput/atari_split.py` measures IMPALA with the IMPALA
paper's smaller unroll (20) and batch (32) and a Nature CNN instead.

Train: ding -m serial -c pong_impala_config.py -s 0"""
from easydict import EasyDict

pong_impala_config = dict(
    exp_name='pong_impala_seed0',
    env=dict(
        collector_env_num=12,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=21,
        env_id='PongNoFrameskip-v4',
        frame_stack=4,
    ),
    policy=dict(
        cuda=True,
        priority=False,
        unroll_len=64,
        model=dict(
            obs_shape=[4, 84, 84],
            action_shape=6,
            encoder_hidden_size_list=[64, 128, 256],
            critic_head_hidden_size=256,
            critic_head_layer_num=2,
            actor_head_hidden_size=256,
            actor_head_layer_num=2,
        ),
        learn=dict(
            update_per_collect=2,
            batch_size=128,
            grad_clip_type='clip_norm',
            clip_value=0.5,
            learning_rate=0.0006,
            value_weight=0.5,
            entropy_weight=0.01,
            discount_factor=0.99,
            lambda_=0.95,
            rho_clip_ratio=1.0,
            c_clip_ratio=1.0,
            rho_pg_clip_ratio=1.0,
        ),
        collect=dict(n_sample=16, collector=dict(collect_print_freq=1000, )),
        eval=dict(evaluator=dict(eval_freq=2000, )),
        other=dict(replay_buffer=dict(replay_buffer_size=10000, sliced=False), ),
    ),
)
main_config = EasyDict(pong_impala_config)

pong_impala_create_config = dict(
    env=dict(
        type='atari',
        import_names=['dizoo.atari.envs.atari_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='impala'),
    replay_buffer=dict(type='frame', import_names=['ding.data.buffer.frame_buffer']),
)
create_config = EasyDict(pong_impala_create_config)
