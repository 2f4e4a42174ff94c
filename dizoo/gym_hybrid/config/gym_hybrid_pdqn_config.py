"""PDQN on `Moving-v0` (our stand-in for gym-hybrid, see dizoo/gym_hybrid/envs/moving_env.py): the
keys of DI-engine's `gym_hybrid_pdqn_config`, its values except where a comment gives DI-engine's
(smaller collections and updates, faster learning rates and exploration decay: DI-engine's numbers
are sized for a GPU and millions of steps; these reach the stop value in about 25k env steps on a
CPU). Importing it registers `Moving-v0` with gymnasium (DI-engine's ding/example/pdqn.py calls
`gym.make(cfg.env.env_id)`)."""
from easydict import EasyDict

import dizoo.gym_hybrid  # noqa: F401  (registers Moving-v0)

gym_hybrid_pdqn_config = dict(
    exp_name='gym_hybrid_pdqn_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        act_scale=True,  # the policy's args in [-1, 1] are mapped onto the env's ranges
        env_id='Moving-v0',
        n_evaluator_episode=5,
        stop_value=1.8,
    ),
    policy=dict(
        cuda=True,
        discount_factor=0.99,
        nstep=1,
        model=dict(
            obs_shape=10,
            action_shape=dict(action_type_shape=3, action_args_shape=2),
        ),
        learn=dict(
            update_per_collect=100,  # DI-engine: 500 (these numbers are sized for a CPU run)
            batch_size=128,  # DI-engine: 320
            learning_rate_dis=1e-3,  # DI-engine: 3e-4
            learning_rate_cont=1e-3,  # DI-engine: 3e-4
            target_theta=0.005,  # DI-engine: 0.001
            update_circle=10,
        ),
        collect=dict(
            n_sample=320,  # DI-engine: 3200
            unroll_len=1,
            noise_sigma=0.1,
            collector=dict(collect_print_freq=1000),
        ),
        eval=dict(evaluator=dict(eval_freq=500)),  # DI-engine: 1000
        other=dict(
            eps=dict(type='exp', start=1, end=0.1, decay=20000),  # DI-engine: decay 1e5
            replay_buffer=dict(replay_buffer_size=int(1e6)),
        ),
    ),
)
gym_hybrid_pdqn_config = EasyDict(gym_hybrid_pdqn_config)
main_config = gym_hybrid_pdqn_config

gym_hybrid_pdqn_create_config = dict(
    env=dict(
        type='gym_hybrid',
        import_names=['dizoo.gym_hybrid.envs.gym_hybrid_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='pdqn'),
)
gym_hybrid_pdqn_create_config = EasyDict(gym_hybrid_pdqn_create_config)
create_config = gym_hybrid_pdqn_create_config
