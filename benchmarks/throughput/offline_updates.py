"""Time per update of the offline policies on Pendulum-sized inputs (obs 3, action 1), each
with its Pendulum dizoo config's networks and batch size, one torch thread, CPU. Times per
10k updates are extrapolated from `--updates` timed updates (after 20 warm-up ones); the
machine's load over the measurement is recorded beside them (benchmarks/machine_load.py).

    python benchmarks/throughput/offline_updates.py [--updates 300]

Writes benchmarks/results/offline_updates.json.
"""
import argparse
import copy
import datetime
import importlib
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
from benchmarks.machine_load import CpuTimes  # noqa: E402
from ding.config import compile_config  # noqa: E402
from ding.data import Batch  # noqa: E402
from ding.utils.registry import POLICY_REGISTRY  # noqa: E402

ALGOS = ('cql', 'td3_bc', 'iql', 'bcq')


def batch_of(size: int) -> Batch:
    rng = np.random.default_rng(0)
    return Batch(obs=rng.normal(size=(size, 3)).astype(np.float32),
                 action=rng.uniform(-1, 1, (size, 1)).astype(np.float32),
                 reward=rng.normal(size=size).astype(np.float32),
                 next_obs=rng.normal(size=(size, 3)).astype(np.float32), done=np.zeros(size, bool))


def time_updates(algo: str, updates: int) -> dict:
    config = importlib.import_module(f'dizoo.classic_control.pendulum.config.pendulum_{algo}_config')
    cfg = compile_config(copy.deepcopy(config.main_config), create_cfg=copy.deepcopy(config.create_config),
                         auto=True, save_cfg=False)
    cfg.policy.cuda = False
    policy = POLICY_REGISTRY.lookup(algo)(cfg.policy, enable_field=['learn'])
    data = batch_of(int(cfg.policy.learn.batch_size))
    for _ in range(20):
        policy.learn_mode.forward(data)
    start = time.perf_counter()
    for _ in range(updates):
        policy.learn_mode.forward(data)
    per_update = (time.perf_counter() - start) / updates
    return {'batch_size': int(cfg.policy.learn.batch_size), 'ms_per_update': per_update * 1e3,
            's_per_10k_updates': per_update * 1e4}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--updates', type=int, default=300)
    args = parser.parse_args()
    torch.set_num_threads(1)
    results = {}
    with CpuTimes() as load:
        for algo in ALGOS:
            results[algo] = time_updates(algo, args.updates)
            print(algo, results[algo], flush=True)
    out = {'benchmark': 'offline_updates', 'date': datetime.datetime.now(datetime.timezone.utc).isoformat(),
           'updates': args.updates, 'torch_threads': 1, 'machine_cpu_fractions': load.fractions,
           'results': results}
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'offline_updates.json')
    with open(path + '.tmp', 'w') as f:
        json.dump(out, f, indent=1)
    os.replace(path + '.tmp', path)
    print('wrote', path)


if __name__ == '__main__':
    main()
