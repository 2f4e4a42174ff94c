"""Inference latency of a policy's greedy actor: torch eager against the exported TorchScript
and ONNX (onnxruntime) files, at batch 1 and 256, and the exported files' parity with eager.

    python benchmarks/throughput/export_latency.py            # ~1 minute
    python benchmarks/throughput/export_latency.py --quick    # fewer calls, a smoke run

Policies: DQN (CartPole-v1, dueling MLP 128-128-64), PPO discrete (CartPole-v1), PPO
continuous and SAC (Pendulum-v1), each as built by its dizoo config with seeded weights.
Every call takes a float32 numpy batch and returns numpy actions:

- eager_eval_mode: `policy.eval_mode.forward_batch(obs)`, what `ding eval` runs;
- eager_module:    the same eval forward on torch tensors under no_grad (no ding wrapper);
- torchscript:     `torch.jit.load(file)(torch.from_numpy(obs))`;
- onnxruntime:     `InferenceSession(file).run(None, {'obs': obs})`, CPU provider.

torch and onnxruntime both run one intra-op thread (the machine has 2 cores shared with other
work). Methods are measured in interleaved rounds so drifting load hits them alike; the JSON
records the load average and CPU steal next to the medians. Writes
benchmarks/results/export_latency.json.
"""
import argparse
import copy
import importlib
import os
import platform
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from benchmarks.machine_load import CpuTimes  # noqa: E402
from ding.policy.export import GreedyActor  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from ding.utils.registry import POLICY_REGISTRY  # noqa: E402

RESULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results', 'export_latency.json')
POLICIES = {
    'dqn_cartpole': ('dizoo.classic_control.cartpole.config.cartpole_dqn_config', 'dqn'),
    'ppo_discrete_cartpole': ('dizoo.classic_control.cartpole.config.cartpole_ppo_config', 'ppo'),
    'ppo_continuous_pendulum': ('dizoo.classic_control.pendulum.config.pendulum_ppo_config', 'ppo'),
    'sac_pendulum': ('dizoo.classic_control.pendulum.config.pendulum_sac_config', 'sac'),
}
BATCHES = (1, 256)


def build_policy(module: str, policy_type: str):
    cfg = copy.deepcopy(importlib.import_module(module).main_config.policy)
    cfg.type = policy_type
    torch.manual_seed(0)
    return POLICY_REGISTRY.lookup(policy_type)(cfg, enable_field=['eval'])


def callers(policy, ts_path: str, onnx_path: str):
    import onnxruntime
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # torch.jit.load
        scripted = torch.jit.load(ts_path)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 1, 1
    session = onnxruntime.InferenceSession(onnx_path, options, providers=['CPUExecutionProvider'])
    module = GreedyActor(policy, policy.acting_model('eval'), ('action', )).eval()

    def eager_module(obs):
        with torch.no_grad():
            return module(torch.from_numpy(obs)).numpy()

    def torchscript(obs):
        with torch.no_grad():
            return scripted(torch.from_numpy(obs)).numpy()

    return {
        'eager_eval_mode': lambda obs: policy.eval_mode.forward_batch(obs)['action'],
        'eager_module': eager_module,
        'torchscript': torchscript,
        'onnxruntime': lambda obs: session.run(['action'], {'obs': obs})[0],
    }


def measure(calls, obs: np.ndarray, n_calls: int, rounds: int):
    """Per-call latencies (s) of each method, gathered over `rounds` interleaved rounds."""
    samples = {name: [] for name in calls}
    for fn in calls.values():  # warm up (lazy init, allocator, first-run graph optimisation)
        for _ in range(20):
            fn(obs)
    for _ in range(rounds):
        for name, fn in calls.items():
            for _ in range(n_calls // rounds):
                start = time.perf_counter()
                fn(obs)
                samples[name].append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='fewer calls (smoke run)')
    args = parser.parse_args()
    torch.set_num_threads(1)
    n_calls = {1: 400, 256: 100} if args.quick else {1: 4000, 256: 1000}
    rng = np.random.default_rng(0)
    results, parity = {}, {}
    load_before = os.getloadavg()
    with CpuTimes() as cpu, tempfile.TemporaryDirectory() as tmp:
        for name, (module, policy_type) in POLICIES.items():
            policy = build_policy(module, policy_type)
            ts_path, onnx_path = os.path.join(tmp, f'{name}.pt'), os.path.join(tmp, f'{name}.onnx')
            policy.export(ts_path, 'torchscript')
            policy.export(onnx_path, 'onnx')
            calls = callers(policy, ts_path, onnx_path)
            obs_dim = int(policy.cfg.model.obs_shape)
            check = (2.0 * rng.standard_normal((1000, obs_dim))).astype(np.float32)
            reference = calls['eager_eval_mode'](check)
            parity[name] = {m: float(np.abs(calls[m](check).astype(np.float64) - reference).max())
                            for m in ('torchscript', 'onnxruntime')}
            results[name] = {}
            for batch in BATCHES:
                obs = (2.0 * rng.standard_normal((batch, obs_dim))).astype(np.float32)
                samples = measure(calls, obs, n_calls[batch], rounds=5)
                results[name][f'batch_{batch}'] = {
                    m: {'median_us': round(float(np.median(s)) * 1e6, 1),
                        'p90_us': round(float(np.percentile(s, 90)) * 1e6, 1), 'calls': len(s)}
                    for m, s in samples.items()
                }
                row = '  '.join(f'{m} {v["median_us"]:8.1f}' for m, v in results[name][f'batch_{batch}'].items())
                print(f'{name:24s} batch {batch:3d}: {row}  (median us)', flush=True)
    out = {
        'what': 'greedy-actor inference latency per call (numpy float32 batch in, numpy actions out), '
                'median and p90 microseconds; 1 intra-op thread for torch and onnxruntime',
        'machine': {'platform': platform.platform(), 'cpus': os.cpu_count(), 'python': platform.python_version(),
                    'torch': torch.__version__, 'onnxruntime': importlib.import_module('onnxruntime').__version__,
                    'load_avg_1m_before': round(load_before[0], 2), 'load_avg_1m_after': round(os.getloadavg()[0], 2),
                    'cpu_fractions': {k: round(v, 3) for k, v in cpu.fractions.items()},
                    'note': 'shared 2-core VM, loaded by other work while measured: compare methods within a row, '
                            'not absolute numbers across runs'},
        'calls_per_method': n_calls,
        'results': results,
        'parity_max_abs_action_diff_vs_eager_1000_obs': parity,
    }
    atomic_write_json(RESULT, out)
    print(f'wrote {RESULT}')


if __name__ == '__main__':
    main()
