"""Which stored frames a pushed transition can share: `assign_frames` (FrameBuffer's core).

Each env has a `Track`: the frames it showed recently, by time step, with their frame ids.
A transition at step t holds obs = the frames of steps t-k+1 .. t and next_obs = those of
steps t+s-k+1 .. t+s, where s is the row's `nstep` column (n-step returns: next_obs is the
observation s steps on) or 1. So a row's obs is found at the track's next step, and next_obs
at the steps s on: with or without n-step, one new frame per env step is stored.

Every reuse is checked frame by frame against the pushed content, so a frame is shared only
if it is equal: a row that does not follow the track (a new episode, a reset stack, an env
pushed out of order) starts the track afresh and the stacks come back exact all the same.
"""
from typing import Any, Dict, List, Optional, Tuple

import numpy as np


class Track:
    """One env's frames by time step: {step: (frame content, frame id)}, `now` = the step of
    the newest frame of its last obs."""
    __slots__ = ('now', 'by_step')

    def __init__(self, now: Optional[int] = None, by_step: Optional[Dict[int, Tuple[np.ndarray, int]]] = None) -> None:
        self.now = now
        self.by_step = {} if by_step is None else by_step

    def copy(self) -> 'Track':
        return Track(self.now, dict(self.by_step))

    def owned(self) -> 'Track':
        """This track holding copies of the frames that are views into a pushed batch."""
        return Track(self.now, {t: (f if f.base is None else f.copy(), i) for t, (f, i) in self.by_step.items()})


def assign_frames(obs: np.ndarray, nxt: np.ndarray, envs: List[Any], steps: np.ndarray, tracks: Dict[Any, Track],
                  first_new: int, valid_from: int) -> tuple:
    """(obs ids [n, k], next_obs ids [n, k], frames to append (ids first_new, first_new + 1,
    ...), the updated tracks of the envs seen, the oldest id reused from before this push).
    `tracks` is not changed; ids below `valid_from` are not reused."""
    n, k = obs.shape[:2]
    new_frames: List[np.ndarray] = []
    obs_ids = np.empty((n, k), dtype=np.int64)
    next_ids = np.empty((n, k), dtype=np.int64)
    seen: Dict[Any, Track] = {}
    oldest = [first_new]

    def known(track: Track, step: int, frame: np.ndarray) -> Optional[int]:
        entry = track.by_step.get(step)
        if entry is None or entry[1] < valid_from or not np.array_equal(entry[0], frame):
            return None
        oldest[0] = min(oldest[0], entry[1])
        return entry[1]

    def store(frame: np.ndarray) -> int:
        new_frames.append(frame)
        return first_new + len(new_frames) - 1

    for i, env in enumerate(envs):
        track = seen.get(env)
        if track is None:
            track = seen[env] = tracks[env].copy() if env in tracks else Track()
        ids = _follow(track, obs[i], k, known)
        if ids is None:  # not the track's next step: a fresh stack (a frame equal to its neighbour stored once)
            ids = _fresh(obs[i], k, store)
            track.now, track.by_step = 0, {j - k + 1: (obs[i, j], ids[j]) for j in range(k)}
        obs_ids[i] = ids
        step = track.now + int(steps[i]) - k + 1
        for j in range(k):
            got = known(track, step + j, nxt[i, j])
            if got is None:
                got = next_ids[i, j - 1] if j > 0 and np.array_equal(nxt[i, j], nxt[i, j - 1]) else store(nxt[i, j])
                track.by_step[step + j] = (nxt[i, j], got)
            next_ids[i, j] = got
        for old in [t for t in track.by_step if t <= track.now - k + 1]:  # the next obs starts a step later
            del track.by_step[old]
    return obs_ids, next_ids, new_frames, seen, oldest[0]


def _follow(track: Track, stack: np.ndarray, k: int, known: Any) -> Optional[List[int]]:
    """The ids of `stack` if it is the track's next obs (every frame equal), else None."""
    if track.now is None:
        return None
    start = track.now + 1 - k + 1
    ids = []
    for j in range(k):
        got = known(track, start + j, stack[j])
        if got is None:
            return None
        ids.append(got)
    track.now += 1
    return ids


def _fresh(stack: np.ndarray, k: int, store: Any) -> List[int]:
    ids: List[int] = []
    for j in range(k):
        ids.append(ids[-1] if j > 0 and np.array_equal(stack[j], stack[j - 1]) else store(stack[j]))
    return ids
