"""Time per update on a GPU, eager against `learn.cuda_graph=True`, in one process, the two
alternating in rounds: EDAC (edac.py's config: ten critics, 3x256 layers, batch 256), SAC
(HalfCheetah's config), DQN on CartPole-v1 (256-256 MLP, batch 64, 10-step returns) and DQN and
QR-DQN on MinAtar Breakout (the MinAtar paper's conv net, batch 64, 3-step returns). Each update
starts from a host batch (numpy), as the trainer hands it over.

    python benchmarks/throughput/cuda_graph_updates.py [--updates 300] [--rounds 3] [--algos ...] --out FILE
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
from ding.config import compile_config  # noqa: E402
from ding.data import Batch  # noqa: E402
from ding.utils.registry import POLICY_REGISTRY  # noqa: E402

CONFIGS = {'edac': 'dizoo.d4rl.config.halfcheetah_medium_edac_config',
           'sac': 'dizoo.mujoco.config.halfcheetah_sac_config',
           'dqn_cartpole': 'dizoo.classic_control.cartpole.config.cartpole_dqn_v1_config',
           'dqn_minatar': 'dizoo.minatar.config.breakout_dqn_config',
           'qrdqn_minatar': 'dizoo.minatar.config.breakout_qrdqn_config'}


def host_batch(cfg) -> Batch:
    """A replay batch of the config's shapes: continuous actions for SAC/EDAC, discrete for the DQN
    family, with n-step reward rows where the config has nstep > 1."""
    rng = np.random.default_rng(0)
    size, model = int(cfg.learn.batch_size), cfg.model
    obs_shape = tuple(model.obs_shape) if isinstance(model.obs_shape, (list, tuple)) else (int(model.obs_shape), )
    nstep = int(cfg.get('nstep', 1))
    if cfg.type in ('sac', 'edac'):
        action = rng.uniform(-1, 1, (size, int(model.action_shape))).astype(np.float32)
    else:
        action = rng.integers(0, int(model.action_shape), size)
    columns = dict(obs=rng.normal(size=(size, *obs_shape)).astype(np.float32), action=action,
                   reward=rng.normal(size=(size, nstep) if nstep > 1 else size).astype(np.float32),
                   next_obs=rng.normal(size=(size, *obs_shape)).astype(np.float32), done=np.zeros(size, bool))
    if nstep > 1:
        columns['nstep'] = np.full(size, nstep)
    return Batch(**columns)


def make_policy(algo: str, graphed: bool):
    config = importlib.import_module(CONFIGS[algo])
    cfg = compile_config(copy.deepcopy(config.main_config), create_cfg=copy.deepcopy(config.create_config),
                         auto=True, save_cfg=False)
    cfg.policy.cuda = True
    cfg.policy.learn.cuda_graph = graphed
    policy = POLICY_REGISTRY.lookup(cfg.policy.type)(cfg.policy, enable_field=['learn'])
    return policy, host_batch(cfg.policy)


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
