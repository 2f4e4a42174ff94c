"""Atari-style wrappers (gymnasium's 5-tuple API): no-op and fire resets,
frame skipping with max-pooling, episodic lives, frame warping, scaling, stacking and
transposing, reward clipping, RAM observations as images.

The ALE-specific ones (`NoopResetWrapper`, `FireResetWrapper`, `EpisodicLifeWrapper`) check
what they rely on when built, so a wrong env fails there with the reason, not mid-run.
"""
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
        if frame.ndim == 3 and frame.dtype == np.uint8:  # RGB (H, W, 3) to luminance and resized, in PIL
            from PIL import Image
            image = Image.fromarray(frame).convert('L')  # ITU-R 601 luma, as OpenCV's RGB2GRAY; 3x numpy's speed
            return np.asarray(image.resize((self.size, self.size), Image.BOX))
        if frame.ndim == 3:
            frame = (frame[..., 0] * 0.299 + frame[..., 1] * 0.587 + frame[..., 2] * 0.114).astype(frame.dtype)
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
    the stack with the first frame.

    The stack is one array, shifted in place as frames arrive. A subprocess worker points it
    at its shared-memory row with `stack_into(row)`: the observation is then built where the
    manager reads it and returned as that row itself, with no copy on the way. Otherwise each
    observation returned is a fresh array, since callers may keep it."""

    def __init__(self, env: gymnasium.Env, n_frames: int = 4) -> None:
        super().__init__(env)
        self.n_frames = int(n_frames)
        space = env.observation_space
        self.observation_space = _box_like(space, (self.n_frames, ) + tuple(space.shape))
        self._stack = None  # the latest stacked observation, newest frame last
        self._out = None  # where the next one is built (a worker's shared row), or None

    @property
    def frames(self) -> list:
        """The stacked frames, oldest first (user code reads them under this name)."""
        return [] if self._stack is None else list(self._stack)

    def stack_into(self, out: Any) -> None:
        """Build the next observation in `out` (an array of the stacked shape) and return
        `out` itself from reset/step; None goes back to fresh arrays, and copies the stack out
        of the memory it was pointed at (which its owner may now release)."""
        self._out = out
        if out is None and self._stack is not None and self._stack.base is not None:
            self._stack = np.array(self._stack)

    def reset(self, **kwargs: Any) -> Tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        stack = self._target(obs)
        stack[...] = obs  # every slot holds the first frame
        return self._emit(stack), info

    def step(self, action: Any) -> tuple:
        if self._stack is None:
            raise RuntimeError('FrameStackWrapper.step() before reset(): there is no stack to add the frame to')
        obs, reward, terminated, truncated, info = self.env.step(action)
        stack = self._target(obs)
        stack[:-1] = self._stack[1:]  # in place when the stack stays in one array: numpy copies overlaps safely
        stack[-1] = obs
        return self._emit(stack), reward, terminated, truncated, info

    def _target(self, frame: Any) -> np.ndarray:
        if self._out is not None:
            return self._out
        if self._stack is None or self._stack.base is not None or self._stack.shape[1:] != np.shape(frame):
            return np.empty((self.n_frames, ) + np.shape(frame), dtype=np.asarray(frame).dtype)
        return self._stack

    def _emit(self, stack: np.ndarray) -> np.ndarray:
        self._stack = stack
        return stack if stack is self._out else stack.copy()

    def __getstate__(self) -> dict:
        """Pickled (an env snapshot) with a private copy of the stack, not the shared row."""
        state = dict(self.__dict__)
        state['_out'] = None
        if self._stack is not None:
            state['_stack'] = np.array(self._stack)
        return state


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
