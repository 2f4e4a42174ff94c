"""Where an env step of SAC goes: the pipeline of `benchmarks/compare` (StepCollector ->
data_pusher -> OffPolicyLearner; by default on Pendulum, config `pendulum_sac_config`: one env,
n_sample 1, one update of batch 128 per env step, 128-unit critics and actor), each part timed by
wrapping the callable the middleware calls, in microseconds per env step. Evaluation is left out
(the comparison's evaluator runs apart from the pipeline).

    python benchmarks/throughput/profile_sac.py [--env-steps 3000]
    python benchmarks/throughput/profile_sac.py --config dizoo.mujoco.config.halfcheetah_sac_config \
        --out benchmarks/results/profile_sac_halfcheetah.json     # 256-unit nets, batch 256
Writes benchmarks/results/profile_sac.json; docs/benchmarks.md renders it.
"""
import argparse
import os
import sys
import time
from datetime import datetime, timezone

import torch

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'compare', 'runners'))
from machine_load import CpuTimes  # noqa: E402
from ours_runner import make_collector_env  # noqa: E402  (the comparison's collector env, built the same way)
from profile_paths import Clock  # noqa: E402

from ding.data import DequeBuffer  # noqa: E402
from ding.data.batch import Batch  # noqa: E402
from ding.framework import task  # noqa: E402
from ding.framework.context import OnlineRLContext  # noqa: E402
from ding.framework.middleware import OffPolicyLearner, StepCollector, data_pusher, termination_checker  # noqa: E402
from ding.model import ContinuousQAC  # noqa: E402
from ding.policy import SACPolicy  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402
from dizoo.common.config_loader import load_config  # noqa: E402

CONFIG = 'dizoo.classic_control.pendulum.config.pendulum_sac_config'


def profile(env_steps: int, config: str = CONFIG) -> dict:
    cfg = load_config(config, 0, '/tmp/profile_sac', save_cfg=False)
    torch.manual_seed(0)
    policy = SACPolicy(cfg.policy, model=ContinuousQAC(**cfg.policy.model))
    env = make_collector_env(cfg)
    buffer_ = DequeBuffer(size=cfg.policy.other.replay_buffer.replay_buffer_size)
    clock = Clock()
    env.step_batch = clock.wrap('env_step', env.step_batch)
    policy._forward_collect = clock.wrap('policy_forward_collect', policy._forward_collect)
    buffer_.push = clock.wrap('buffer_push', buffer_.push)
    buffer_.sample = clock.wrap('sample', buffer_.sample)
    policy._forward_learn = clock.wrap('forward_learn', policy._forward_learn)
    policy._apply_gradients = clock.wrap('backward_and_optimizer', policy._apply_gradients)
    policy._update_target = clock.wrap('target_update', policy._update_target)
    original_to_torch = Batch.to_torch
    Batch.to_torch = clock.wrap('collation', original_to_torch)
    warmup = int(cfg.policy.random_collect_size)
    mark = {}

    def start_clock_after_warmup(ctx):  # the random warm-up is not timed
        if not mark and ctx.env_step >= warmup:
            clock.seconds.clear()
            mark.update(step=ctx.env_step, t0=time.perf_counter())

    try:
        with task.start(ctx=OnlineRLContext()):
            task.use(StepCollector(cfg, policy.collect_mode, env, random_collect_size=warmup))
            task.use(data_pusher(cfg, buffer_))
            task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_, log_freq=10 ** 9))
            task.use(start_clock_after_warmup)
            task.use(termination_checker(max_env_step=warmup + env_steps))
            task.run()
            total, steps = time.perf_counter() - mark['t0'], task.ctx.env_step - mark['step']
    finally:
        Batch.to_torch = original_to_torch
        env.close()
    s = clock.seconds
    per = lambda x: 1e6 * x / steps  # noqa: E731
    learn = s['forward_learn'] - s['backward_and_optimizer'] - s['target_update']
    parts = {
        'env step': per(s['env_step']),
        'policy forward (collect)': per(s['policy_forward_collect']),
        'buffer push': per(s['buffer_push']),
        'sample': per(s['sample']),
        'collation (columns to tensors)': per(s['collation']),
        'losses forward (critics, actor, alpha)': per(learn),
        'backward and Adam step': per(s['backward_and_optimizer']),
        'target update (polyak)': per(s['target_update']),
    }
    parts['middleware and the rest'] = per(total) - sum(parts.values())
    return dict(us_per_env_step=parts, total_us_per_env_step=per(total), env_steps=steps)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--env-steps', type=int, default=3000)
    parser.add_argument('--config', default=CONFIG, help='a dizoo SAC config module')
    parser.add_argument('--out', default='benchmarks/results/profile_sac.json')
    args = parser.parse_args()
    torch.set_num_threads(1)
    with CpuTimes() as cpu:
        result = profile(args.env_steps, args.config)
    result.update(benchmark='profile_sac', date=datetime.now(timezone.utc).isoformat(timespec='seconds'),
                  setting=f'{args.config}, one torch thread', cpu=cpu.fractions, load_average_1min=os.getloadavg()[0])
    atomic_write_json(args.out, result)
    print(result)


if __name__ == '__main__':
    main()
