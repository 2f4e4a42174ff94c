"""The dizoo MinAtar configs (5 games x dqn, c51, qrdqn) trained on this machine: each config's
evaluation curve within a budget, against a random policy's return on the same game.

    python benchmarks/learning/minatar_configs.py --games breakout asterix --algos dqn c51 --jobs 2

A sweep is one invocation, each row a `--variant TAG=JSON` merged into the configs, e.g.
`--variant lr5e-5='{"policy": {"learn": {"learning_rate": 5e-5}}}' --variant lr1e-4=...`.
`--progress DIR` shows a long run's curve as it goes; SIGTERM to a run's child process ends that
run at its next step and keeps its row.

Each run is its own process with one torch thread (`--jobs` run at once), through the same
pipeline as `ding -m serial -c <config>`; the config's stop value is lifted so that the whole
budget is seen. Writes benchmarks/results/minatar_configs.json (merged with earlier rows of
other games/algos/seeds): per run the evaluations [seconds, env_step, return], the best return
and the first env step and second at which each of the game's reference returns was reached.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Tuple

from dizoo.minatar.envs.minatar_env import GAMES as MINATAR_GAMES, make_minatar

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV_IDS = {game.lower(): f'MinAtar/{game}-v1' for game in MINATAR_GAMES}  # the configs' ids: minimal action sets
GAMES = tuple(ENV_IDS)
ALGOS = ('dqn', 'c51', 'qrdqn')
OUT = os.path.join(ROOT, 'benchmarks', 'results', 'minatar_configs.json')


def random_return(game: str, episodes: int, seed: int) -> float:
    """Mean return of uniform random actions on the game (MinAtar's sticky actions included)."""
    import numpy as np
    env = make_minatar(ENV_IDS[game])
    rng, total = np.random.default_rng(seed), 0.0
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
            total += float(reward)
            done = terminated or truncated
    return total / episodes


def run_one(game: str, algo: str, seed: int, max_env_step: int, wall_cap_s: float,
            override: Dict[str, Any], progress_path: str = '') -> Dict[str, Any]:
    """Train `<game>_<algo>_config` (with `override` merged into it) until the budget or the
    wall cap; returns its curve. With `progress_path`, the curve so far is written there every 25
    evaluations."""
    import importlib

    from ding.utils.dicts import deep_merge
    from ding.utils.fileio import atomic_write_json
    from config_curve import train_with_curve
    module = importlib.import_module(f'dizoo.minatar.config.{game}_{algo}_config')
    main, create = deep_merge(module.main_config, override), module.create_config
    progress = None
    if progress_path:
        def progress(evals: List[List[float]]) -> None:
            atomic_write_json(progress_path, dict(game=game, algo=algo, seed=seed, evals=evals))
    row = train_with_curve(main, create, algo, ENV_IDS[game], seed, max_env_step, wall_cap_s, progress)
    return dict(game=game, algo=algo, seed=seed, **row, override=override,
                config={k: main.policy[k] for k in ('learn', 'nstep', 'discount_factor', 'other') if k in main.policy})


def _child(args: argparse.Namespace, game: str, algo: str, seed: int, tag: str, override: str) -> Dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix='.json', delete=False) as f:
        path = f.name
    cmd = [sys.executable, os.path.abspath(__file__), '--one', game, algo, '--seed', str(seed),
           '--max-env-step', str(args.max_env_step), '--wall-cap', str(args.wall_cap), '--child-out', path,
           '--override', override, '--progress', args.progress, '--tag', tag]
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=args.wall_cap + 600)
    if proc.returncode != 0:
        raise RuntimeError(f'{game} {algo} seed {seed} {tag} failed:\n{proc.stderr[-3000:]}')
    with open(path) as f:
        row = json.load(f)
    os.unlink(path)
    print(f'{game:14s} {algo:6s} seed {seed} {tag}: best {row["best"]} at {row["env_step"]} env steps, '
          f'{row["seconds"]} s', flush=True)
    return row


def _row_key(game: str, algo: str, seed: int, tag: str) -> str:
    """A run's key in the results file (and its --progress file's name)."""
    return f'{game}_{algo}_seed{seed}' + (f'_{tag}' if tag else '')


def _variants(args: argparse.Namespace) -> List[Tuple[str, str]]:
    """(tag, override JSON) per sweep row: each --variant over --override, or --override alone."""
    from ding.utils.dicts import deep_merge
    base = json.loads(args.override)
    if not args.variant:
        return [(args.tag, args.override)]
    rows = []
    for spec in args.variant:
        tag, sep, text = spec.partition('=')
        if not sep or not tag:
            raise SystemExit(f'--variant takes TAG=JSON, got {spec!r}')
        tag = f'{args.tag}_{tag}' if args.tag else tag
        rows.append((tag, json.dumps(deep_merge(base, json.loads(text)))))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--games', nargs='+', default=list(GAMES), choices=GAMES)
    p.add_argument('--algos', nargs='+', default=list(ALGOS), choices=ALGOS)
    p.add_argument('--seeds', nargs='+', type=int, default=[0])
    p.add_argument('--max-env-step', type=int, default=300_000)
    p.add_argument('--wall-cap', type=float, default=300.0, help='seconds per run')
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--random-episodes', type=int, default=50)
    p.add_argument('--out', default=OUT)
    p.add_argument('--override', default='{}', help='JSON merged into each config (a tuning row)')
    p.add_argument('--tag', default='', help="suffix of the rows' keys, e.g. the override's name")
    p.add_argument('--variant', action='append', default=[], metavar='TAG=JSON',
                   help='a sweep row: JSON merged over --override, rows keyed with TAG (repeat for each row)')
    p.add_argument('--progress', default='', help='a folder: each run writes its curve so far there as it goes')
    p.add_argument('--one', nargs=2, metavar=('GAME', 'ALGO'), help=argparse.SUPPRESS)
    p.add_argument('--seed', type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument('--child-out', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        import torch
        torch.set_num_threads(1)
        progress = ''
        if args.progress:
            os.makedirs(args.progress, exist_ok=True)
            progress = os.path.join(args.progress, _row_key(*args.one, args.seed, args.tag) + '.json')
        row = run_one(args.one[0], args.one[1], args.seed, args.max_env_step, args.wall_cap, json.loads(args.override),
                      progress)
        with open(args.child_out, 'w') as f:
            json.dump(row, f)
        return
    result = {'runs': {}, 'random': {}}
    if os.path.exists(args.out):
        with open(args.out) as f:
            result = json.load(f)
    for game in args.games:
        result['random'][game] = round(random_return(game, args.random_episodes, seed=0), 3)
    result.update(date=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), jobs=args.jobs,
                  max_env_step=args.max_env_step, wall_cap_s=args.wall_cap, torch_threads=1,
                  random_episodes=args.random_episodes)
    from ding.utils.fileio import atomic_write_json
    jobs = {(g, a, s, tag, override): _row_key(g, a, s, tag)
            for g in args.games for a in args.algos for s in args.seeds for tag, override in _variants(args)}
    failed = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(_child, args, *job): key for job, key in jobs.items()}
        for future in concurrent.futures.as_completed(futures):  # each row is kept as it comes
            try:
                result['runs'][futures[future]] = future.result()
            except Exception as err:  # one failed run must not lose the others' rows
                failed.append(futures[future])
                print(err, file=sys.stderr, flush=True)
            atomic_write_json(args.out, result)
    if failed:
        raise SystemExit(f'failed: {failed}')
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
