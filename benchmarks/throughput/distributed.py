"""Distributed runs on Ray, measured; writes benchmarks/results/distributed.json.

    python benchmarks/throughput/distributed.py [--seconds 20] [--quick]

- env-steps/s of a DQN pipeline (update_per_collect=1, n_sample=32, 4 envs per collector)
  with 1, 2 and 4 collector actors feeding one learner, against the same pipeline in one
  process, on a slow env (CartPole sleeping 1 ms a step: a simulator that waits, not one that
  computes) and on plain CartPole;
- one weight broadcast (ray.put once + a receiver's ray.get and load_state_dict) for an MLP and
  an Atari-sized CNN (Nature DQN);
- the round trip of one remote event (node 0 -> node 1 -> node 0);
- DDP: time per DQN update with 2 learners (torchrun, gloo) against 1.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from ding.framework import Parallel, task  # noqa: E402
from ding.utils.fileio import atomic_write_json  # noqa: E402


class SlowStep:
    """CartPole whose step waits `delay` seconds (gymnasium wrapper, picklable)."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def __call__(self):
        import gymnasium as gym

        from ding.envs import DingEnvWrapper
        delay = self.delay

        class _Slow(gym.Wrapper):

            def step(self, action):
                if delay:
                    time.sleep(delay)
                return self.env.step(action)

        return DingEnvWrapper(_Slow(gym.make('CartPole-v1')))


def pipeline(env_delay: float, seconds: float, warmup: float, distributed: bool):
    """The DQN pipeline; on a learner node (or alone) returns env-steps/s over the timed window."""
    import torch
    from easydict import EasyDict

    from ding.data.buffer.deque_buffer import DequeBuffer
    from ding.envs import BaseEnvManagerV2
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import (ContextExchanger, ModelExchanger, OffPolicyLearner, StepCollector,
                                           data_pusher, eps_greedy_handler)
    from ding.model import DQN
    from ding.policy import DQNPolicy
    torch.set_num_threads(1)
    learner = not distributed or task.router.node_id == 0
    cfg = DQNPolicy.default_config()
    cfg.model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[64, 64])
    cfg.learn.update_per_collect, cfg.collect.n_sample = 1, 32
    cfg = EasyDict(seed=0, policy=cfg)
    marks = {}
    with task.start(ctx=OnlineRLContext()):
        if distributed:
            task.add_role(task.role.LEARNER if learner else task.role.COLLECTOR)
        model = DQN(**cfg.policy.model)
        policy = DQNPolicy(cfg.policy, model=model)
        env = BaseEnvManagerV2([SlowStep(env_delay) for _ in range(4)], BaseEnvManagerV2.default_config())
        buffer_ = DequeBuffer(size=20000)
        if distributed:
            task.use(ContextExchanger(skip_n_iter=1))
            task.use(ModelExchanger(model))
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        start = time.perf_counter()

        def clock(ctx):
            now = time.perf_counter() - start
            if 'a' not in marks and now >= warmup:
                marks['a'] = (now, ctx.env_step)
            if now >= warmup + seconds:
                marks['b'] = (now, ctx.env_step)
                task.finish = True

        if learner:
            task.use(clock)
        task.run()
        env.close()
    if not learner:
        return None
    (t0, s0), (t1, s1) = marks['a'], marks['b']
    return (s1 - s0) / (t1 - t0)


def throughput(env_delay: float, seconds: float, warmup: float, collectors: int) -> float:
    if collectors == 0:
        return pipeline(env_delay, seconds, warmup, False)
    results = Parallel.runner(n_parallel_workers=1 + collectors, topology='star')(pipeline, env_delay, seconds, warmup,
                                                                                True)
    return results[0]


def broadcast_main(kind: str, repeats: int):
    """Node 0 publishes `repeats` versions; node 1 loads each: seconds per broadcast."""
    import numpy as np
    import ray
    import torch
    model = _model(kind)
    n_params = sum(p.numel() for p in model.parameters())
    with task.start():
        if task.router.node_id == 0:
            task.wait_for('ready', timeout=120)
            t = time.perf_counter()
            for v in range(repeats):
                state = {k: t_.detach().numpy().copy() for k, t_ in model.state_dict().items()}
                task.emit('weights', v, ray.put(state), only_remote=True)
                task.wait_for('loaded', timeout=120)
            return (time.perf_counter() - t) / repeats, n_params
        got = []
        task.on('weights', lambda v, ref: got.append(ref))
        task.emit('ready', only_remote=True)
        for _ in range(repeats):
            while not got:
                time.sleep(0.0005)
            state = ray.get(got.pop())
            model.load_state_dict({k: torch.as_tensor(np.array(v)) for k, v in state.items()})
            task.emit('loaded', only_remote=True)
    return None


def _model(kind: str):
    import torch.nn as nn
    if kind == 'mlp':
        return nn.Sequential(nn.Linear(4, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2))
    return nn.Sequential(nn.Conv2d(4, 32, 8, 4), nn.ReLU(), nn.Conv2d(32, 64, 4, 2), nn.ReLU(), nn.Conv2d(64, 64, 3, 1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, 18))


def ping_main(repeats: int):
    with task.start():
        if task.router.node_id == 1:
            task.on('ping', lambda i: task.emit('pong', i, only_remote=True))
            task.emit('ready', only_remote=True)
            task.wait_for('done', timeout=300)
            return None
        task.wait_for('ready', timeout=120)
        times = []
        for i in range(repeats):
            t = time.perf_counter()
            task.emit('ping', i, only_remote=True)
            task.wait_for('pong', timeout=60)
            times.append(time.perf_counter() - t)
        task.emit('done', only_remote=True)
        times.sort()
        return times[len(times) // 2]


DDP_SCRIPT = '''
import sys, time, torch, numpy as np
from ding.policy import DQNPolicy
from ding.utils import DDPContext, get_rank
torch.set_num_threads(1)
multi = sys.argv[1] == '1'
def step_time():
    cfg = dict(multi_gpu=multi, model=dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[128, 128, 64]))
    policy = DQNPolicy(cfg)
    rng = np.random.default_rng(0)
    b = dict(obs=rng.normal(size=(64, 4)).astype(np.float32), next_obs=rng.normal(size=(64, 4)).astype(np.float32),
             action=rng.integers(0, 2, 64), reward=rng.normal(size=64).astype(np.float32), done=rng.random(64) < .1)
    for _ in range(20):
        policy.learn_mode.forward(b)
    t = time.perf_counter()
    for _ in range(200):
        policy.learn_mode.forward(b)
    return (time.perf_counter() - t) / 200
if multi:
    with DDPContext():
        s = step_time()
        if get_rank() == 0:
            print(s)
else:
    print(step_time())
'''


def ddp_times() -> dict:
    with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as f:
        f.write(DDP_SCRIPT)
    torchrun = os.path.join(os.path.dirname(sys.executable), 'torchrun')
    one = subprocess.run([sys.executable, f.name, '0'], capture_output=True, text=True, timeout=300)
    two = subprocess.run([torchrun, '--standalone', '--nproc_per_node', '2', f.name, '1'], capture_output=True,
                         text=True, timeout=300)
    os.unlink(f.name)
    return dict(update_s_1_learner=float(one.stdout.split()[-1]), update_s_2_learners_ddp=float(two.stdout.split()[-1]),
                batch_per_learner=64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seconds', type=float, default=20.0)
    parser.add_argument('--warmup', type=float, default=8.0)
    parser.add_argument('--quick', action='store_true', help='slow env only, 0 and 2 collectors')
    args = parser.parse_args()
    import ray
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, namespace='ding', log_to_driver=False)
    out = dict(machine=dict(cpus=os.cpu_count(), python=platform.python_version(), ray=ray.__version__),
               seconds=args.seconds, warmup=args.warmup, env_steps_per_s={})
    try:
        envs = {'slow_cartpole_1ms': 0.001} if args.quick else {'slow_cartpole_1ms': 0.001, 'cartpole': 0.0}
        for name, delay in envs.items():
            rows = out['env_steps_per_s'][name] = {}
            for collectors in ([0, 2] if args.quick else [0, 1, 2, 4]):
                key = 'single_process' if collectors == 0 else f'{collectors}_collectors_1_learner'
                rows[key] = round(throughput(delay, args.seconds, args.warmup, collectors), 1)
                print(name, key, rows[key], flush=True)
        out['weight_broadcast_s'] = {}
        for kind in ('mlp', 'atari_cnn'):
            seconds, n = Parallel.runner(n_parallel_workers=2)(broadcast_main, kind, 20)[0]
            out['weight_broadcast_s'][kind] = dict(seconds=round(seconds, 5), params=n)
            print('broadcast', kind, seconds, flush=True)
        out['remote_event_round_trip_s'] = round(Parallel.runner(n_parallel_workers=2)(ping_main, 200)[0], 5)
        print('round trip', out['remote_event_round_trip_s'], flush=True)
    finally:
        ray.shutdown()
    out['ddp'] = ddp_times()
    print('ddp', out['ddp'], flush=True)
    path = os.path.join(ROOT, 'benchmarks', 'results', 'distributed.json')
    atomic_write_json(path, out)
    print(json.dumps(out, indent=2))


if __name__ == '__main__':
    main()
