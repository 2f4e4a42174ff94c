"""IMPALA (off-policy actor-critic with V-trace) on LunarLander-v3, discrete actions: the config
DI-engine 0.5.3's `ding/example/impala.py` imports, with DI-engine's keys and values (its
`stop_value=3000` is out of reach, so that example runs to its `max_env_step=2e6`).
Needs Box2D: pip install "ding[box2d]"."""
from easydict import EasyDict

lunarlander_impala_config = dict(
    exp_name='impala_log/lunarlander_impala_seed0',
    env=dict(
        env_id='LunarLander-v3',  # DI-engine's LunarLander-v2 is v3 in gymnasium 1.x
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=3000,
    ),
    policy=dict(
        cuda=True,  # used only where CUDA is available
        unroll_len=32,  # steps per learned trajectory
        random_collect_size=256,
        model=dict(
            obs_shape=8,
            action_shape=4,
            encoder_hidden_size_list=[64, 64],
        ),
        learn=dict(
            update_per_collect=10,
            batch_size=128,  # trajectories per update
            grad_clip_type='clip_norm',
            clip_value=5,
            learning_rate=0.0003,
            value_weight=0.5,
            entropy_weight=0.0001,
            discount_factor=0.99,
            lambda_=0.95,
            rho_clip_ratio=1.0,
            c_clip_ratio=1.0,
            rho_pg_clip_ratio=1.0,
        ),
        collect=dict(n_sample=32, ),
        eval=dict(evaluator=dict(eval_freq=500, )),
        other=dict(replay_buffer=dict(replay_buffer_size=1000, sliced=True), ),
    ),
)
lunarlander_impala_config = EasyDict(lunarlander_impala_config)
main_config = lunarlander_impala_config

lunarlander_impala_create_config = dict(
    env=dict(
        type='lunarlander',
        import_names=['dizoo.box2d.lunarlander.envs.lunarlander_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='impala'),
    replay_buffer=dict(type='naive'),
)
lunarlander_impala_create_config = EasyDict(lunarlander_impala_create_config)
create_config = lunarlander_impala_create_config
