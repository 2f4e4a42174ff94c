"""MAPPO on MPE simple_reference (2 agents, each must tell the other which landmark to reach: 50
actions = 5 moves x 10 messages), with the keys of the simple_spread MAPPO config. The global
state is mpe2's `state()` (both agents' observations), shared by the agents' critics."""
from easydict import EasyDict

n_agent = 2
collector_env_num = 8
evaluator_env_num = 8
agent_obs_shape = 21
main_config = dict(
    exp_name='ptz_simple_reference_mappo_seed0',
    env=dict(
        env_family='mpe',
        env_id='simple_reference_v3',
        n_agent=n_agent,
        n_landmark=3,
        max_cycles=25,
        agent_obs_only=False,
        agent_specific_global_state=False,
        continuous_actions=False,
        collector_env_num=collector_env_num,
        evaluator_env_num=evaluator_env_num,
        n_evaluator_episode=evaluator_env_num,
        stop_value=-40,
    ),
    policy=dict(
        cuda=True,
        multi_agent=True,
        action_space='discrete',
        model=dict(
            action_space='discrete',
            agent_num=n_agent,
            agent_obs_shape=agent_obs_shape,
            global_obs_shape=n_agent * agent_obs_shape,
            action_shape=50,
        ),
        learn=dict(
            epoch_per_collect=5,
            batch_size=800,
            learning_rate=5e-4,
            value_weight=0.5,
            entropy_weight=0.01,
            clip_ratio=0.2,
            adv_norm=False,
            value_norm=True,
            grad_clip_value=10,
        ),
        collect=dict(n_sample=3200, unroll_len=1, env_num=collector_env_num),
        eval=dict(env_num=evaluator_env_num, evaluator=dict(eval_freq=50, )),
        other=dict(),
    ),
)
main_config = EasyDict(main_config)
create_config = dict(
    env=dict(
        import_names=['dizoo.petting_zoo.envs.petting_zoo_simple_spread_env'],
        type='petting_zoo',
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='ppo'),
)
create_config = EasyDict(create_config)
ptz_simple_reference_mappo_config = main_config
ptz_simple_reference_mappo_create_config = create_config
