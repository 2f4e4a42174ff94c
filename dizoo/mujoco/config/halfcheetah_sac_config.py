"""SAC on HalfCheetah-v5 (DI-engine's key names and its mujoco values: 256-unit twin critics,
10k random warm-up steps, one update per env step). Needs the mujoco extra.

The stop value is DI-engine's 12000, which cites nothing; the runs here reached at most 7,947 in
150k env steps (benchmarks/results/compare_mujoco.json), so a run trains to its env-step budget.
It stays: a stop value is not lowered after runs fell short of it."""
from easydict import EasyDict

halfcheetah_sac_config = dict(
    exp_name='halfcheetah_sac_seed0',
    env=dict(
        env_id='HalfCheetah-v5',
        collector_env_num=1,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        act_scale=True,
        stop_value=12000,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=10000,
        model=dict(
            obs_shape=17,
            action_shape=6,
            action_space='reparameterization',
            twin_critic=True,
            actor_head_hidden_size=256,
            critic_head_hidden_size=256,
        ),
        learn=dict(
            update_per_collect=1,
            batch_size=256,
            learning_rate_q=1e-3,
            learning_rate_policy=1e-3,
            learning_rate_alpha=3e-4,
            target_theta=0.005,
            discount_factor=0.99,
            alpha=0.2,
            auto_alpha=True,
            ignore_done=False,
        ),
        collect=dict(n_sample=1),
        eval=dict(evaluator=dict(eval_freq=5000)),
        other=dict(replay_buffer=dict(replay_buffer_size=1000000)),
    ),
)
halfcheetah_sac_config = EasyDict(halfcheetah_sac_config)
main_config = halfcheetah_sac_config

halfcheetah_sac_create_config = dict(
    env=dict(type='mujoco', import_names=['dizoo.mujoco.envs.mujoco_env']),
    env_manager=dict(type='base'),
    policy=dict(type='sac'),
)
halfcheetah_sac_create_config = EasyDict(halfcheetah_sac_create_config)
create_config = halfcheetah_sac_create_config
