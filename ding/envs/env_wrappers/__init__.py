"""`ding.envs.env_wrappers`: env wrappers by name, on gymnasium's API, and the
`env.env_wrapper` config mechanism (build.py). Normalisation with running statistics:
norm_wrappers.py (inside one env) and normalized_manager.py (one set of statistics for a
whole env manager, saved with run-state checkpoints and read frozen by evaluation)."""
from ding.envs.env_wrappers.build import (DEFAULT_CHAINS, apply_wrappers, create_env_wrapper, get_default_wrappers,
                                          update_shape, wrapper_names, wrapper_specs)
from ding.envs.env_wrappers.frame_wrappers import (ClipRewardWrapper, EpisodicLifeWrapper, FireResetWrapper,
                                                   FrameStackWrapper, MaxAndSkipWrapper, NoopResetWrapper,
                                                   ObsTransposeWrapper, RamWrapper, ScaledFloatFrame,
                                                   ScaledFloatFrameWrapper, TransposeWrapper, WarpFrameWrapper)
from ding.envs.env_wrappers.grid_wrappers import ChannelsFirstFloatWrapper
from ding.envs.env_wrappers.norm_wrappers import ObsNormWrapper, RewardNormWrapper, StaticObsNormWrapper
from ding.envs.env_wrappers.norm_sync import env_normalizer_sync, sync_env_normalizers
from ding.envs.env_wrappers.normalized_manager import NormalizedEnvManager
from ding.envs.env_wrappers.running_stats import RunningMeanStd
from ding.envs.env_wrappers.step_wrappers import (ActionRepeatWrapper, ActionScaleWrapper, AllinObsWrapper,
                                                  DelayRewardWrapper, EvalEpisodeReturnWrapper, FlatObsWrapper,
                                                  GymHybridDictActionWrapper, GymToGymnasiumWrapper,
                                                  ObsPlusPrevActRewWrapper, RewardFloorWrapper, TimeLimitWrapper)

__all__ = [
    'NoopResetWrapper', 'MaxAndSkipWrapper', 'WarpFrameWrapper', 'ScaledFloatFrameWrapper', 'ScaledFloatFrame',
    'ClipRewardWrapper', 'ActionRepeatWrapper', 'DelayRewardWrapper', 'EvalEpisodeReturnWrapper', 'FrameStackWrapper',
    'ObsTransposeWrapper', 'TransposeWrapper', 'RunningMeanStd', 'ObsNormWrapper', 'StaticObsNormWrapper',
    'RewardNormWrapper', 'RamWrapper', 'EpisodicLifeWrapper', 'FireResetWrapper', 'GymHybridDictActionWrapper',
    'ObsPlusPrevActRewWrapper', 'TimeLimitWrapper', 'FlatObsWrapper', 'GymToGymnasiumWrapper', 'ActionScaleWrapper',
    'RewardFloorWrapper', 'AllinObsWrapper', 'NormalizedEnvManager', 'update_shape', 'create_env_wrapper',
    'get_default_wrappers', 'wrapper_names', 'wrapper_specs', 'apply_wrappers', 'DEFAULT_CHAINS',
    'sync_env_normalizers', 'env_normalizer_sync', 'ChannelsFirstFloatWrapper'
]
