"""Time per update of EDAC (edac.py's config: ten critics, 3x256 layers, batch 256) and SAC
(HalfCheetah's config) on a GPU, eager against `learn.cuda_graph=True`, in one process, the two
alternating in rounds. Each update starts from a host batch (numpy), as the trainer hands it over.

    python benchmarks/cuda_graph_updates.py [--updates 500] [--rounds 3] --out cuda_graph_updates.json
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from ding.config import compile_config  # noqa: E402
from ding.data import Batch  # noqa: E402
from ding.utils.registry import POLICY_REGISTRY  # noqa: E402

CONFIGS = {'edac': 'dizoo.d4rl.config.halfcheetah_medium_edac_config',
           'sac': 'dizoo.mujoco.config.halfcheetah_sac_config'}


def host_batch(size: int, obs_dim: int, act_dim: int) -> Batch:
    rng = np.random.default_rng(0)
    return Batch(obs=rng.normal(size=(size, obs_dim)).astype(np.float32),
                 action=rng.uniform(-1, 1, (size, act_dim)).astype(np.float32),
                 reward=rng.normal(size=size).astype(np.float32),
                 next_obs=rng.normal(size=(size, obs_dim)).astype(np.float32), done=np.zeros(size, bool))


def make_policy(algo: str, graphed: bool):
    config = importlib.import_module(CONFIGS[algo])
    cfg = compile_config(copy.deepcopy(config.main_config), create_cfg=copy.deepcopy(config.create_config),
                         auto=True, save_cfg=False)
    cfg.policy.cuda = True
    cfg.policy.learn.cuda_graph = graphed
    policy = POLICY_REGISTRY.lookup(algo)(cfg.policy, enable_field=['learn'])
    model = cfg.policy.model
    return policy, host_batch(int(cfg.policy.learn.batch_size), int(model.obs_shape), int(model.action_shape))


def ms_per_update(policy, data: Batch, updates: int) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(updates):
        policy.learn_mode.forward(data)  # returns floats: one device sync per update, as in training
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / updates * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--updates', type=int, default=500)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--algos', nargs='+', default=list(CONFIGS))
    parser.add_argument('--out', required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit('cuda_graph_updates.py times GPU updates: torch finds no CUDA device')
    rows = []
    for algo in args.algos:
        runs = {mode: make_policy(algo, mode == 'graphed') for mode in ('eager', 'graphed')}
        for policy, data in runs.values():
            for _ in range(20):  # warm-up; the graphed policy captures here
                policy.learn_mode.forward(data)
        times = {mode: [] for mode in runs}
        for _ in range(args.rounds):
            for mode, (policy, data) in runs.items():
                times[mode].append(ms_per_update(policy, data, args.updates))
        row = {'algo': algo, **{f'{mode}_ms': round(float(np.median(t)), 3) for mode, t in times.items()},
               'rounds_ms': times}
        row['speedup'] = round(row['eager_ms'] / row['graphed_ms'], 2)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != 'rounds_ms'}), flush=True)
    result = {'generated_at': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
              'device': torch.cuda.get_device_name(0), 'torch': torch.__version__, 'updates': args.updates,
              'rounds': args.rounds, 'rows': rows}
    tmp = args.out + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, args.out)


if __name__ == '__main__':
    main()
