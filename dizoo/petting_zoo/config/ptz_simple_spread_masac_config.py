"""Discrete MASAC on MPE simple_spread (3 agents), with DI-engine's config keys and values except
`stop_value=-130` (DI-engine's 0 is out of reach; -130 is the return the MAPPO config stops at).

Run with DI-engine's ding/example/masac.py: `SACDiscretePolicy(cfg.policy)` with `multi_agent=True`
builds a MASACPolicy (ding/policy/masac.py) over a MAQAC.
"""
from easydict import EasyDict

n_agent = 3
n_landmark = n_agent
collector_env_num = 8
evaluator_env_num = 8
agent_obs_shape = 2 + 2 + n_landmark * 2 + (n_agent - 1) * 2 + (n_agent - 1) * 2
global_state_shape = n_agent * 4 + n_landmark * 2 + n_agent * (n_agent - 1) * 2
main_config = dict(
    exp_name='ptz_simple_spread_masac_seed0',
    env=dict(
        env_family='mpe',
        env_id='simple_spread_v2',
        n_agent=n_agent,
        n_landmark=n_landmark,
        max_cycles=25,
        agent_obs_only=False,
        agent_specific_global_state=True,
        continuous_actions=False,
        collector_env_num=collector_env_num,
        evaluator_env_num=evaluator_env_num,
        n_evaluator_episode=evaluator_env_num,
        stop_value=-130,
    ),
    policy=dict(
        cuda=True,
        on_policy=False,
        multi_agent=True,
        random_collect_size=5000,
        model=dict(
            agent_obs_shape=agent_obs_shape,
            global_obs_shape=agent_obs_shape + global_state_shape,  # agent-specific global state
            action_shape=5,
            twin_critic=True,
        ),
        learn=dict(
            update_per_collect=50,
            batch_size=320,
            learning_rate_q=5e-4,
            learning_rate_policy=5e-4,
            learning_rate_alpha=5e-5,
            target_theta=0.005,
            discount_factor=0.99,
            alpha=0.2,
            auto_alpha=True,
            target_entropy=-2,
        ),
        collect=dict(n_sample=1600, env_num=collector_env_num),
        eval=dict(env_num=evaluator_env_num, evaluator=dict(eval_freq=50, )),
        other=dict(
            eps=dict(type='linear', start=1, end=0.05, decay=100000),
            replay_buffer=dict(replay_buffer_size=int(1e6), ),
        ),
    ),
)
main_config = EasyDict(main_config)
create_config = dict(
    env=dict(
        import_names=['dizoo.petting_zoo.envs.petting_zoo_simple_spread_env'],
        type='petting_zoo',
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='discrete_sac'),
)
create_config = EasyDict(create_config)
ptz_simple_spread_masac_config = main_config
ptz_simple_spread_masac_create_config = create_config
