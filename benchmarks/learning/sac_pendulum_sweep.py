"""The sweep behind dizoo's SAC Pendulum config: each row overrides the shipped config
(dizoo/classic_control/pendulum/config/pendulum_sac_config.py) and runs it through
`pendulum_offpolicy.train` to an eval return of -200 (10 greedy episodes every 1,000 updates),
recording the env steps at which -250 and -200 were first reached.

The rows ask how long the random warm-up should be (`random_collect_size`, 1,000 shipped; SB3
starts learning after 100 steps), at our network sizes and at SB3's (RL Zoo's: 256 hidden units,
the comparison's `ours_peer_net` column).

    python benchmarks/learning/sac_pendulum_sweep.py [--seeds 20 21 ...] [--rows shipped warmup_100 ...]
Writes benchmarks/results/sac_pendulum_sweep.json (rows this invocation ran replace those of the
same name) with `tuning_seeds`: every seed any row ran, which the comparison harness then refuses
to report on (benchmarks/compare/seed_guard.py).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
from datetime import datetime, timezone

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from machine_load import CpuTimes  # noqa: E402

from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import first_reaching, train  # noqa: E402

OUT = 'benchmarks/results/sac_pendulum_sweep.json'
THRESHOLDS = (-250.0, -200.0)
SB3_NET = {'model': {'actor_head_hidden_size': 256, 'critic_head_hidden_size': 256}}
ROWS = {
    'shipped': {},
    'warmup_100': {'policy': {'random_collect_size': 100}},
    'warmup_300': {'policy': {'random_collect_size': 300}},
    'warmup_500': {'policy': {'random_collect_size': 500}},
    'sb3_net': {'policy': SB3_NET},
    'sb3_net_warmup_100': {'policy': {**SB3_NET, 'random_collect_size': 100}},
    'sb3_net_warmup_300': {'policy': {**SB3_NET, 'random_collect_size': 300}},
    'sb3_net_warmup_500': {'policy': {**SB3_NET, 'random_collect_size': 500}},
}


def run_seed(seed: int, max_env_step: int, overrides: dict) -> dict:
    history = train('sac', seed, max_env_step, stop_value=max(THRESHOLDS), overrides=overrides,
                    exp_name=tempfile.mkdtemp(prefix='sac_pendulum_sweep_'), save_cfg=False)
    run = {'seed': seed}
    for threshold in THRESHOLDS:
        hit = first_reaching(history, threshold)
        run[str(threshold)] = None if hit is None else {'env_steps': int(hit['env_step']),
                                                       'wall_s': round(hit['wall_s'], 2)}
    return run


def summarise(runs: list) -> dict:
    out = {}
    for threshold in map(str, THRESHOLDS):
        hits = [r[threshold] for r in runs]
        every = all(h is not None for h in hits)
        out[threshold] = dict(reached=sum(h is not None for h in hits), seeds=len(hits),
                              median_env_steps=statistics.median(h['env_steps'] for h in hits) if every else None,
                              median_wall_s=statistics.median(h['wall_s'] for h in hits) if every else None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seeds', type=int, nargs='+', default=list(range(20, 30)))
    parser.add_argument('--rows', nargs='+', choices=sorted(ROWS), default=list(ROWS))
    parser.add_argument('--max-env-step', type=int, default=20_000)
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()

    result = {'rows': {}}
    if os.path.exists(args.out):
        with open(args.out) as f:
            result = json.load(f)
    result['note'] = ('SAC Pendulum-v1 to -250 and -200 within 20k env steps, overrides of the shipped config; '
                      'written by benchmarks/learning/sac_pendulum_sweep.py. Env steps decide between rows; '
                      'wall_s depends on machine load (cpu: busy/idle/steal fractions during the row).')
    for name in args.rows:
        with CpuTimes() as cpu:
            runs = [run_seed(seed, args.max_env_step, ROWS[name]) for seed in args.seeds]
        row = dict(overrides=ROWS[name], date=datetime.now(timezone.utc).isoformat(timespec='seconds'),
                   cpu=cpu.fractions, runs=runs, summary=summarise(runs))
        print(name, json.dumps(row['summary']), flush=True)
        result['rows'][name] = row
        result['tuning_seeds'] = sorted({r['seed'] for row in result['rows'].values() for r in row['runs']})
        atomic_write_json(args.out, result)


if __name__ == '__main__':
    main()
