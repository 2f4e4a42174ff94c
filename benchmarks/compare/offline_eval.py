"""The offline comparisons' evaluation, the same code on every side: numpy + gymnasium only, so
each peer's runner imports it in its own venv (d3rlpy_offline_runner.py, edac_di_engine_runner.py).

Every framework's policy acts in [-1, 1]; the action is clipped there and mapped onto the
env's own bounds (Pendulum's torque is [-2, 2]; MuJoCo's locomotion envs are [-1, 1]).
"""
from typing import Callable

import gymnasium as gym
import numpy as np

EVAL_EPISODES = 10
EVAL_SEED_BASE = 100_000  # episode i of every evaluation resets with this + i: the same starts for all


def evaluate(act: Callable[[np.ndarray], np.ndarray], env_id: str = 'Pendulum-v1',
             episodes: int = EVAL_EPISODES) -> float:
    """Mean return of `act` (observation -> action in [-1, 1]) over the protocol's episodes."""
    env, returns = gym.make(env_id), []
    high = env.action_space.high.astype(np.float32)
    if not np.allclose(env.action_space.low, -high):
        raise ValueError(f'{env_id}: offline_eval maps [-1, 1] onto symmetric bounds; got '
                         f'{env.action_space.low} .. {env.action_space.high}')
    for i in range(episodes):
        obs, _ = env.reset(seed=EVAL_SEED_BASE + i)
        total, done = 0.0, False
        while not done:
            action = np.clip(np.asarray(act(obs), dtype=np.float32).reshape(high.shape), -1, 1) * high
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return float(np.mean(returns))
