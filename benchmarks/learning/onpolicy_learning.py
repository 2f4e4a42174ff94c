"""Env steps and wall seconds to threshold for the on-policy dizoo entries (A2C, PG, PPO).

Each run calls an entry script's `main(seed=...)` exactly as a user runs it: its own
interaction_evaluator (greedy episodes every `eval_freq` train iterations) decides when the
threshold is reached. Wall time includes config and env set-up.

    python benchmarks/learning/onpolicy_learning.py [--seeds 0 1 2] [--only ppo_cartpole_v1_to_475 ...]
        [--with-lunarlander]
Writes benchmarks/results/onpolicy_learning.json (rows of runs this invocation made replace those of the
same name; others are kept, so a long LunarLander run can be added on its own).
"""
import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from typing import Callable, Dict, Tuple

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from machine_load import CpuTimes  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402

OUT = 'benchmarks/results/onpolicy_learning.json'


def _cases() -> Dict[str, Tuple[Callable, dict, float]]:
    """name -> (entry main, its keyword arguments, the threshold the entry stops at)."""
    from dizoo.box2d.lunarlander.entry import lunarlander_ppo_main
    from dizoo.classic_control.cartpole.entry import cartpole_a2c_main, cartpole_pg_main, cartpole_ppo_main
    from dizoo.classic_control.pendulum.entry import pendulum_ppo_main
    return {
        'a2c_cartpole_v1_to_195': (cartpole_a2c_main.main, dict(stop_value=195), 195),
        'pg_cartpole_v1_to_195': (cartpole_pg_main.main, dict(stop_value=195), 195),
        'ppo_cartpole_v1_to_475_entry': (cartpole_ppo_main.main, dict(), 475),
        'ppo_continuous_pendulum_to_-250': (pendulum_ppo_main.main, dict(), -250),
        'ppo_lunarlander_v3_discrete_to_200': (lunarlander_ppo_main.main, dict(continuous=False), 200),
        'ppo_lunarlander_v3_continuous_to_200': (lunarlander_ppo_main.main, dict(continuous=True), 200),
    }


def run_case(main: Callable, kwargs: dict, threshold: float, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp, CpuTimes() as cpu:
        t0 = time.perf_counter()
        ctx = main(seed=seed, exp_name=os.path.join(tmp, 'run'), **kwargs)
        wall = time.perf_counter() - t0
    value = float(ctx.eval_value)
    return dict(seed=seed, env_steps=int(ctx.env_step), eval=round(value, 1), reached=value >= threshold,
                wall_s=round(wall, 2), cpu=cpu.fractions)


def main() -> None:
    cases = _cases()
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    parser.add_argument('--only', nargs='+', choices=sorted(cases), help='run these rows only')
    parser.add_argument('--with-lunarlander', action='store_true', help='also the LunarLander rows (~10 min each)')
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()
    names = args.only or [n for n in cases if args.with_lunarlander or 'lunarlander' not in n]

    result = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            result = json.load(f)
    result['note'] = ('Entry-script runs: each entry main(seed=...) with its own interaction_evaluator; '
                      'wall_s includes config and env set-up; cpu = busy/idle/steal fractions of the machine '
                      'during the run (a busy machine inflates wall_s). Written by benchmarks/learning/onpolicy_learning.py.')
    for name in names:
        main_fn, kwargs, threshold = cases[name]
        runs = [run_case(main_fn, kwargs, threshold, seed) for seed in args.seeds]
        for r in runs:
            print(name, r, flush=True)
        result[name] = dict(date=datetime.now(timezone.utc).isoformat(timespec='seconds'), threshold=threshold,
                            all_reached=all(r['reached'] for r in runs), runs=runs)
        atomic_write_json(args.out, result)  # after every row: a long run interrupted keeps what it measured


if __name__ == '__main__':
    main()
