"""Environments and env managers."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'BaseEnv': 'base_env',
    'BaseEnvTimestep': 'base_env',
    'DingEnvWrapper': 'ding_env_wrapper',
    'BaseEnvManager': 'env_manager.base_env_manager',
    'BaseEnvManagerV2': 'env_manager.base_env_manager',
    'EnvStepBatch': 'env_manager.step_batch',
    'EnvTimestep': 'env_manager.step_batch',
    'EnvFaultError': 'env_manager.env_faults',
    'LegacyGymAdapter': 'gym_compat',
    'create_env_manager': 'env_manager.factory',
    'get_env_manager_cls': 'env_manager.factory',
    'get_vec_env_setting': 'env_manager.factory',
    'SubprocessEnvManagerV2': 'env_manager.subprocess_env_manager',
    'GymVectorEnvManager': 'env_manager.gym_vector_env_manager',
    'EnvPoolEnvManager': 'env_manager.envpool_env_manager',
    'AutoEnvManager': 'env_manager.auto_env_manager',
    'AlternatingSampler': 'env_manager.alternating_sampler',
    'WorkerInferenceSampler': 'env_manager.worker_inference',
    'EnvSupervisor': 'env_manager.env_supervisor',
    'EnvState': 'env_manager.env_state',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

from ding.utils.registry import ENV_MANAGER_REGISTRY  # noqa: E402

ENV_MANAGER_REGISTRY.declare(__name__, {
    'base': 'env_manager.base_env_manager',
    'base_v2': 'env_manager.base_env_manager',
    'subprocess': 'env_manager.subprocess_env_manager',
    'gym_vector': 'env_manager.gym_vector_env_manager',
    'envpool': 'env_manager.envpool_env_manager',
    'auto': 'env_manager.auto_env_manager',
    'alternating': 'env_manager.alternating_sampler',
    'worker_inference': 'env_manager.worker_inference',
})
