"""Env steps per second of each sampling mode, beside bare `gymnasium.vector` loops.

Every mode runs the same work per step: a 2-hidden-layer (64, 64) MLP forward on the
stacked observations (argmax action), one env step of every env, and the transition kept
in `[B, T]` arrays. Envs: CartPole-v1 x8, LunarLander-v3 x8 and the slow CartPole (~0.5 ms
of CPU per step) x8. Modes: serial (`base_v2`), `subprocess`, `alternating`, worker-side
inference, our `gym_vector` manager, `auto`, and bare Sync/AsyncVectorEnv loops.

Timing: wall clock over chunks of `--steps` batched steps, modes alternating round by round
so background load hits all alike; the median over rounds is reported, with the CPU time
of the main process and its workers (from /proc) to show where the time went.

    python benchmarks/throughput/sampling.py [--steps 1000] [--rounds 3] [--envs 8] [--only slow_cartpole]

Writes benchmarks/results/sampling.json and sampling.md.
"""
import argparse
import datetime
import functools
import os
import platform
import statistics
import sys
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '..'))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ding.envs import BaseEnvManagerV2, DingEnvWrapper, GymVectorEnvManager, SubprocessEnvManagerV2  # noqa: E402
from ding.envs.env_manager.alternating_sampler import AlternatingSampler  # noqa: E402
from ding.envs.env_manager.auto_env_manager import AutoEnvManager  # noqa: E402
from ding.data.transition_columns import TransitionColumns  # noqa: E402
from ding.envs.env_manager.worker_inference import WorkerInferenceSampler  # noqa: E402
from ding.policy.worker_actor import EpsGreedyActor  # noqa: E402
from ding.utils.fileio import atomic_write_json, atomic_write_text  # noqa: E402
from machine_load import CpuTimes, IndependentProcs  # noqa: E402
from dizoo.classic_control.slow_env.envs import make_slow_cartpole  # noqa: E402

ENVS = {
    'cartpole': (lambda: gym.make('CartPole-v1'), 4, 2),
    'lunarlander': (lambda: gym.make('LunarLander-v3'), 8, 4),
    'slow_cartpole': (make_slow_cartpole, 4, 2),
}
AUTO_CHOICES = ('serial', 'subprocess', 'gym_vector_async')  # the managers `auto` probes
PROCESS_MODES = ('subprocess', 'alternating', 'worker_inference')  # ours, envs in worker processes
RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'results')


class MLPQ(nn.Module):

    def __init__(self, obs_dim: int, act_dim: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                 nn.Linear(64, act_dim))

    def forward(self, x):
        return {'logit': self.net(x)}


def policy_forward(model: MLPQ):

    def forward(obs, **kwargs):
        with torch.no_grad():
            return {'action': model(torch.from_numpy(np.asarray(obs, dtype=np.float32)))['logit'].argmax(-1).numpy()}

    return forward


class ManagerRunner:
    """forward -> step_batch -> keep, over one of our managers."""

    def __init__(self, manager, forward):
        self.m, self.forward = manager, forward
        manager.seed(0)
        manager.launch()

    def run(self, steps):
        cols = TransitionColumns(self.m.env_num, steps)
        for t in range(steps):
            obs = self.m.ready_obs
            out = self.forward(obs)
            cols.record(t, 0, obs, out, self.m.step_batch(out['action']))
        return cols.to_batch()

    @property
    def pids(self):
        return getattr(self.m, 'worker_pids', [])

    def close(self):
        self.m.close()


class AlternatingRunner:

    def __init__(self, fns, forward):
        self.s, self.forward = AlternatingSampler(fns, dict(worker_num=2)), forward
        self.s.seed(0)
        self.s.launch()

    def run(self, steps):
        return self.s.collect_steps(self.forward, steps)[0]

    @property
    def pids(self):
        return [p for g in self.s.groups for p in g.worker_pids]

    def close(self):
        self.s.close()


class WorkerInferenceRunner:
    """The envs' workers act themselves (a copy of the MLP each); only transitions come back."""

    def __init__(self, fns, model, obs_dim, act_dim, steps):
        self.s = WorkerInferenceSampler(fns, dict(worker_num=2))
        self.s.seed(0)
        self.s.bind_actor(functools.partial(EpsGreedyActor, functools.partial(MLPQ, obs_dim, act_dim)),
                          model.state_dict())
        self.s.launch()

    def run(self, steps):
        return self.s.collect_rollout(steps, dict(eps=0.0))[0]

    @property
    def pids(self):
        return self.s.worker_pids

    def close(self):
        self.s.close()


class BareVectorRunner:
    """The reference loop over gymnasium.vector, no ding code."""

    def __init__(self, make_env, n, forward, asynchronous):
        cls = gym.vector.AsyncVectorEnv if asynchronous else gym.vector.SyncVectorEnv
        self.envs, self.forward = cls([make_env for _ in range(n)]), forward
        self.obs, _ = self.envs.reset(seed=0)

    def run(self, steps):
        n = self.envs.num_envs
        keep = {k: [None] * steps for k in ('obs', 'action', 'reward', 'next_obs', 'terminated', 'truncated')}
        for t in range(steps):
            action = self.forward(self.obs)['action']
            next_obs, reward, term, trunc, _ = self.envs.step(action)
            for k, v in (('obs', self.obs), ('action', action), ('reward', reward), ('next_obs', next_obs),
                         ('terminated', term), ('truncated', trunc)):
                keep[k][t] = v
            self.obs = next_obs
        return {k: np.stack(v, axis=1).reshape((n * steps, ) + np.shape(v[0])[1:]) for k, v in keep.items()}

    @property
    def pids(self):
        return [p.pid for p in getattr(self.envs, 'processes', [])]

    def close(self):
        self.envs.close()


def build_runners(env_name, n, steps):
    make_env, obs_dim, act_dim = ENVS[env_name]
    torch.manual_seed(0)
    model = MLPQ(obs_dim, act_dim)
    forward = policy_forward(model)
    fns = [(lambda: DingEnvWrapper(make_env())) for _ in range(n)]
    auto = AutoEnvManager(fns, dict(worker_num=2, vector='async'))
    runners = {
        'serial': lambda: ManagerRunner(BaseEnvManagerV2(fns), forward),
        'subprocess': lambda: ManagerRunner(SubprocessEnvManagerV2(fns, dict(worker_num=2)), forward),
        'alternating': lambda: AlternatingRunner(fns, forward),
        'worker_inference': lambda: WorkerInferenceRunner(fns, model, obs_dim, act_dim, steps),
        'gym_vector_async': lambda: ManagerRunner(GymVectorEnvManager(fns, dict(vector='async')), forward),
        'auto': lambda: ManagerRunner(auto, forward),
        'bare_sync_vector': lambda: BareVectorRunner(make_env, n, forward, False),
        'bare_async_vector': lambda: BareVectorRunner(make_env, n, forward, True),
        'no_ipc_ceiling': lambda: IndependentProcs(make_env, n, procs=2),
    }
    return {name: make() for name, make in runners.items()}, auto.auto_report


def cpu_seconds(pids):
    tick = os.sysconf('SC_CLK_TCK')
    total = 0.0
    for pid in [os.getpid()] + list(pids):
        try:
            with open(f'/proc/{pid}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def measure(env_name, n, steps, rounds):
    runners, auto_report = build_runners(env_name, n, steps)
    rates = {name: [] for name in runners}
    cpu = {name: [] for name in runners}
    steal = {name: [] for name in runners}
    try:
        for r in runners.values():
            r.run(20)  # warm-up
        for _ in range(rounds):
            for name, runner in runners.items():
                c0, t0 = cpu_seconds(runner.pids), time.perf_counter()
                with CpuTimes() as machine:
                    runner.run(steps)
                wall = time.perf_counter() - t0
                rates[name].append(steps * n / wall)
                cpu[name].append((cpu_seconds(runner.pids) - c0) / wall)
                steal[name].append(machine.fractions['steal'])
    finally:
        for r in runners.values():
            r.close()
    median = {k: statistics.median(v) for k, v in rates.items()}
    best = max((k for k in median if not k.startswith('bare') and k not in ('auto', 'no_ipc_ceiling')), key=median.get)
    best_manager = max(AUTO_CHOICES, key=median.get)  # what auto chooses between
    return dict(env=env_name, env_num=n, steps_per_round=steps, rounds=rounds,
                env_steps_per_s=median, all_rounds=rates,
                cores_busy={k: statistics.median(v) for k, v in cpu.items()},
                cpu_stolen={k: statistics.median(v) for k, v in steal.items()},
                env_steps_per_core_s={k: statistics.median(r / max(c, 1e-9) for r, c in zip(rates[k], cpu[k]))
                                      for k in rates},
                auto_picked=auto_report['picked'], auto_probe=auto_report['env_steps_per_s'], best_mode=best,
                best_manager=best_manager,
                ratios=dict(subprocess_vs_serial=median['subprocess'] / median['serial'],
                            ceiling_vs_serial=median['no_ipc_ceiling'] / median['serial'],
                            best_process_mode_vs_ceiling=max(median[k] for k in PROCESS_MODES) / median['no_ipc_ceiling'],
                            subprocess_vs_bare_async=median['subprocess'] / median['bare_async_vector'],
                            serial_vs_bare_sync=median['serial'] / median['bare_sync_vector'],
                            auto_vs_best_manager=median['auto'] / median[best_manager],
                            auto_vs_best_mode=median['auto'] / median[best]))


def markdown(results):
    """One table of rates (a row per mode), one of the ratios the bars name."""
    envs = [r['env'] for r in results]
    lines = [f"| mode (x{results[0]['env_num']} envs) | " + ' | '.join(envs) + ' |', '|---' * (len(envs) + 1) + '|']
    for m in results[0]['env_steps_per_s']:
        cells = [f"{r['env_steps_per_s'][m]:,.0f} ({100 * r['cpu_stolen'][m]:.0f}%)" for r in results]
        lines.append(f'| {m} | ' + ' | '.join(cells) + ' |')
    lines += ['', 'env steps/s, median over rounds (in brackets: share of CPU time stolen by the hypervisor '
              'during that mode\'s rounds).', '',
              '| ratio | ' + ' | '.join(envs) + ' |', '|---' * (len(envs) + 1) + '|']
    names = dict(subprocess_vs_serial='subprocess / serial', ceiling_vs_serial='no-IPC 2-process ceiling / serial',
                 best_process_mode_vs_ceiling='best process mode / ceiling',
                 subprocess_vs_bare_async='subprocess / bare AsyncVectorEnv', serial_vs_bare_sync='serial / bare SyncVectorEnv',
                 auto_vs_best_manager='auto / best manager it chooses from')
    for key, label in names.items():
        lines.append(f'| {label} | ' + ' | '.join(f"{r['ratios'][key]:.2f}" for r in results) + ' |')
    lines.append('| auto picked | ' + ' | '.join(r['auto_picked'] for r in results) + ' |')
    return '\n'.join(lines) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=1000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--envs', type=int, default=8)
    parser.add_argument('--only', nargs='*', default=list(ENVS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    results = [measure(name, args.envs, args.steps, args.rounds) for name in args.only]
    out = dict(benchmark='sampling', date=datetime.datetime.now(datetime.timezone.utc).isoformat(),
               machine=dict(cpus=os.cpu_count(), python=platform.python_version(), torch=torch.__version__),
               note='env steps/s, median over rounds; modes alternate round by round', results=results)
    os.makedirs(RESULTS, exist_ok=True)
    atomic_write_json(os.path.join(RESULTS, 'sampling.json'), out)
    table = markdown(results)
    atomic_write_text(os.path.join(RESULTS, 'sampling.md'), '# Sampling throughput (env steps/s)\n\n' + table)
    print(table)


if __name__ == '__main__':
    main()
