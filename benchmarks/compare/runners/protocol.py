"""The evaluation protocol every runner applies identically (bars.md).

Every 1,000 env steps (checked between training chunks), 10 episodes with the framework's
own greedy policy on a separate gymnasium env; wall time counts from just before training
starts. Each evaluation appends one JSON line to the run's log, flushed at once, so a run
killed at its wall cap still leaves every evaluation it made.

Standard library + numpy + gymnasium only: runners execute this inside peer venvs.
"""
import argparse
import contextlib
import dataclasses
import json
import time
from typing import Any, Callable, ContextManager, Dict, List, Optional

import gymnasium as gym
import numpy as np

from benchmark_specs import EVAL_EPISODES, get_spec, make_env

# Episode i of every evaluation of seed s resets with EVAL_SEED_BASE + 1000 * s + i: all
# frameworks and all evaluations of one seed face the same 10 initial states.
EVAL_SEED_BASE = 100_000

GreedyAct = Callable[[np.ndarray], Any]


def parse_runner_args(argv: Optional[List[str]] = None,
                      add_arguments: Callable[[argparse.ArgumentParser], None] = None) -> argparse.Namespace:
    """The command line shared by all runners (run.py builds it); `add_arguments` adds a
    runner's own options."""
    p = argparse.ArgumentParser(description='Train one framework on one benchmark under the protocol.')
    p.add_argument('--benchmark', required=True)
    p.add_argument('--seed', type=int, required=True)
    p.add_argument('--out', required=True, help='JSON-lines log to write')
    p.add_argument('--max-env-steps', type=int, default=None, help='default: the benchmark budget')
    p.add_argument('--max-wall-s', type=float, default=None, help='default: the benchmark wall cap')
    p.add_argument('--torch-threads', type=int, default=1, help='0 keeps the framework default')
    p.add_argument('--whole-budget', action='store_true',
                   help='never stop at a threshold: a learning curve over the whole env-step budget')
    if add_arguments is not None:
        add_arguments(p)
    args = p.parse_args(argv)
    spec = get_spec(args.benchmark)
    if args.whole_budget:
        spec = dataclasses.replace(spec, thresholds=(float('inf'), ))
    args.spec = spec
    args.max_env_steps = args.max_env_steps or spec.env_step_budget
    args.max_wall_s = args.max_wall_s or spec.wall_cap_s
    return args


def set_torch_threads(n: int) -> None:
    if n > 0:
        import torch
        torch.set_num_threads(n)


class ProtocolEvaluator:
    """Decides when to evaluate and when to stop; runs and logs the evaluations.

    A runner calls `start()` just before training, then `step(env_steps, act)` between
    training chunks; `step` returns True when the run must stop (hardest threshold reached,
    env-step budget spent, or wall cap passed). `act(obs)` maps one observation to one action
    with the framework's greedy policy; `eval_context()` is entered around each evaluation
    (e.g. no-grad and inference mode, for frameworks whose act path does not set them itself).
    """

    def __init__(self, args: argparse.Namespace, framework: str, info: Dict[str, Any] = None,
                 eval_context: Callable[[], ContextManager] = contextlib.nullcontext,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.spec = args.spec
        self.seed = args.seed
        self.max_env_steps = args.max_env_steps
        self.max_wall_s = args.max_wall_s
        self._clock = clock
        self._eval_context = eval_context
        self._file = open(args.out, 'w')
        self._env = make_env(self.spec.env_id)
        self._next_eval = self.spec.eval_every
        self._t0 = None
        self._eval_s = 0.0
        self.best_return = -np.inf
        self.end_reason = None
        info = dict(info or {})
        info['versions'] = dict(info.get('versions', {}), gymnasium=gym.__version__, numpy=np.__version__)
        self._write(event='start', framework=framework, benchmark=self.spec.name, seed=self.seed,
                    env_id=self.spec.env_id, max_env_steps=self.max_env_steps,
                    max_wall_s=self.max_wall_s, **info)

    def start(self) -> None:
        self._t0 = self._clock()

    def wall_s(self) -> float:
        return self._clock() - self._t0

    def due(self, env_steps: int) -> bool:
        return env_steps >= self._next_eval

    def step(self, env_steps: int, act: GreedyAct) -> bool:
        """Evaluate if due; return True when training must stop."""
        if self._t0 is None:
            raise RuntimeError('ProtocolEvaluator.start() must be called just before training')
        if self.due(env_steps):
            self.evaluate(env_steps, act)
        return self._check_stop(env_steps)

    def evaluate(self, env_steps: int, act: GreedyAct) -> float:
        t = self._clock()
        with self._eval_context():
            returns = [self._episode(i, act) for i in range(EVAL_EPISODES)]
        self._eval_s += self._clock() - t
        mean = float(np.mean(returns))
        self.best_return = max(self.best_return, mean)
        self._next_eval = (env_steps // self.spec.eval_every + 1) * self.spec.eval_every
        self._write(event='eval', env_steps=int(env_steps), wall_s=round(self.wall_s(), 4),
                    eval_s=round(self._eval_s, 4), mean_return=mean, returns=returns)
        return mean

    def _episode(self, i: int, act: GreedyAct) -> float:
        obs, _ = self._env.reset(seed=EVAL_SEED_BASE + 1000 * self.seed + i)
        total, done = 0.0, False
        while not done:
            action = act(obs)
            if isinstance(self._env.action_space, gym.spaces.Box):
                space = self._env.action_space
                action = np.clip(np.asarray(action, dtype=space.dtype).reshape(space.shape), space.low, space.high)
            else:
                action = int(np.asarray(action).reshape(()))
            obs, reward, terminated, truncated, _ = self._env.step(action)
            total += float(reward)
            done = terminated or truncated
        return total

    def _check_stop(self, env_steps: int) -> bool:
        if self.best_return >= self.spec.stop_return:
            self.end_reason = 'threshold'
        elif env_steps >= self.max_env_steps:
            self.end_reason = 'env_step_budget'
        elif self.wall_s() >= self.max_wall_s:
            self.end_reason = 'wall_cap'
        return self.end_reason is not None

    def finish(self, env_steps: int, act: Optional[GreedyAct] = None) -> None:
        """Log the end of the run (evaluating once more if an evaluation is due)."""
        if act is not None and self.due(env_steps) and self.end_reason != 'threshold':
            self.evaluate(env_steps, act)
        self._write(event='end', reason=self.end_reason or 'framework_stopped', env_steps=int(env_steps),
                    wall_s=round(self.wall_s(), 4), eval_s=round(self._eval_s, 4),
                    best_return=float(self.best_return))
        self._file.close()
        self._env.close()

    def _write(self, **record: Any) -> None:
        self._file.write(json.dumps(record) + '\n')
        self._file.flush()
