"""An Atari game trained on this CPU through `ding train`, its evaluation curve against random play.

    python benchmarks/learning/atari_cpu.py --config dizoo/atari/config/serial/pong/pong_ppo_config.py \
        --seed 1000 --max-env-step 1000000 --run-dir runs/pong_ppo_seed1000 --out atari_cpu_pong_ppo.json

A long run spans sittings: the same command again finds the run directory and continues it with
`ding resume` (which keeps the run's settings); `--report-only` writes the JSON from the run
directory as it stands. The run has both cores' worth of torch threads (`--threads`, through
OMP_NUM_THREADS): a sync on-policy learner has the machine to itself while the envs wait.

Writes `benchmarks/results/<out>`: every evaluation (env steps, frames, seconds, mean and std of
the greedy return over the config's evaluation episodes), the best and last, env steps/s, and
the random-play score it is judged against.
"""
import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any, Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAME_SKIP = 4  # DeepMind's wrappers repeat each action for 4 frames
# Random play: Mnih et al. 2015, "Human-level control through deep reinforcement learning",
# Nature 518, Extended Data Table 2 ("Random Play" column).
RANDOM_PLAY = {'PongNoFrameskip-v4': -20.7, 'BreakoutNoFrameskip-v4': 1.7}


def run(args: argparse.Namespace) -> None:
    """Start the run, or resume it where an earlier sitting left it."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    ding = [sys.executable, '-m', 'ding.entry.cli']
    if os.path.exists(os.path.join(args.run_dir, 'run.json')):
        cmd = ding + ['resume', args.run_dir]
    else:
        cmd = ding + ['train', '-f', args.config, '--seed', str(args.seed), '--max-env-step', str(args.max_env_step),
                      '--exp-name', args.run_dir, '--no-progress', '--keep-checkpoints', str(args.keep_checkpoints)]
    print(' '.join(cmd), flush=True)
    subprocess.run(cmd, env=env, check=True)


def progress_rows(run_dir: str) -> List[Dict[str, str]]:
    """The run's progress.csv: a row per evaluation and one at the end (every sitting's, in order)."""
    with open(os.path.join(run_dir, 'progress.csv')) as f:
        return list(csv.DictReader(f))


def evaluations(rows: List[Dict[str, str]]) -> List[Dict[str, float]]:
    return [dict(env_step=int(r['env_step']), frames=int(r['env_step']) * FRAME_SKIP, seconds=float(r['time_s']),
                 eval_mean=float(r['eval_return_mean']), eval_std=float(r['eval_return_std']),
                 episodes=int(r['eval_episodes'])) for r in rows if r.get('eval_return_mean')]


def report(args: argparse.Namespace) -> Dict[str, Any]:
    from ding.utils.fileio import atomic_write_json
    with open(os.path.join(args.run_dir, 'run.json')) as f:
        meta = json.load(f)
    env_id = meta['main_config']['env']['env_id']
    rows = progress_rows(args.run_dir)
    evals, end = evaluations(rows), rows[-1]
    env_steps, seconds = int(end['env_step']), float(end['time_s'])
    last = evals[-1]
    best = max(evals, key=lambda e: e['eval_mean'])
    out = dict(
        written=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
        machine=f'{os.cpu_count()} cores, {platform.processor() or platform.machine()}, CPU only',
        command=f'python benchmarks/learning/atari_cpu.py --config {os.path.relpath(meta["source"], ROOT)} '
        f'--seed {meta["seed"]} --max-env-step {meta["max_env_step"]} --run-dir RUN --out {args.out}',
        algo=meta['algo'], env_id=env_id, config=os.path.relpath(meta['source'], ROOT), seed=meta['seed'],
        max_env_step=meta['max_env_step'], torch_threads=args.threads, async_mode=meta['async_mode'],
        random_play=RANDOM_PLAY.get(env_id), random_play_source='Mnih et al. 2015, Nature 518, Extended Data Table 2',
        evals=evals, best=best, last=last, env_steps=env_steps, frames=env_steps * FRAME_SKIP, seconds=seconds,
        env_steps_per_s=round(env_steps / seconds, 1) if seconds else None,
        # final_ctx.json: written when the run ends, at its env-step budget or its config's stop value
        # (not when a sitting is cut short)
        finished=os.path.exists(os.path.join(args.run_dir, 'final_ctx.json')),
        stop_value=meta['main_config']['env'].get('stop_value'),
        note=args.note)
    atomic_write_json(os.path.join(ROOT, 'benchmarks', 'results', args.out), out)
    print(f"{env_id} {meta['algo']} seed {meta['seed']}: {env_steps:,} env steps ({env_steps * FRAME_SKIP:,} frames) "
          f"in {seconds:.0f} s; last evaluation {last['eval_mean']:.2f}, best {best['eval_mean']:.2f} at "
          f"{best['env_step']:,}; random play {out['random_play']}")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--config', default='dizoo/atari/config/serial/pong/pong_ppo_config.py')
    p.add_argument('--seed', type=int, default=1000)
    p.add_argument('--max-env-step', type=int, default=1_000_000)
    p.add_argument('--run-dir', default='runs/pong_ppo_seed1000')
    p.add_argument('--threads', type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument('--keep-checkpoints', type=int, default=3,
                   help='iteration checkpoints kept (a Nature CNN one is 35 MB, written every 1,000 updates)')
    p.add_argument('--out', default='atari_cpu_pong_ppo.json', help='file name under benchmarks/results/')
    p.add_argument('--note', default='', help='what the reader should know of these sittings')
    p.add_argument('--report-only', action='store_true')
    args = p.parse_args()
    if not args.report_only:
        run(args)
    report(args)


if __name__ == '__main__':
    main()
