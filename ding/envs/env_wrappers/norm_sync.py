"""Hand the statistics of in-env normalisers (`obs_norm` / `reward_norm` in `env_wrapper`)
from the collector's envs to the evaluator's, frozen.

Why it is needed: each env holds its own statistics there, so the
evaluator's envs have seen none of the collector's data. `sync_env_normalizers` merges the
collector envs' statistics (exactly: parallel moments) per wrapper position and loads them
into every evaluator env, frozen. Use `env_normalizer_sync(collector_env, evaluator_env)` in
the pipeline before the evaluator. (`NormalizedEnvManager` needs none of this: its one set
of statistics is shared with the evaluator's manager directly.)

Envs in this process are read and written in place; for a manager whose envs live in
workers, the envs' snapshots (`state_dict` / `load_state_dict`) carry the statistics there
and back, which costs a pickle of each env per call.
"""
import pickle
from typing import Any, Callable, Dict, List

import cloudpickle

from ding.envs.env_wrappers.norm_wrappers import _StatsWrapper
from ding.envs.env_wrappers.running_stats import RunningMeanStd


def stats_wrappers(env: Any) -> List[_StatsWrapper]:
    """The normalisers in `env`'s wrapper chain, outermost first."""
    found, layer = [], getattr(env, 'env', env)  # a DingEnvWrapper's `env` is its wrapper chain
    while layer is not None:
        if isinstance(layer, _StatsWrapper):
            found.append(layer)
        layer = getattr(layer, 'env', None) if hasattr(layer, 'step') else None
    return found


def _with_envs(manager: Any, change: Callable[[List[Any]], None], write: bool) -> None:
    """Run `change(envs)` on the manager's env objects: in place, or through its snapshot."""
    envs = getattr(manager, '_envs', None)
    if envs and all(hasattr(e, 'env') for e in envs):
        change(list(envs))
        return
    if manager.closed:
        raise RuntimeError(f'{type(manager).__name__} is closed: launch it before syncing its normalisers')
    state = manager.state_dict()
    envs = [pickle.loads(data) for data in state['envs']]
    change(envs)
    if write:
        state['envs'] = [cloudpickle.dumps(env) for env in envs]
        manager.load_state_dict(state)


def gather_env_normalizers(manager: Any) -> List[RunningMeanStd]:
    """One merged `RunningMeanStd` per normaliser position of the manager's envs."""
    merged: List[RunningMeanStd] = []

    def read(envs: List[Any]) -> None:
        for env in envs:
            for k, wrapper in enumerate(stats_wrappers(env)):
                if k == len(merged):
                    merged.append(RunningMeanStd(wrapper.rms._epsilon, wrapper.rms.shape))
                merged[k].merge(wrapper.rms)

    _with_envs(manager, read, write=False)
    return merged


def load_env_normalizers(manager: Any, stats: List[RunningMeanStd], frozen: bool = True) -> None:
    """Give every env of `manager` copies of `stats` (by normaliser position), frozen."""

    def write(envs: List[Any]) -> None:
        for i, env in enumerate(envs):
            wrappers = stats_wrappers(env)
            if len(wrappers) != len(stats):
                raise ValueError(f'env {i} has {len(wrappers)} normalising wrappers; the statistics are for '
                                 f'{len(stats)}')
            for wrapper, s in zip(wrappers, stats):
                wrapper.rms = s.copy()
                wrapper.frozen = frozen

    _with_envs(manager, write, write=True)


def sync_env_normalizers(collector_env: Any, evaluator_env: Any) -> Dict[str, Any]:
    stats = gather_env_normalizers(collector_env)
    if stats:
        load_env_normalizers(evaluator_env, stats)
    return {'normalizers': len(stats), 'counts': [s.count for s in stats]}


def env_normalizer_sync(collector_env: Any, evaluator_env: Any, every_step: int = 1) -> Callable:
    """A pipeline step (`task.use`, before the evaluator) syncing the evaluator's in-env
    normalisers from the collector's every `every_step` steps (raise it for envs in workers:
    each sync pickles their envs), once both managers are up."""
    last = [None]

    def env_normalizer_sync(ctx: Any) -> None:
        step = getattr(ctx, 'total_step', 0)
        if last[0] is not None and step - last[0] < every_step:
            return
        if not getattr(evaluator_env, 'closed', True) and not getattr(collector_env, 'closed', True):
            sync_env_normalizers(collector_env, evaluator_env)
            last[0] = step

    return env_normalizer_sync
