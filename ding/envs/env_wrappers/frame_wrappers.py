"""Atari-style wrappers (DI-engine's names, gymnasium's 5-tuple API): no-op and fire resets,
frame skipping with max-pooling, episodic lives, frame warping, scaling, stacking and
transposing, reward clipping, RAM observations as images.

The ALE-specific ones (`NoopResetWrapper`, `FireResetWrapper`, `EpisodicLifeWrapper`) check
what they rely on when built, so a wrong env fails there with the reason, not mid-run.
"""
from collections import deque
from typing import Any, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from ding.utils.registry import ENV_WRAPPER_REGISTRY


def _action_meanings(env: gymnasium.Env, wrapper: str) -> list:
    get = getattr(env.unwrapped, 'get_action_meanings', None)
    if get is None:
        raise TypeError(f'{wrapper} needs an ALE env (with get_action_meanings()); got {env.unwrapped!r}')
    return list(get())


def _box_like(space: Any, shape: Tuple[int, ...], dtype: Any = None) -> spaces.Box:
    """A Box of `shape` spanning the overall bounds of `space`."""
    return spaces.Box(low=np.min(space.low), high=np.max(space.high), shape=shape, dtype=dtype or space.dtype)


@ENV_WRAPPER_REGISTRY.register('noop_reset')
class NoopResetWrapper(gymnasium.Wrapper):
    """On reset, take a random number (1..noop_max) of no-op actions (action 0)."""

    def __init__(self, env: gymnasium.Env, noop_max: int = 30) -> None:
        super().__init__(env)
        if _action_meanings(env, 'NoopResetWrapper')[0] != 'NOOP':
            raise ValueError('NoopResetWrapper: action 0 of this env is not NOOP')
        self.noop_max = int(noop_max)
        self.noop_action = 0

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        # The env's own generator, so a seeded reset gives the same number of no-ops.
        for _ in range(int(self.env.unwrapped.np_random.integers(1, self.noop_max + 1))):
            obs, _, terminated, truncated, info = self.env.step(self.noop_action)
            if terminated or truncated:
                obs, info = self.env.reset()
        return obs, info


@ENV_WRAPPER_REGISTRY.register('max_and_skip')
class MaxAndSkipWrapper(gymnasium.Wrapper):
    """Repeat each action `skip` times, sum the rewards, return the max of the last two frames."""

    def __init__(self, env: gymnasium.Env, skip: int = 4) -> None:
        super().__init__(env)
        self._skip = int(skip)

    def step(self, action: Any) -> tuple:
        frames, total = [], 0.0
        for _ in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            frames.append(obs)
            total += float(reward)
            if terminated or truncated:
                break
        return np.max(np.stack(frames[-2:]), axis=0), total, terminated, truncated, info


@ENV_WRAPPER_REGISTRY.register('warp_frame')
class WarpFrameWrapper(gymnasium.ObservationWrapper):
    """Resize frames to `size` x `size`: an RGB (H, W, 3) frame becomes grayscale; a
    channel-first frame (fewer than 10 leading channels) is resized per channel. Uses PIL's
    box filter (area averaging, as OpenCV's INTER_AREA), so OpenCV is not needed."""

    def __init__(self, env: gymnasium.Env, size: int = 84) -> None:
        super().__init__(env)
        try:
            import PIL  # noqa: F401  (checked here, so a missing one fails when the env is built)
        except ImportError as err:
            raise ImportError('WarpFrameWrapper resizes frames with pillow, which is not installed; install it with: '
                              'pip install "ding[atari]"') from err
        self.size = int(size)
        space = env.observation_space
        if isinstance(space, spaces.Tuple):
            self.observation_space = spaces.Tuple([_box_like(s, (self.size, self.size)) for s in space.spaces])
        else:
            self.observation_space = _box_like(space, (self.size, self.size))

    def observation(self, frame: Any) -> Any:
        if isinstance(frame, tuple):
            return tuple(self.observation(f) for f in frame)
        frame = np.asarray(frame)
        if frame.ndim == 3 and frame.shape[0] < 10:  # channel first: resize each channel
            return np.stack([self._resize(c) for c in frame])
        if frame.ndim == 3:  # RGB (H, W, 3) to luminance, as OpenCV's RGB2GRAY
            gray = frame[..., 0] * 0.299 + frame[..., 1] * 0.587 + frame[..., 2] * 0.114
            frame = np.rint(gray).astype(frame.dtype) if frame.dtype == np.uint8 else gray.astype(frame.dtype)
        return self._resize(frame)

    def _resize(self, plane: np.ndarray) -> np.ndarray:
        from PIL import Image
        dtype = plane.dtype
        image = Image.fromarray(plane if dtype == np.uint8 else plane.astype(np.float32))
        return np.asarray(image.resize((self.size, self.size), Image.BOX)).astype(dtype)


@ENV_WRAPPER_REGISTRY.register('scaled_float_frame')
class ScaledFloatFrameWrapper(gymnasium.ObservationWrapper):
    """Map observations from the space's [low, high] to float32 [0, 1]."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        space = env.observation_space
        self.bias = np.min(space.low)
        self.scale = np.max(space.high) - self.bias
        self.observation_space = spaces.Box(low=0., high=1., shape=space.shape, dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        return ((np.asarray(observation) - self.bias) / self.scale).astype(np.float32)


ScaledFloatFrame = ScaledFloatFrameWrapper  # the OpenAI baselines name


@ENV_WRAPPER_REGISTRY.register('clip_reward')
class ClipRewardWrapper(gymnasium.RewardWrapper):
    """Reward becomes its sign: -1, 0 or +1."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.reward_range = (-1, 1)

    def reward(self, reward: float) -> float:
        return float(np.sign(reward))


@ENV_WRAPPER_REGISTRY.register('episodic_life')
class EpisodicLifeWrapper(gymnasium.Wrapper):
    """A lost life ends the episode (terminated) for learning; the game itself is reset only
    when it is really over, otherwise reset continues it with a no-op step."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        if not hasattr(env.unwrapped, 'ale'):
            raise TypeError(f'EpisodicLifeWrapper needs an ALE env (env.unwrapped.ale); got {env.unwrapped!r}')
        self.lives = 0
        self.was_real_done = True

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.was_real_done = bool(terminated or truncated)
        lives = self.env.unwrapped.ale.lives()
        if 0 < lives < self.lives:  # lives == 0 can last a few frames (Qbert): wait for the real end
            terminated = True
        self.lives = lives
        return obs, reward, terminated, truncated, info

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        if self.was_real_done:
            obs, info = self.env.reset(**kwargs)
        else:
            obs, _, _, _, info = self.env.step(0)
        self.lives = self.env.unwrapped.ale.lives()
        return obs, info


@ENV_WRAPPER_REGISTRY.register('fire_reset')
class FireResetWrapper(gymnasium.Wrapper):
    """Press FIRE (action 1) after each reset, for games that wait for it."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        meanings = _action_meanings(env, 'FireResetWrapper')
        if len(meanings) < 3 or meanings[1] != 'FIRE':
            raise ValueError(f'FireResetWrapper needs FIRE as action 1 and at least 3 actions; got {meanings}')

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        self.env.reset(**kwargs)
        obs, _, terminated, truncated, info = self.env.step(1)
        if terminated or truncated:
            obs, info = self.env.reset()
        return obs, info


@ENV_WRAPPER_REGISTRY.register('ram')
class RamWrapper(gymnasium.Wrapper):
    """RAM observations (128,) as float32 images (128, 1, 1)."""

    def __init__(self, env: gymnasium.Env, render: bool = False) -> None:
        super().__init__(env)
        self._shape = tuple(env.observation_space.shape) + (1, 1)
        self.observation_space = _box_like(env.observation_space, self._shape, np.float32)

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        return np.asarray(obs).reshape(self._shape).astype(np.float32), info

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return np.asarray(obs).reshape(self._shape).astype(np.float32), reward, terminated, truncated, info


@ENV_WRAPPER_REGISTRY.register('frame_stack')
class FrameStackWrapper(gymnasium.Wrapper):
    """Observation = the latest `n_frames` frames stacked on a new first axis; a reset fills
    the stack with the first frame."""

    def __init__(self, env: gymnasium.Env, n_frames: int = 4) -> None:
        super().__init__(env)
        self.n_frames = int(n_frames)
        self.frames = deque([], maxlen=self.n_frames)
        space = env.observation_space
        self.observation_space = _box_like(space, (self.n_frames, ) + tuple(space.shape))

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        for _ in range(self.n_frames):
            self.frames.append(obs)
        return self._get_ob(), info

    def step(self, action: Any) -> tuple:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames.append(obs)
        return self._get_ob(), reward, terminated, truncated, info

    def _get_ob(self) -> np.ndarray:
        return np.stack(self.frames, axis=0)


@ENV_WRAPPER_REGISTRY.register('obs_transpose')
class ObsTransposeWrapper(gymnasium.ObservationWrapper):
    """(H, W, C) observations to (C, H, W); a tuple of them to (N, C, H, W)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        space = env.observation_space
        if isinstance(space, spaces.Tuple):
            h, w, c = space.spaces[0].shape
            self.observation_space = _box_like(space.spaces[0], (len(space.spaces), c, h, w))
        else:
            h, w, c = space.shape
            self.observation_space = _box_like(space, (c, h, w))

    def observation(self, obs: Any) -> np.ndarray:
        if isinstance(obs, tuple):
            return np.stack([np.asarray(o).transpose(2, 0, 1) for o in obs])
        return np.asarray(obs).transpose(2, 0, 1)


class TransposeWrapper(gymnasium.ObservationWrapper):
    """The last axis of the observation moved first (channels last to channels first)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        shape = env.observation_space.shape
        self.observation_space = _box_like(env.observation_space, (shape[-1], *shape[:-1]))

    def observation(self, obs: Any) -> np.ndarray:
        return np.moveaxis(np.asarray(obs), -1, 0)
