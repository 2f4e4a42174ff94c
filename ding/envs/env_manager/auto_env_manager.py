"""`env_manager.type='auto'`: measure each applicable manager on the envs at hand, use the
fastest.

Why: which manager wins depends on the env. CartPole costs ~10 us per step, so worker
processes only add IPC and the serial manager wins by 3x; an env costing 0.5 ms of CPU per
step is the opposite. Guessing from the env name is fragile; a few hundred steps of each
candidate at start-up (about a second) settle it, and the log says what was measured.

`build_auto_env_manager(env_fn, cfg)` (also `AutoEnvManager`) returns the
chosen manager itself (closed, as a newly built manager is; the probing does not consume any
seeded episode), with `auto_report` attached. Serial steps cheaper than
`auto_serial_enough_us` settle it without starting a worker process. Otherwise the
candidates are probed side by side, in interleaved chunks, and the best chunk of each counts,
so that load from other processes during start-up biases the choice less.
"""
import logging
import os
import time
from typing import Any, Callable, Dict, Mapping, Optional, Sequence

import numpy as np
from easydict import EasyDict

from ding.utils.dicts import deep_merge
from ding.utils.registry import ENV_MANAGER_REGISTRY

logger = logging.getLogger(__name__)


AUTO_CONFIG = dict(
    type='auto',
    auto_candidates=('base_v2', 'subprocess', 'gym_vector'),
    auto_probe_steps=240,  # timed steps per candidate, after `auto_warmup_steps`
    auto_probe_rounds=4,  # the timed steps come in this many interleaved chunks; the best chunk counts
    auto_warmup_steps=20,
    # Serial env steps cheaper than this (us per env step) keep the serial manager without
    # starting any worker process: a worker round trip costs ~50 us per env step here, and
    # split over 2 cores a process manager cannot win below twice that.
    auto_serial_enough_us=100.0,
)


def auto_default_config() -> EasyDict:
    """The keys of every candidate manager, so one config can carry any of them."""
    cfg = EasyDict()
    for name in AUTO_CONFIG['auto_candidates']:
        cfg = deep_merge(cfg, ENV_MANAGER_REGISTRY.lookup(name).default_config())
    cfg = deep_merge(cfg, AUTO_CONFIG)
    cfg.cfg_type = 'AutoEnvManagerDict'
    return cfg


def build_auto_env_manager(env_fn: Sequence[Callable[[], Any]], cfg: Optional[Mapping] = None) -> Any:
    """The fastest candidate manager for these envs, closed as a newly built one is, with
    `auto_report` attached. The serial manager is timed first; worker processes are started
    only when its steps are dear enough for them to pay."""
    cfg = deep_merge(auto_default_config(), cfg or {})
    candidates = applicable_candidates(cfg.auto_candidates, len(env_fn))
    managers: Dict[str, Any] = {}
    skipped: Dict[str, str] = {}
    steps, warmup, rounds = int(cfg.auto_probe_steps), int(cfg.auto_warmup_steps), int(cfg.auto_probe_rounds)
    try:
        rates: Dict[str, float] = {}
        if 'base_v2' in candidates and len(candidates) > 1:
            managers['base_v2'] = start_candidate('base_v2', env_fn, cfg)
            rates = probe_rates(managers, steps // rounds, warmup, 1)
            us_per_step = 1e6 / rates['base_v2']
            if us_per_step < cfg.auto_serial_enough_us:
                skipped = {name: f'serial steps take {us_per_step:.0f} us < auto_serial_enough_us='
                           f'{cfg.auto_serial_enough_us:g}: worker processes cannot pay' for name in candidates[1:]}
                candidates = ['base_v2']
        for name in candidates:
            if name not in managers:
                try:
                    managers[name] = start_candidate(name, env_fn, cfg)
                except Exception as err:  # noqa: BLE001 - a candidate that cannot run is skipped
                    skipped[name] = f'{type(err).__name__}: {err}'
        if not managers:
            raise RuntimeError(f'env_manager auto: no candidate manager could run these envs: {skipped}')
        if len(managers) > 1 or not rates:
            rates = probe_rates(managers, steps, warmup, rounds)
    finally:
        for manager in managers.values():
            manager.close()
    best = max(rates, key=rates.get)
    report = dict(picked=best, env_steps_per_s=rates, skipped=skipped, probe_steps=steps)
    logger.info(explain(report, len(env_fn)))
    managers[best].auto_report = report
    return managers[best]


# A class-style name; a builder, not a class: what it builds is one of the candidates
AutoEnvManager = build_auto_env_manager
AutoEnvManager.default_config = auto_default_config
ENV_MANAGER_REGISTRY.register('auto')(build_auto_env_manager)


def start_candidate(name: str, env_fn: Sequence[Callable[[], Any]], cfg: Mapping) -> Any:
    manager = ENV_MANAGER_REGISTRY.lookup(name)(env_fn, dict(cfg, type=name))
    try:
        manager.seed(0)
        manager.launch()
    except BaseException:
        manager.close()
        raise
    return manager


def applicable_candidates(candidates: Sequence[str], env_num: int) -> list:
    """Process-based managers only pay off with more than one env and more than one core."""
    parallel = env_num > 1 and (os.cpu_count() or 1) > 1
    return [c for c in candidates if parallel or c not in ('subprocess', 'gym_vector')]


def probe_rates(managers: Dict[str, Any], steps: int, warmup: int, rounds: int = 4) -> Dict[str, float]:
    """Env steps per second of each manager over `steps` batched steps of random actions,
    split into `rounds` interleaved chunks (so a burst of load from elsewhere hits all
    candidates alike); the best chunk of each counts."""
    first = next(iter(managers.values()))
    space, n = first.action_space, first.env_num
    space.seed(0)
    actions = [np.stack([space.sample() for _ in range(n)]) for _ in range(8)]
    for manager in managers.values():
        for t in range(warmup):
            manager.step_batch(actions[t % 8])
    chunk = max(1, steps // rounds)
    rates = {name: 0.0 for name in managers}
    for _ in range(rounds):
        for name, manager in managers.items():
            start = time.perf_counter()
            for t in range(chunk):
                manager.step_batch(actions[t % 8])
            rates[name] = max(rates[name], chunk * n / (time.perf_counter() - start))
    return rates


def explain(report: Dict[str, Any], env_num: int) -> str:
    rates = report['env_steps_per_s']
    ranked = sorted(rates, key=rates.get, reverse=True)
    parts = [f'{name} {rates[name]:,.0f}' for name in ranked]
    text = (f"env_manager auto: picked {report['picked']!r} for {env_num} envs: env steps/s over "
            f"{report['probe_steps']} random-action steps: " + ', '.join(parts))
    if len(ranked) > 1:
        text += f' ({rates[ranked[0]] / rates[ranked[1]]:.2f}x the next)'
    if report['skipped']:
        text += f"; skipped {report['skipped']}"
    return text
