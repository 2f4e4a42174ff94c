"""What `policy.learn.precision='bf16'` saves per update, against float32, on the CPU it runs on.

Each workload is a dizoo config's policy, built twice from the same seed (precision 'fp32' and
'bf16'), fed the same synthetic batch of the config's shapes, and timed through
`learn_mode.forward` (the learner's whole update: forwards, losses, backward, optimizer step,
target update), the two alternating within each round:

- dqn_pong_cpu: pong_dqn_cpu_config (Nature CNN, dueling, 3-step double DQN, batch 32 of uint8 frames);
- impala_pong: IMPALA with the Nature CNN on 32 windows of 20 uint8 frames (the IMPALA paper's unroll
  and batch, as atari_split.py runs it);
- sac_halfcheetah: halfcheetah_sac_config (2 x 256 actor and twin critics, batch 256);
- dqn_cartpole: cartpole_dqn_config (a 128-128-64 MLP, batch 64), where there is little to gain.

bfloat16 pays on CPUs with AMX or AVX512-BF16 (`bf16_instructions` in the JSON); elsewhere it
is emulated and slower.

    python benchmarks/throughput/learner_precision.py [--threads 1 2] [--rounds 5] [--out PATH]
"""
import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Tuple

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, 'benchmarks'))
from machine_load import CpuTimes  # noqa: E402

from ding.data.batch import Batch  # noqa: E402
from ding.utils.dicts import deep_merge  # noqa: E402

OUT = os.path.join(ROOT, 'benchmarks', 'results', 'learner_precision.json')
NATURE_CNN = [32, 64, 64, 512]


def _frames(*shape: int) -> torch.Tensor:
    return torch.randint(0, 256, shape, dtype=torch.uint8)


def _dqn_workload(mod: Any) -> Tuple[Callable[[Any], Any], Any, Batch]:
    """A DQN config's policy and a batch of its shapes: uint8 frames for image observations."""
    from ding.policy import DQNPolicy
    cfg = mod.main_config.policy
    B, n, shape = cfg.learn.batch_size, cfg.nstep, cfg.model.obs_shape
    obs = (lambda: _frames(B, *shape)) if isinstance(shape, (list, tuple)) else (lambda: torch.randn(B, shape))
    batch = Batch(obs=obs(), next_obs=obs(), action=torch.randint(0, cfg.model.action_shape, (B, )),
                  reward=torch.randn(B, n), done=torch.zeros(B))
    return DQNPolicy, cfg, batch


def dqn_pong_cpu() -> Tuple[Callable[[Any], Any], Any, Batch]:
    from dizoo.atari.config.serial.pong import pong_dqn_cpu_config as mod
    return _dqn_workload(mod)


def impala_pong() -> Tuple[Callable[[Any], Any], Any, Batch]:
    from ding.policy import IMPALAPolicy
    from dizoo.classic_control.cartpole.config import cartpole_impala_config as mod
    B, T = 32, 20
    cfg = deep_merge(mod.main_config.policy, dict(
        unroll_len=T, model=dict(obs_shape=[4, 84, 84], action_shape=6, encoder_hidden_size_list=NATURE_CNN,
                                 actor_head_hidden_size=512, critic_head_hidden_size=512),
        learn=dict(batch_size=B, discount_factor=0.99)))
    batch = Batch(obs=_frames(B, T, 4, 84, 84), next_obs=_frames(B, T, 4, 84, 84),
                  action=torch.randint(0, 6, (B, T)), reward=torch.randn(B, T), done=torch.zeros(B, T),
                  logit=torch.randn(B, T, 6))
    return IMPALAPolicy, cfg, batch


def sac_halfcheetah() -> Tuple[Callable[[Any], Any], Any, Batch]:
    from ding.policy import SACPolicy
    from dizoo.mujoco.config import halfcheetah_sac_config as mod
    cfg = mod.main_config.policy
    B, O, A = cfg.learn.batch_size, cfg.model.obs_shape, cfg.model.action_shape
    batch = Batch(obs=torch.randn(B, O), next_obs=torch.randn(B, O), action=torch.rand(B, A) * 2 - 1,
                  reward=torch.randn(B), done=torch.zeros(B))
    return SACPolicy, cfg, batch


def dqn_cartpole() -> Tuple[Callable[[Any], Any], Any, Batch]:
    from dizoo.classic_control.cartpole.config import cartpole_dqn_config as mod
    return _dqn_workload(mod)


WORKLOADS = {f.__name__: f for f in (dqn_pong_cpu, impala_pong, sac_halfcheetah, dqn_cartpole)}


def _learner(workload: str, precision: str) -> Callable[[], Any]:
    policy_cls, cfg, batch = WORKLOADS[workload]()
    torch.manual_seed(0)
    policy = policy_cls(deep_merge(cfg, dict(cuda=False, learn=dict(precision=precision))), enable_field=['learn'])
    return lambda: policy.learn_mode.forward(batch)


def _ms_per_update(update: Callable[[], Any], seconds: float) -> float:
    update()
    n, start = 0, time.perf_counter()
    while n < 3 or time.perf_counter() - start < seconds:
        update()
        n += 1
    return (time.perf_counter() - start) / n * 1e3


def measure(workload: str, threads: int, rounds: int, seconds: float) -> Dict[str, Any]:
    torch.set_num_threads(threads)
    updates = {p: _learner(workload, p) for p in ('fp32', 'bf16')}
    for update in updates.values():  # warm-up: optimizer state, oneDNN kernels
        _ms_per_update(update, 1.0)
    ms: Dict[str, list] = {p: [] for p in updates}
    for _ in range(rounds):
        for p, update in updates.items():
            ms[p].append(round(_ms_per_update(update, seconds), 3))
    fp32, bf16 = statistics.median(ms['fp32']), statistics.median(ms['bf16'])
    return dict(workload=workload, torch_threads=threads, fp32_ms=fp32, bf16_ms=bf16,
                fp32_over_bf16=round(fp32 / bf16, 3), rounds_ms=ms)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--workload', nargs='+', choices=tuple(WORKLOADS), default=list(WORKLOADS))
    parser.add_argument('--threads', type=int, nargs='+', default=[1, 2])
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--seconds', type=float, default=3.0, help='timed seconds per precision per round')
    parser.add_argument('--note', default='')
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()
    from ding.utils.fileio import atomic_write_json
    rows = []
    with CpuTimes() as cpu:  # all CPUs over the runs: a busy machine (another run beside) shows here
        for workload in args.workload:
            for threads in args.threads:
                rows.append(measure(workload, threads, args.rounds, args.seconds))
                print({k: v for k, v in rows[-1].items() if k != 'rounds_ms'}, flush=True)
    atomic_write_json(args.out, dict(
        benchmark='learner_precision', rows=rows, rounds=args.rounds, seconds_per_round=args.seconds,
        bf16_instructions=bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()), note=args.note,
        cpu_fractions={k: round(v, 3) for k, v in cpu.fractions.items()},
        date=datetime.now(timezone.utc).isoformat(timespec='seconds'),
        machine=dict(python=platform.python_version(), torch=torch.__version__, cpus=os.cpu_count(),
                     processor=platform.processor() or platform.machine())))


if __name__ == '__main__':
    main()
