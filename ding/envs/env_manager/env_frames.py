"""Rendered frames of the envs a manager runs: `ready_imgs` and the
evaluator's replay videos (`interaction_evaluator(..., render=True)`)."""
import os
from typing import Any, Dict, List, Sequence

import numpy as np

RENDER_MODES = ('rgb_array', 'depth_array')


def enable_rendering(env: Any, render_mode: str = 'rgb_array') -> None:
    """Let `env` (a ding env around a gymnasium env) draw frames off-screen: a gymnasium env
    made without an array render mode is switched to `render_mode` (classic-control and box2d
    envs read the attribute at each `render()`)."""
    if render_mode not in RENDER_MODES:
        raise ValueError(f'render_mode must be one of {RENDER_MODES}, got {render_mode!r}')
    os.environ.setdefault('SDL_VIDEODRIVER', 'dummy')  # pygame draws off-screen; no display needed
    os.environ.setdefault('PYGAME_HIDE_SUPPORT_PROMPT', '1')  # no banner in the program's output
    unwrapped = getattr(getattr(env, 'env', None), 'unwrapped', None)
    if unwrapped is not None and hasattr(unwrapped, 'render_mode') and unwrapped.render_mode not in RENDER_MODES:
        unwrapped.render_mode = render_mode


def render_frame(env: Any, render_mode: str = 'rgb_array') -> np.ndarray:
    """One frame `[H, W, C]` of `env` (a ding env around a gymnasium env, or anything whose
    `render()` returns an array)."""
    enable_rendering(env, render_mode)
    frame = env.render()
    if frame is None:
        raise ValueError(f'{type(env).__name__}.render() returned no frame; make the env with '
                         f'render_mode={render_mode!r}')
    return np.asarray(frame)


class EpisodeFrames:
    """Frames (or any per-step record, e.g. the policy's outputs) of the episodes `run_episodes`
    plays, kept per env until each episode is counted, so they line up with the returns (env by
    env, episode by episode)."""

    def __init__(self, env_num: int) -> None:
        self._running: List[List[np.ndarray]] = [[] for _ in range(env_num)]
        self._done: List[List[List[np.ndarray]]] = [[] for _ in range(env_num)]

    def add(self, frames: Dict[int, np.ndarray], recording: Sequence[int]) -> None:
        for env_id in recording:
            self._running[env_id].append(frames[env_id])

    def end(self, env_id: int, counted: bool) -> None:
        if counted:
            self._done[env_id].append(self._running[env_id])
        self._running[env_id] = []

    def episodes(self) -> List[List[np.ndarray]]:
        return [episode for env_episodes in self._done for episode in env_episodes]


def replay_picks(returns: Sequence[float]) -> List[int]:
    """Indices of the episodes a replay shows: the worst, the median(s) and the best, in that order."""
    order = np.argsort(np.asarray(returns), kind='stable')
    n = len(order)
    ranks = [0, n - 1] if n == 2 else list(range(n)) if n < 4 else [0, n // 2 - 1, n // 2, n - 1]
    return [int(order[r]) for r in ranks]


def replay_video(episodes: List[List[np.ndarray]], returns: Sequence[float]) -> np.ndarray:
    """`eval_output['replay_video']`: the worst, the median(s) and the best episode,
    in that order, as one uint8 array `[N, T, C, H, W]`, shorter ones padded with their last frame.
    From 4 episodes on both medians go in: TensorBoard pads an odd number of videos with black."""
    videos = [np.stack(episodes[i]).transpose(0, 3, 1, 2) for i in replay_picks(returns) if episodes[i]]
    if not videos:
        raise ValueError('replay_video: the evaluated episodes recorded no frames')
    length = max(len(v) for v in videos)
    padded = [np.concatenate([v, np.repeat(v[-1:], length - len(v), axis=0)]) for v in videos]
    return np.stack(padded).astype(np.uint8, copy=False)
