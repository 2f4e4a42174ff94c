"""Side-by-side comparison of ding with Stable-Baselines3, Tianshou and DI-engine (bars.md protocol).

Each (benchmark, seed, framework) is a separate process running that framework's runner in
its own environment (ours: this python; peers: a venv each, created on first use), one after
another, writing one JSON line per evaluation. The logs are then aggregated into
benchmarks/results/compare.json and compare.md (time and env steps to each threshold, median
over seeds).

    python benchmarks/compare/run.py                    # full: all benchmarks, frameworks, seeds 1000-1002
    python benchmarks/compare/run.py --quick            # smoke check: seed 1000, 2k env steps
    python benchmarks/compare/run.py --benchmarks dqn_cartpole_v1 --frameworks ours sb3
    python benchmarks/compare/run.py --aggregate-only   # rebuild the tables from existing logs
    python benchmarks/compare/run.py --benchmarks ppo_cartpole_v1 --update   # one row's sitting again,
                                                        # the other rows kept as they are (each row names its sitting)
    python benchmarks/compare/run.py --tuning --seeds 0 1 2   # tuning run: compare_tuning.*, never published

A reported table refuses seeds below 1000 and any seed a recorded sweep tuned on (seed_guard.py).
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / 'runners')]

from aggregate import OURS_ASYNC, OURS_PEER_NET, read_log, summarize_benchmark  # noqa: E402
from benchmark_specs import (BENCHMARKS, DEFAULT_BENCHMARKS, EVAL_EPISODES, EVAL_EVERY_ENV_STEPS,  # noqa: E402
                             QUICK_ENV_STEP_BUDGET, QUICK_WALL_CAP_S, BenchmarkSpec)
from ours_runner import PEER_NETWORK  # noqa: E402
from report_table import render_markdown, with_readme_summary  # noqa: E402
from seed_guard import FIRST_REPORTING_SEED, SWEEP_RESULTS, SeedRefused, check_reporting_seeds  # noqa: E402
from venvs import DEFAULT_VENV_ROOT, ensure_venv  # noqa: E402

from ding.utils.fileio import atomic_write_text  # noqa: E402

# OURS_ASYNC: our runner with async_mode=True, so that sync and async alternate seed by seed;
# OURS_PEER_NET: our runner with SB3's network sizes, on the benchmarks where our config's differ
FRAMEWORKS = ('ours', OURS_ASYNC, OURS_PEER_NET, 'sb3', 'tianshou', 'di_engine')
REPO_ROOT = HERE.parent.parent
# Seconds a runner may take beyond its wall cap (imports, setup, the last training chunk)
# before the harness kills it.
STARTUP_MARGIN_S = 300.0


def runner_command(python: str, framework: str, bench: str, seed: int, out: Path, max_env_steps: int,
                   max_wall_s: float, torch_threads: int, extra: Sequence[str] = ()) -> List[str]:
    return [python, str(HERE / 'runners' / f'{runner_of(framework)}_runner.py'), '--benchmark', bench,
            '--seed', str(seed), '--out', str(out), '--max-env-steps', str(max_env_steps),
            '--max-wall-s', str(max_wall_s), '--torch-threads', str(torch_threads), *extra]


def run_process(cmd: List[str], console_log: Path, timeout_s: float, env: Dict[str, str]) -> Dict[str, Any]:
    """Run one runner in its own process group; kill the group if it outlives timeout_s."""
    t0 = time.perf_counter()
    with open(console_log, 'w') as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=REPO_ROOT, env=env,
                                start_new_session=True)
        try:
            rc, timed_out = proc.wait(timeout=timeout_s), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc, timed_out = proc.wait(), True
    return {'returncode': rc, 'timed_out': timed_out, 'elapsed_s': round(time.perf_counter() - t0, 2)}


def runner_of(framework: str) -> str:
    return 'ours' if framework in (OURS_ASYNC, OURS_PEER_NET) else framework


def runner_env(framework: str) -> Dict[str, str]:
    env = dict(os.environ)
    if runner_of(framework) != 'ours':
        env.pop('PYTHONPATH', None)  # a peer venv must not see our package
    return env


def log_stem(logs_dir: Path, bench: str, framework: str, seed: int) -> Path:
    return logs_dir / bench / f'{framework}_seed{seed}'


def run_all(args: argparse.Namespace, logs_dir: Path) -> None:
    pythons = {f: sys.executable if runner_of(f) == 'ours' else str(ensure_venv(args.venv_root, f))
               for f in args.frameworks}
    for bench in args.benchmarks:
        spec = BENCHMARKS[bench]
        budget, cap = budget_and_cap(spec, args.quick)
        for seed in args.seeds:
            for framework in frameworks_of(spec, args.frameworks):  # interleaved: drifting load hits all alike
                stem = log_stem(logs_dir, bench, framework, seed)
                stem.parent.mkdir(parents=True, exist_ok=True)
                use_async = framework == OURS_ASYNC or (framework == 'ours' and args.ours_async)
                extra = ['--async-mode'] if use_async else []
                extra += ['--whole-budget'] if spec.whole_budget else []
                if framework == OURS_PEER_NET:
                    extra += ['--override', json.dumps({'policy': {'model': PEER_NETWORK[spec.algo]}})]
                cmd = runner_command(pythons[framework], framework, bench, seed, stem.with_suffix('.jsonl'), budget,
                                     cap, args.torch_threads, extra)
                print(f'[compare] {bench} seed {seed} {framework} ...', flush=True)
                status = run_process(cmd, stem.with_suffix('.console.log'), cap + STARTUP_MARGIN_S,
                                     runner_env(framework))
                stem.with_suffix('.status.json').write_text(json.dumps(status) + '\n')
                run = read_log(stem.with_suffix('.jsonl'))
                best = max((e['mean_return'] for e in run['evals']), default=None)
                print(f"[compare]   rc={status['returncode']} {status['elapsed_s']} s, "
                      f"{len(run['evals'])} evals, best {best}, end {(run['end'] or {}).get('reason')}", flush=True)


def frameworks_of(spec: BenchmarkSpec, asked: Sequence[str]) -> List[str]:
    """The asked frameworks that have a runner for this benchmark's algorithm (the peer-network
    column only where our config's network differs from SB3's)."""
    return [f for f in asked
            if runner_of(f) in spec.frameworks and (f != OURS_PEER_NET or spec.algo in PEER_NETWORK)]


def budget_and_cap(spec: BenchmarkSpec, quick: bool) -> tuple:
    if quick:
        return min(QUICK_ENV_STEP_BUDGET, spec.env_step_budget), QUICK_WALL_CAP_S
    return spec.env_step_budget, spec.wall_cap_s


def load_runs(logs_dir: Path, bench: str, frameworks: Sequence[str], seeds: Sequence[int]) -> Dict[str, Dict]:
    runs: Dict[str, Dict[int, Dict[str, Any]]] = {}
    for framework in frameworks:
        for seed in seeds:
            stem = log_stem(logs_dir, bench, framework, seed)
            if not stem.with_suffix('.jsonl').exists():
                continue
            run = read_log(stem.with_suffix('.jsonl'))
            status = stem.with_suffix('.status.json')
            run['returncode'] = json.loads(status.read_text())['returncode'] if status.exists() else None
            runs.setdefault(framework, {})[seed] = run
    return runs


def build_results(args: argparse.Namespace, logs_dir: Path) -> Dict[str, Any]:
    benchmarks = {}
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')
    for bench in args.benchmarks:
        spec = BENCHMARKS[bench]
        budget, cap = budget_and_cap(spec, args.quick)
        runs = load_runs(logs_dir, bench, frameworks_of(spec, args.frameworks), args.seeds)
        benchmarks[bench] = dict(algo=spec.algo, env_id=spec.env_id, thresholds=list(spec.thresholds),
                                 env_step_budget=budget, wall_cap_s=cap, eval_every_env_steps=spec.eval_every,
                                 whole_budget=spec.whole_budget, sitting=now,
                                 frameworks=summarize_benchmark(spec.thresholds, runs, spec.whole_budget))
    return dict(generated_at=now, command=reproduce_command(args), quick=args.quick, tuning=args.tuning,
                seeds=list(args.seeds),
                frameworks=list(args.frameworks),
                seeds_held_out_from=[] if args.tuning else [relative_to_repo(p) for p in args.sweeps],
                protocol=dict(eval_every_env_steps=EVAL_EVERY_ENV_STEPS, eval_episodes=EVAL_EPISODES,
                              greedy=True, separate_eval_env=True, wall_time='from just before training',
                              torch_threads=args.torch_threads, ours_async_mode=args.ours_async),
                benchmarks=benchmarks)


def published_table(args: argparse.Namespace) -> Dict[str, Any]:
    """The table `--update` adds to, checked before anything runs: its seeds and frameworks must be
    these, so that every row still compares the same runs."""
    path = args.results_dir / f'{results_stem(args.quick, args.results_name, args.tuning)}.json'
    if not path.exists():
        raise SystemExit(f'[compare] --update: {path} does not exist; run the whole table first')
    published = json.loads(path.read_text())
    asked = dict(seeds=list(args.seeds), frameworks=list(args.frameworks), quick=args.quick, tuning=args.tuning)
    for key, value in asked.items():
        if published.get(key) != value:
            raise SystemExit(f'[compare] --update: {key} {value} differ from the table\'s '
                             f'{published.get(key)} ({path}); use the same, or run the whole table')
    return published


def merged_with_published(results: Dict[str, Any], published: Dict[str, Any],
                          args: argparse.Namespace) -> Dict[str, Any]:
    """`results` (some benchmarks, measured now) with the table's other benchmarks kept as they
    were, each with the date of its own sitting."""
    benchmarks = {name: dict(bench, sitting=bench.get('sitting', published['generated_at']))
                  for name, bench in published['benchmarks'].items()}
    benchmarks.update(results['benchmarks'])
    whole_table = argparse.Namespace(**dict(vars(args), benchmarks=list(benchmarks)))
    return dict(results, benchmarks=benchmarks, command=reproduce_command(whole_table))


def reproduce_command(args: argparse.Namespace) -> str:
    """The command that runs this table again from scratch (also when it was rebuilt with
    --aggregate-only, which reads logs a run left)."""
    parts = ['python benchmarks/compare/run.py', '--benchmarks', *args.benchmarks, '--frameworks', *args.frameworks,
             '--seeds', *map(str, args.seeds)]
    parts += ['--quick'] if args.quick else []
    parts += ['--tuning'] if args.tuning else []
    parts += ['--ours-async'] if args.ours_async else []
    parts += ['--results-name', args.results_name] if args.results_name else []
    return ' '.join(parts)


def results_stem(quick: bool, name: str = None, tuning: bool = False) -> str:
    """A tuning run's tables get their own '_tuning' files, so they can never replace a published one."""
    name = name or ('compare_quick' if quick else 'compare')
    return f'{name}_tuning' if tuning else name


def write_results(results: Dict[str, Any], results_dir: Path, quick: bool, name: str = None,
                  tuning: bool = False) -> List[Path]:
    results_dir.mkdir(parents=True, exist_ok=True)
    name = results_stem(quick, name, tuning)
    json_path, md_path = results_dir / f'{name}.json', results_dir / f'{name}.md'
    atomic_write_text(json_path, json.dumps(results, indent=1) + '\n')
    atomic_write_text(md_path, render_markdown(results))
    written = [json_path, md_path]
    if name == 'compare' and results_dir.resolve() == (REPO_ROOT / 'benchmarks' / 'results').resolve():
        readme = REPO_ROOT / 'README.md'  # the published table: the README's summary follows it
        atomic_write_text(readme, with_readme_summary(readme.read_text(), results))
        written.append(readme)
    return written


def relative_to_repo(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def parse_args(argv: Sequence[str] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--benchmarks', nargs='+', default=list(DEFAULT_BENCHMARKS), choices=list(BENCHMARKS))
    p.add_argument('--frameworks', nargs='+', default=list(FRAMEWORKS), choices=FRAMEWORKS)
    p.add_argument('--seeds', nargs='+', type=int, default=None, help='default 1000 1001 1002 (1000 with --quick)')
    p.add_argument('--tuning', action='store_true',
                   help='a tuning run: any seeds allowed, results written to <name>_tuning.json/.md only')
    p.add_argument('--sweeps', nargs='+', type=Path, default=list(SWEEP_RESULTS),
                   help='sweep results files whose tuning_seeds a reported table may not use')
    p.add_argument('--quick', action='store_true', help='smoke check: small budget and cap, seed 1000')
    p.add_argument('--torch-threads', type=int, default=1, help='torch threads in every runner; 0 = default')
    p.add_argument('--ours-async', action='store_true', help='run our pipeline with async_mode=True')
    p.add_argument('--venv-root', type=Path, default=DEFAULT_VENV_ROOT)
    p.add_argument('--logs-dir', type=Path, default=HERE / 'logs')
    p.add_argument('--results-dir', type=Path, default=REPO_ROOT / 'benchmarks' / 'results')
    p.add_argument('--results-name', default=None, help='file stem of the results (default compare / compare_quick)')
    p.add_argument('--aggregate-only', action='store_true', help='do not run; rebuild tables from the logs')
    p.add_argument('--update', action='store_true',
                   help='replace only these benchmarks\' rows in the existing table; the others keep their sitting')
    args = p.parse_args(argv)
    if args.seeds is None:
        args.seeds = [FIRST_REPORTING_SEED] if args.quick else [FIRST_REPORTING_SEED + i for i in range(3)]
    return args


def main(argv: Sequence[str] = None) -> None:
    args = parse_args(argv)
    if not args.tuning:
        try:
            check_reporting_seeds(args.seeds, args.sweeps)
        except SeedRefused as refusal:  # before any run: a refused table costs nothing
            print(f'[compare] refused: {refusal}', file=sys.stderr)
            raise SystemExit(2)
    logs_dir = args.logs_dir / ('quick' if args.quick else 'full')
    published = published_table(args) if args.update else None  # refused before a sitting, not after
    if not args.aggregate_only:
        run_all(args, logs_dir)
    results = build_results(args, logs_dir)
    if published is not None:
        results = merged_with_published(results, published, args)
    for path in write_results(results, args.results_dir, args.quick, args.results_name, args.tuning):
        print(f'[compare] wrote {path}')


if __name__ == '__main__':
    main()
