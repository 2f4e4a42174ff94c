"""Whole-pipeline speed of SAC on HalfCheetah-v5: env steps per second of the spec's
continuous pipeline (collector, pusher, learner with one update per env step, checkpoint,
termination) with the dizoo config (256-unit networks, batch 256), after the random warm-up.

Evaluation is pushed past the end of the run, so the figure is collection plus learning.
Needs the mujoco extra.

    python benchmarks/throughput/halfcheetah_speed.py [--env-steps 3000] [--warmup 1000] [--torch-threads 1]
        [--cuda [--cuda-graph]]
`--cuda` trains on the GPU (policy.cuda=True); `--cuda-graph` also replays each update as one CUDA
graph (learn.cuda_graph=True).
Writes benchmarks/results/halfcheetah_speed.json.
"""
import argparse
import json
import logging
import os
import tempfile
import time

import torch

from ding.utils.fileio import atomic_write_json


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--env-steps', type=int, default=3000, help='env steps with updates, after the warm-up')
    parser.add_argument('--warmup', type=int, default=1000, help='random warm-up env steps (not timed)')
    parser.add_argument('--torch-threads', type=int, default=1)
    parser.add_argument('--cuda', action='store_true', help='policy.cuda=True')
    parser.add_argument('--cuda-graph', action='store_true', help='learn.cuda_graph=True (needs --cuda)')
    parser.add_argument('--out', default=None)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    from dizoo.mujoco.entry.mujoco_offpolicy import train
    from dizoo.mujoco.envs.mujoco_env import mujoco_available
    if not mujoco_available():
        raise SystemExit('mujoco is not installed: pip install "ding[mujoco]"')

    marks = {}

    def timer(ctx):
        if 'start' not in marks and ctx.env_step >= args.warmup:
            marks['start'], marks['start_step'] = time.perf_counter(), ctx.env_step
        marks['end'], marks['end_step'] = time.perf_counter(), ctx.env_step

    overrides = dict(env=dict(evaluator_env_num=1, n_evaluator_episode=1),
                     policy=dict(random_collect_size=args.warmup, eval=dict(evaluator=dict(eval_freq=10**9)),
                                 cuda=args.cuda, learn=dict(cuda_graph=args.cuda_graph)))
    train('halfcheetah', 'sac', 0, args.warmup + args.env_steps, tempfile.mkdtemp(prefix='hc_speed_'), overrides,
          torch_threads=args.torch_threads, save_cfg=False, extra_middleware=[timer])
    steps = marks['end_step'] - marks['start_step']
    seconds = marks['end'] - marks['start']
    report = {'benchmark': 'halfcheetah_sac_pipeline', 'env_id': 'HalfCheetah-v5', 'timed_env_steps': int(steps),
              'wall_s': seconds, 'env_steps_per_s': steps / seconds, 'updates_per_env_step': 1,
              'torch_threads': args.torch_threads, 'torch': torch.__version__,
              'device': torch.cuda.get_device_name(0) if args.cuda else 'cpu', 'cuda_graph': args.cuda_graph}
    out = args.out or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'halfcheetah_speed.json')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    atomic_write_json(out, report)
    print(json.dumps(report, indent=1))


if __name__ == '__main__':
    main()
