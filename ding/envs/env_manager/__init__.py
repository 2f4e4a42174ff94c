"""Env managers (`ding.envs` exports them too)."""
from ding.utils.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    'BaseEnvManager': 'base_env_manager',
    'BaseEnvManagerV2': 'base_env_manager',
    'EnvState': 'env_state',
    'SubprocessEnvManagerV2': 'subprocess_env_manager',
    'SyncSubprocessEnvManager': 'subprocess_env_manager',
    'AsyncSubprocessEnvManager': 'subprocess_env_manager',
    'GymVectorEnvManager': 'gym_vector_env_manager',
    'EnvPoolEnvManager': 'envpool_env_manager',
    'EnvSupervisor': 'ding.compat.env_supervisor',
    'create_env_manager': 'factory',
    'get_env_manager_cls': 'factory',
})
