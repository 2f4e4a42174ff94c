"""Small-grid observations (MinAtar, MiniGrid) for conv encoders: `ChannelsFirstFloatWrapper`
turns an [H, W, C] grid (bool or uint8; optionally one key of a dict observation, e.g.
MiniGrid's 'image') into float32 [C, H, W]. gymnasium cannot reshape a Box of bools, which
rules out `obs_transpose` for MinAtar."""
from typing import Any, Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.utils.registry import ENV_WRAPPER_REGISTRY


@ENV_WRAPPER_REGISTRY.register('channels_first_float')
class ChannelsFirstFloatWrapper(gymnasium.ObservationWrapper):
    """[H, W, C] (or `obs[key]`) -> float32 [C, H, W], values unchanged."""

    def __init__(self, env: gymnasium.Env, key: Optional[str] = None) -> None:
        super().__init__(env)
        space = env.observation_space
        if key is not None:
            if not isinstance(space, spaces.Dict) or key not in space.spaces:
                raise TypeError(f'ChannelsFirstFloatWrapper(key={key!r}) needs a Dict observation space with that key; '
                                f'got {space}')
            space = space.spaces[key]
        if not isinstance(space, spaces.Box) or len(space.shape) != 3:
            raise TypeError(f'ChannelsFirstFloatWrapper needs [H, W, C] observations; got {space}')
        self.key = key
        h, w, c = space.shape
        low, high = float(np.min(space.low)), float(np.max(space.high))
        self.observation_space = spaces.Box(low, high, shape=(c, h, w), dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        grid = observation[self.key] if self.key is not None else observation
        return np.ascontiguousarray(np.moveaxis(np.asarray(grid), -1, 0), dtype=np.float32)
