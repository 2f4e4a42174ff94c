"""What denormal floats cost Adam's step on the CPU, and what flushing them to zero saves.

A weight whose gradient stays 0 (a dead ReLU unit, an input that is always 0) keeps Adam moments
that shrink by beta1 / beta2 each update until they are denormal (below ~1.2e-38); x86 CPUs
compute on those many times slower. Here: three 256 x 256 weights (about the size of SAC's 2 x 256
actor and twin critics), a share `--fractions` of their elements with zero gradient and denormal
moments, Adam's step timed (fused, as ding's policies make it, and foreach, torch's default
elsewhere) with `torch.set_flush_denormal` off and on. ding turns it on in every process whose
policy learns on the CPU (`ding/policy/policy.py: flush_denormals`).

    python benchmarks/throughput/adam_denormals.py [--steps 200] [--out benchmarks/results/adam_denormals.json]
"""
import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def step_ms(fused: bool, fraction: float, flush: bool, steps: int) -> float:
    torch.set_flush_denormal(flush)
    g = torch.Generator().manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(256, 256, generator=g)) for _ in range(3)]
    opt = torch.optim.Adam(params, lr=1e-3, fused=True) if fused else torch.optim.Adam(params, lr=1e-3, foreach=True)
    masks = []
    for p in params:
        p.grad = torch.randn(p.shape, generator=g)
        masks.append(torch.rand(p.shape, generator=g) < fraction)
    opt.step()  # makes the moments
    for p, dead in zip(params, masks):
        p.grad[dead] = 0.0  # these weights get no gradient: their moments only decay
        state = opt.state[p]
        state['exp_avg'][dead] = 1e-41
        state['exp_avg_sq'][dead] = 1e-40
    start = time.perf_counter()
    for _ in range(steps):
        opt.step()
    return (time.perf_counter() - start) / steps * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=200)
    parser.add_argument('--fractions', type=float, nargs='+', default=[0.0, 0.1, 0.25, 1.0])
    parser.add_argument('--out', default=os.path.join(ROOT, 'benchmarks', 'results', 'adam_denormals.json'))
    args = parser.parse_args()
    from ding.utils.fileio import atomic_write_json
    torch.set_num_threads(1)
    rows = []
    for fused in (True, False):
        for fraction in args.fractions:
            off, on = step_ms(fused, fraction, False, args.steps), step_ms(fused, fraction, True, args.steps)
            rows.append(dict(adam='fused' if fused else 'foreach', denormal_fraction=fraction,
                             ms_per_step=round(off, 3), ms_per_step_flushed=round(on, 3)))
            print(rows[-1], flush=True)
    torch.set_flush_denormal(False)
    atomic_write_json(args.out, dict(
        benchmark='adam_denormals', params='3 x 256 x 256 float32', torch_threads=1, steps=args.steps, rows=rows,
        date=datetime.now(timezone.utc).isoformat(timespec='seconds'), load_average_1min=os.getloadavg()[0],
        machine=dict(python=platform.python_version(), torch=torch.__version__,
                     processor=platform.processor() or platform.machine())))


if __name__ == '__main__':
    main()
