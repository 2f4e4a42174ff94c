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
    'EnvSupervisor': 'ding.compat.env_supervisor',
    'EnvState': 'env_manager.env_state',
    'PettingZooParallelEnv': 'petting_zoo_env',
}
# `ding.envs` re-exports every env wrapper (`from ding.envs import FrameStackWrapper`).
_EXPORTS.update({name: 'env_wrappers' for name in (
    'NoopResetWrapper', 'MaxAndSkipWrapper', 'WarpFrameWrapper', 'ScaledFloatFrameWrapper', 'ScaledFloatFrame',
    'ClipRewardWrapper', 'ActionRepeatWrapper', 'DelayRewardWrapper', 'EvalEpisodeReturnWrapper', 'FrameStackWrapper',
    'ObsTransposeWrapper', 'TransposeWrapper', 'RunningMeanStd', 'ObsNormWrapper', 'StaticObsNormWrapper',
    'RewardNormWrapper', 'RamWrapper', 'EpisodicLifeWrapper', 'FireResetWrapper', 'GymHybridDictActionWrapper',
    'ObsPlusPrevActRewWrapper', 'AllinObsWrapper', 'TimeLimitWrapper', 'FlatObsWrapper', 'GymToGymnasiumWrapper',
    'ActionScaleWrapper', 'NormalizedEnvManager', 'update_shape', 'create_env_wrapper', 'get_default_wrappers', 'env_normalizer_sync',
    'sync_env_normalizers')})
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

from ding.utils.registry import ENV_MANAGER_REGISTRY, ENV_WRAPPER_REGISTRY  # noqa: E402

ENV_MANAGER_REGISTRY.declare(__name__, {
    'base': 'env_manager.base_env_manager',
    'base_v2': 'env_manager.base_env_manager',
    'subprocess': 'env_manager.subprocess_env_manager',
    'gym_vector': 'env_manager.gym_vector_env_manager',
    'envpool': 'env_manager.envpool_env_manager',
    'env_pool': 'env_manager.envpool_env_manager',  # the same manager (see envpool_env_manager.py)
    'auto': 'env_manager.auto_env_manager',
    'alternating': 'env_manager.alternating_sampler',
    'worker_inference': 'env_manager.worker_inference',
})
# Env wrapper type names (`env.env_wrapper` specs), registered by their modules when first looked up.
ENV_WRAPPER_REGISTRY.declare(__name__, {name: f'env_wrappers.{module}' for module, names in {
    'frame_wrappers': ('noop_reset', 'max_and_skip', 'warp_frame', 'scaled_float_frame', 'clip_reward', 'episodic_life',
                       'fire_reset', 'ram', 'frame_stack', 'obs_transpose'),
    'step_wrappers': ('action_repeat', 'delay_reward', 'eval_episode_return', 'time_limit', 'action_scale',
                      'gym_hybrid_dict_action', 'obs_plus_prev_action_reward', 'reward_in_obs'),
    'norm_wrappers': ('obs_norm', 'reward_norm', 'static_obs_norm'),
}.items() for name in names})
