"""Which seeds a published comparison may report on (issue 37's protocol, README "Fair numbers").

Configs are tuned on seeds 0-99 and reported on seeds 1000 and up, so a published time to
threshold never comes from a seed its config was chosen on. Each sweep script records the seeds
it ran in its results JSON as `tuning_seeds`; a reported table may use none of them.
Standard library only.
"""
import argparse
import json
from pathlib import Path
from typing import Iterable, List, Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]
FIRST_REPORTING_SEED = 1000
# The sweeps that chose shipped configs (benchmarks/learning/dqn_cartpole_sweep.py, ppo_cartpole_sweep.py,
# tune_dqn_cartpole.py). A new sweep script adds its results file here and writes `tuning_seeds`.
SWEEP_RESULTS = tuple(REPO_ROOT / 'benchmarks' / 'results' / f'{name}.json'
                      for name in ('dqn_cartpole_sweep', 'ppo_cartpole_sweep', 'tune_dqn_cartpole', 'sac_pendulum_sweep'))


class SeedRefused(ValueError):
    """A seed that a reported table may not use; the message is the one line the harness prints."""


def tuning_seeds_of(path: Path) -> List[int]:
    """The seeds a sweep's results file says it tuned on."""
    path = Path(path)
    if not path.is_file():
        raise SeedRefused(f'sweep file {path} not found: cannot check that the reported seeds are held out')
    data = json.loads(path.read_text())
    if 'tuning_seeds' not in data:
        # Refused rather than assumed empty: an unrecorded sweep is exactly the leak this guards against.
        raise SeedRefused(f'sweep file {path} records no tuning_seeds: rerun its sweep script or add the field')
    return [int(s) for s in data['tuning_seeds']]


def check_reporting_seeds(seeds: Iterable[int], sweeps: Sequence[Path] = SWEEP_RESULTS) -> None:
    """Raise SeedRefused for the first seed a published table may not use."""
    seeds = list(seeds)
    for seed in seeds:
        if seed < FIRST_REPORTING_SEED:
            raise SeedRefused(f'seed {seed} is below {FIRST_REPORTING_SEED}: seeds 0-99 are for tuning, reported '
                              f'tables use {FIRST_REPORTING_SEED}+ (pass --tuning for a tuning run)')
    for path in sweeps:
        used = set(tuning_seeds_of(path))
        for seed in seeds:
            if seed in used:
                raise SeedRefused(f'seed {seed} was tuned on by the sweep recorded in {path}: '
                                  'report on seeds no sweep used (or pass --tuning)')


def refuse_before_running(parser: argparse.ArgumentParser, seeds: Iterable[int], tuning: bool) -> None:
    """A driver's first step: unless `tuning`, stop with the parser's one-line error (exit status 2)
    naming the first seed a published table may not use, before anything is made or trained."""
    if tuning:
        return
    try:
        check_reporting_seeds(seeds)
    except SeedRefused as refusal:
        parser.error(str(refusal))
