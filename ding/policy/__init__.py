"""Policies: one algorithm each, seen through learn / collect / eval modes."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'Policy': 'base_policy',
    'DQNPolicy': 'dqn',
    'C51Policy': 'c51',
    'QRDQNPolicy': 'qrdqn',
    'IQNPolicy': 'iqn',
    'RainbowDQNPolicy': 'rainbow',
    'FQFPolicy': 'fqf',
    'R2D2Policy': 'r2d2',
    'get_random_policy': 'policy_factory',
    'create_policy': 'policy_factory',
    'single_env_forward_wrapper': 'policy_factory',
    'PPOPolicy': 'ppo',
    'PPOOffPolicy': 'ppo_off',
    'A2CPolicy': 'a2c',
    'PGPolicy': 'pg',
    'SACPolicy': 'sac',
    'DiscreteSACPolicy': 'discrete_sac',
    'TD3Policy': 'td3',
    'DDPGPolicy': 'ddpg',
    'SQLPolicy': 'sql',
    'CQLPolicy': 'cql',
    'DiscreteCQLPolicy': 'discrete_cql',
    'BehaviourCloningPolicy': 'bc',
    'TD3BCPolicy': 'td3_bc',
    'IQLPolicy': 'iql',
    'BCQPolicy': 'bcq',
    'IMPALAPolicy': 'impala',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# config `policy.type` -> the module that registers it
from ding.utils.registry import POLICY_REGISTRY  # noqa: E402

POLICY_REGISTRY.declare(__name__, {
    'dqn': 'dqn',
    'c51': 'c51',
    'qrdqn': 'qrdqn',
    'iqn': 'iqn',
    'rainbow': 'rainbow',
    'fqf': 'fqf',
    'r2d2': 'r2d2',
    'ppo': 'ppo',
    'ppo_offpolicy': 'ppo_off',
    'a2c': 'a2c',
    'pg': 'pg',
    'sac': 'sac',
    'discrete_sac': 'discrete_sac',
    'td3': 'td3',
    'ddpg': 'ddpg',
    'sql': 'sql',
    'cql': 'cql',
    'discrete_cql': 'discrete_cql',
    'bc': 'bc',
    'td3_bc': 'td3_bc',
    'iql': 'iql',
    'bcq': 'bcq',
    'impala': 'impala',
})
