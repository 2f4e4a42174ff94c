"""Soak: 1M env steps of DQN on CartPole-v1 through the `ding train` pipeline, sampling RSS.

    python benchmarks/throughput/soak.py                                   # the tuned config's buffer (100k)
    python benchmarks/throughput/soak.py --buffer-size 1000000 --env-steps 2000000 --tag 1m
                                                # a 1M-transition buffer: 1M steps after it fills
    python benchmarks/throughput/soak.py --from-json benchmarks/results/soak.json   # redo the summary
    python benchmarks/throughput/soak.py --env-steps 20000 --tag smoke     # quick check

Runs `ding/config/tuned/dqn_cartpole-v1.yaml` with the same pipeline as `ding train`
(RunStateSaver, progress files, tensorboard, CkptSaver, ...), with `stop_value` out of reach
so the run goes the whole budget, and cheap evaluation (every `--eval-every` env steps, 5
episodes). A thread samples the process RSS (psutil) every `--sample-s` seconds with the
env_step, train_iter and buffer fill at that moment.

The bar (bars.md): RSS flat within 5% once the buffer is full. `growth_pct` compares the last
sample with the first one taken after the buffer filled; `spread_pct` is (max - min) / first
over all samples after the fill (checkpoint writes show up there as short peaks).

Writes benchmarks/results/soak[_TAG].json and a short soak[_TAG].md beside it.
"""
import argparse
import gc
import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List

import psutil

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from easydict import EasyDict  # noqa: E402

from ding.utils.dicts import deep_merge  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')
MB = 2**20
NOTES = '<!-- notes: kept when the summary is rewritten -->'


class Sampler(threading.Thread):
    """Every `period` s: RSS, env_step, train_iter, buffer fill; gc object count every `gc_every` samples."""

    def __init__(self, buffer: Any, period: float, gc_every: int = 10) -> None:
        super().__init__(daemon=True)
        self.buffer, self.period, self.gc_every = buffer, period, gc_every
        self.proc = psutil.Process()
        self.samples: List[Dict[str, Any]] = []
        self.stop = threading.Event()
        self.start_t = time.perf_counter()

    def sample(self) -> Dict[str, Any]:
        from ding.framework import task
        ctx = task.ctx
        row = {'t_s': round(time.perf_counter() - self.start_t, 2), 'env_step': int(getattr(ctx, 'env_step', 0)),
               'train_iter': int(getattr(ctx, 'train_iter', 0)), 'buffer_count': int(self.buffer.count()),
               'rss_mb': round(self.proc.memory_info().rss / MB, 1)}
        if len(self.samples) % self.gc_every == 0:
            row['gc_objects'] = len(gc.get_objects())
        self.samples.append(row)
        return row

    def run(self) -> None:
        while not self.stop.wait(self.period):
            row = self.sample()
            if len(self.samples) % 15 == 0:
                print(json.dumps(row), flush=True)


def analyse(samples: List[Dict[str, Any]], size: int, wall_s: float, env_steps: int) -> Dict[str, Any]:
    full = [s for s in samples if s['buffer_count'] >= size]
    out: Dict[str, Any] = {'samples': len(samples), 'wall_s': round(wall_s, 1),
                           'env_steps_per_s': round(env_steps / wall_s, 1)}
    out['rss_start_mb'] = samples[0]['rss_mb'] if samples else None
    if not full:
        out['buffer_full'] = False
        return out
    first, last = full[0], full[-1]
    rss = [s['rss_mb'] for s in full]
    out.update(
        buffer_full=True, buffer_full_at_env_step=first['env_step'], rss_at_buffer_full_mb=first['rss_mb'],
        rss_end_mb=last['rss_mb'], rss_min_after_full_mb=min(rss), rss_max_after_full_mb=max(rss),
        growth_pct=round(100 * (last['rss_mb'] - first['rss_mb']) / first['rss_mb'], 2),
        spread_pct=round(100 * (max(rss) - min(rss)) / first['rss_mb'], 2),
        env_steps_after_full=last['env_step'] - first['env_step'])
    # The steady level: median of the first and last tenth of the post-fill samples, less sensitive to a
    # checkpoint peak landing on either end.
    k = max(1, len(full) // 10)
    head, tail = sorted(rss[:k])[k // 2], sorted(rss[-k:])[k // 2]
    out.update(rss_median_first_tenth_mb=head, rss_median_last_tenth_mb=tail,
               median_growth_pct=round(100 * (tail - head) / head, 2))
    # Trend: least-squares slope of RSS against env_step after the fill, in MB per 100k env steps.
    xs = [s['env_step'] for s in full]
    mx, my = sum(xs) / len(xs), sum(rss) / len(rss)
    var = sum((x - mx)**2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, rss)) / var if var else 0.0
    out['slope_mb_per_100k_steps'] = round(slope * 1e5, 3)
    out['flat_within_5pct'] = abs(out['growth_pct']) <= 5 and abs(out['median_growth_pct']) <= 5
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--env-steps', type=int, default=1_000_000)
    parser.add_argument('--buffer-size', type=int, default=None, help="default: the tuned config's (100k)")
    parser.add_argument('--eval-every', type=int, default=100_000, help='env steps between evaluations')
    parser.add_argument('--checkpoint-freq', type=int, default=100_000, help='env steps between run_state.pt')
    parser.add_argument('--sample-s', type=float, default=2.0)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--tag', default='', help='suffix of the result files (soak_TAG.json)')
    parser.add_argument('--run-dir', default=None, help='run directory (default: a temp dir, removed after)')
    parser.add_argument('--from-json', default=None, help='redo the analysis and the .md of a saved result')
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            result = json.load(f)
        result.update(analyse(result['samples_table'], result['replay_buffer_size'], result['wall_s'],
                              result['env_steps']))
        write(result, os.path.splitext(os.path.basename(args.from_json))[0])
        return

    import torch
    from ding.config import compile_config
    from ding.entry.catalog import find_tuned
    from ding.entry.pipeline import RunOptions, build_parts, run_training

    tuned = find_tuned('dqn', 'CartPole-v1')
    main_cfg, create_cfg = tuned.load()
    n_sample = main_cfg.policy.collect.n_sample
    updates = main_cfg.policy.learn.update_per_collect
    overrides = {
        'env': {'stop_value': 1e9, 'evaluator_env_num': 5, 'n_evaluator_episode': 5},
        # eval_freq counts train iterations: `updates` per `n_sample` env steps.
        'policy': {'eval': {'evaluator': {'eval_freq': max(1, args.eval_every * updates // n_sample)}}},
    }
    if args.buffer_size:
        overrides['policy']['other'] = {'replay_buffer': {'replay_buffer_size': args.buffer_size}}
    main_cfg = EasyDict(deep_merge(main_cfg, overrides))
    tmp = None
    if args.run_dir is None:
        tmp = tempfile.mkdtemp(prefix='ding_soak_')
        args.run_dir = os.path.join(tmp, 'soak')
    main_cfg.exp_name = args.run_dir
    cfg = compile_config(main_cfg, create_cfg=create_cfg, auto=True, seed=args.seed)
    size = cfg.policy.other.replay_buffer.replay_buffer_size

    parts = build_parts(cfg)
    sampler = Sampler(parts.buffer, args.sample_s)
    sampler.sample()
    sampler.start()
    options = RunOptions(max_env_step=args.env_steps, checkpoint_freq=args.checkpoint_freq, progress=False)
    start = time.perf_counter()
    try:
        ctx = run_training(cfg, parts, options)
    finally:
        parts.close()
    wall = time.perf_counter() - start
    sampler.stop.set()
    sampler.join()
    sampler.sample()
    gc.collect()
    sampler.sample()

    result = {
        'command': 'python benchmarks/throughput/soak.py ' + ' '.join(sys.argv[1:]), 'config': tuned.path, 'seed': args.seed, 'env_steps': int(ctx.env_step), 'train_iter': int(ctx.train_iter),
        'episodes': int(ctx.env_episode), 'replay_buffer_size': size, 'eval_every_env_steps': args.eval_every,
        'checkpoint_freq': args.checkpoint_freq, 'last_eval_return': float(ctx.last_eval_value),
        'peak_rss_mb': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        'torch': torch.__version__, 'cpu_count': os.cpu_count(),
        'malloc_env': {k: v for k, v in os.environ.items() if k.startswith('MALLOC_')},
        'load_avg_end': [round(x, 2) for x in os.getloadavg()],
    }
    result.update(analyse(sampler.samples, size, wall, int(ctx.env_step)))
    result['run_dir_mb'] = round(sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(args.run_dir)
                                     for f in fs) / MB, 1)
    result['samples_table'] = sampler.samples
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)

    write(result, 'soak' + (f'_{args.tag}' if args.tag else ''))


def write(result: Dict[str, Any], name: str) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, name + '.json'), 'w') as f:
        json.dump(result, f, indent=1)
    md = os.path.join(RESULTS, name + '.md')
    notes = ''  # hand-written findings below NOTES in an earlier summary are kept
    if os.path.isfile(md):
        with open(md) as f:
            old = f.read()
        notes = old[old.index(NOTES):] if NOTES in old else ''
    with open(md, 'w') as f:
        f.write(summary_md(result, name) + ('\n' + notes if notes else ''))
    print(json.dumps({k: v for k, v in result.items() if k != 'samples_table'}, indent=1))


def summary_md(r: Dict[str, Any], name: str) -> str:
    lines = [f'# Soak: DQN CartPole-v1, {r["env_steps"]:,} env steps, buffer {r["replay_buffer_size"]:,}', '',
             f'`{r.get("command", "python benchmarks/throughput/soak.py")}` ({name}.json); the `ding train` pipeline of `{os.path.basename(r["config"])}` '
             f'with stop_value out of reach, evaluation every {r["eval_every_env_steps"]:,} env steps, '
             f'run_state.pt every {r["checkpoint_freq"]:,}; RSS sampled every few seconds (psutil)'
             + (f'; environment: {", ".join(f"{k}={v}" for k, v in r["malloc_env"].items())}'
                if r.get('malloc_env') else '') + '.', '',
             '| figure | value |', '|---|---|',
             f'| wall time | {r["wall_s"]:.0f} s ({r["env_steps_per_s"]:,.0f} env steps/s, 2 shared cores) |',
             f'| RSS at start | {r["rss_start_mb"]:.0f} MB |']
    if r.get('buffer_full'):
        lines += [
            f'| buffer full at | env_step {r["buffer_full_at_env_step"]:,} |',
            f'| RSS at buffer full | {r["rss_at_buffer_full_mb"]:.1f} MB |',
            f'| RSS at the end | {r["rss_end_mb"]:.1f} MB |',
            f'| growth after the fill (end vs. fill) | {r["growth_pct"]:+.2f}% over {r["env_steps_after_full"]:,} '
            f'env steps |',
            f'| growth, median of first vs. last tenth | {r["median_growth_pct"]:+.2f}% |',
            f'| min / max after the fill | {r["rss_min_after_full_mb"]:.1f} / {r["rss_max_after_full_mb"]:.1f} MB '
            f'(spread {r["spread_pct"]:.2f}%) |',
            f'| peak RSS (ru_maxrss) | {r["peak_rss_mb"]:.1f} MB |',
            f'| flat within 5% | {"yes" if r["flat_within_5pct"] else "NO"} |']
    else:
        lines.append('| buffer full | never (run shorter than the buffer) |')
    lines += ['', 'env_step, buffer fill and RSS every ~10% of the run:', '', '| env_step | buffer | RSS MB |',
              '|---:|---:|---:|']
    table = r['samples_table']
    step = max(1, len(table) // 10)
    for s in table[::step] + ([table[-1]] if (len(table) - 1) % step else []):
        lines.append(f'| {s["env_step"]:,} | {s["buffer_count"]:,} | {s["rss_mb"]:.1f} |')
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    main()
