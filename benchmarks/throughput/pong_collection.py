"""Atari Pong collection speed, side by side in one sitting: 8 envs of PongNoFrameskip-v4 under
DeepMind's wrapper stack (noop reset 30, max-and-skip 4, life loss ends a training episode,
FIRE on reset, 84x84 gray, reward clip, 4 stacked frames), in env steps per second of wall time.

Arms (`--arms`; each runs in a process of its own, rounds alternate the arms so that load
from elsewhere hits them alike):
- ours_subprocess_random / ours_subprocess_cnn: `SubprocessEnvManagerV2` (one worker per core,
  frame stacks built in the workers' shared memory), actions uniform or greedy from a Nature
  DQN CNN in the main process (`DQN` with `encoder_hidden_size_list=[32, 64, 64, 512]`, no
  dueling streams: the same network as the peers');
- ours_subprocess_random_copied: the same with one more (identity) layer after the frame
  stack, so the workers copy each stacked observation into shared memory as before;
- ours_alternating_cnn: the `alternating` sampler (two groups of 4 envs: one group's forward
  runs while the other steps), rollouts of 64 steps recorded as transitions;
- ours_worker_inference_cnn: the `worker_inference` sampler, the same CNN acting in the
  workers, rollouts of 64 steps;
- sb3_random / sb3_cnn: SB3's `SubprocVecEnv` of `make_atari_env` + `VecFrameStack(4)`, with
  SB3's DQN `CnnPolicy` (benchmarks/compare/runners/pong_collection_peers.py, venv `sb3_atari`);
- envpool_random / envpool_cnn: EnvPool's `Pong-v5`, the same settings stepped in C++ threads:
  the ceiling (venv `envpool`).
Every process uses one torch thread (2 cores, 8 envs).

    python benchmarks/throughput/pong_collection.py [--rounds 3] [--steps 1000]
Writes benchmarks/results/pong_collection.json; docs/performance.md quotes it (which manager to pick).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[1]
sys.path.append(str(BENCHMARKS))
sys.path.append(str(BENCHMARKS / 'compare'))
sys.path.append(str(BENCHMARKS / 'compare' / 'runners'))
N_ACTIONS = 6
ARMS = ('ours_subprocess_random', 'ours_subprocess_random_copied', 'ours_subprocess_cnn', 'ours_alternating_cnn',
        'ours_worker_inference_cnn', 'sb3_random', 'sb3_cnn', 'envpool_random', 'envpool_cnn')
PEER_VENV = {'sb3': 'sb3_atari', 'envpool': 'envpool'}


class PongFn:
    """A picklable env factory: DI-engine's Atari env for training; `copied` puts an identity
    layer after the frame stack, which turns off stacking in shared memory."""

    def __init__(self, copied: bool = False) -> None:
        self.copied = copied

    def __call__(self):
        import gymnasium
        from dizoo.atari.envs.atari_env import AtariEnv
        env = AtariEnv(dict(env_id='PongNoFrameskip-v4'))
        if self.copied:
            env._env = gymnasium.Wrapper(env._env)
            env.gym_step = env._env.step
        return env


def nature_dqn():
    from ding.model import DQN
    # the Nature DQN network, as SB3's CnnPolicy and the EnvPool arm have it: no dueling streams
    return DQN(obs_shape=[4, 84, 84], action_shape=N_ACTIONS, encoder_hidden_size_list=[32, 64, 64, 512],
               dueling=False, head_layer_num=0).eval()


def ours_loop(arm: str, envs: int, seed: int):
    """(step() -> batched steps done, close) for one of our arms."""
    import torch
    from ding.envs import SubprocessEnvManagerV2
    from ding.envs.env_manager.alternating_sampler import AlternatingSampler
    from ding.envs.env_manager.worker_inference import WorkerInferenceSampler
    fns = [PongFn(copied=arm.endswith('_copied')) for _ in range(envs)]
    kind = {'ours_alternating_cnn': AlternatingSampler, 'ours_worker_inference_cnn': WorkerInferenceSampler}
    manager = kind.get(arm, SubprocessEnvManagerV2)(fns)
    manager.seed(seed)
    manager.launch()
    model = nature_dqn() if arm.endswith('_cnn') else None
    rng = np.random.default_rng(seed)
    rollout = 64

    def greedy(obs):
        with torch.no_grad():
            return model(torch.from_numpy(obs))['logit'].argmax(1).numpy()

    def step_batch():
        manager.step_batch(greedy(manager.ready_obs) if model is not None else rng.integers(0, N_ACTIONS, envs))
        return 1

    def alternating_rollout():
        manager.collect_steps(lambda obs: {'action': greedy(obs)}, rollout)
        return rollout

    def worker_rollout():
        manager.collect_rollout(rollout, dict(eps=0.0))
        return rollout

    if arm == 'ours_worker_inference_cnn':
        from ding.policy.worker_actor import EpsGreedyActor
        manager.bind_actor(lambda: EpsGreedyActor(nature_dqn), model.state_dict())
        return worker_rollout, manager.close
    return (alternating_rollout if arm == 'ours_alternating_cnn' else step_batch), manager.close


def run_arm(args: argparse.Namespace) -> None:
    """One arm in this process: warm up, time `--steps` batched steps, print a JSON line."""
    import torch
    torch.set_num_threads(1)
    from pong_collection_peers import timed_run
    step, close = ours_loop(args.arm, args.envs, args.seed)
    print(json.dumps(dict(arm=args.arm, **timed_run(step, close, args.warmup, args.steps, args.envs))), flush=True)


def arm_command(arm: str, args: argparse.Namespace) -> list:
    common = ['--arm', arm, '--envs', str(args.envs), '--steps', str(args.steps), '--warmup', str(args.warmup),
              '--seed', str(args.seed)]
    peer = arm.split('_')[0]
    if peer == 'ours':
        return [sys.executable, str(Path(__file__).resolve())] + common
    from venvs import DEFAULT_VENV_ROOT, ensure_venv
    py = ensure_venv(Path(args.venv_root or DEFAULT_VENV_ROOT), PEER_VENV[peer])
    return [str(py), str(BENCHMARKS / 'compare' / 'runners' / 'pong_collection_peers.py')] + common


def drive(args: argparse.Namespace) -> dict:
    from machine_load import CpuTimes
    arms = args.arms.split(',')
    unknown = sorted(set(arms) - set(ARMS))
    if unknown:
        raise SystemExit(f'unknown arms {unknown}; known: {list(ARMS)}')
    env = dict(os.environ, OMP_NUM_THREADS='1', PYTHONPATH=str(BENCHMARKS.parent))
    rates = {arm: [] for arm in arms}
    load_start = os.getloadavg()
    with CpuTimes() as cpu:
        for r in range(args.rounds):
            for arm in arms:
                out = subprocess.run(arm_command(arm, args), env=env, capture_output=True, text=True, timeout=900)
                lines = [ln for ln in out.stdout.splitlines() if ln.startswith('{')]
                if out.returncode != 0 or not lines:
                    raise RuntimeError(f'arm {arm} failed (exit {out.returncode}):\n{out.stderr[-3000:]}')
                rate = json.loads(lines[-1])['env_steps_per_s']
                rates[arm].append(rate)
                print(f'round {r} {arm:32s} {rate:8.0f} env steps/s', flush=True)
    median = {arm: statistics.median(v) for arm, v in rates.items()}
    return dict(
        benchmark='Pong collection, 8 envs, DeepMind wrappers, env steps per wall second (median of rounds)',
        date=datetime.now(timezone.utc).isoformat(timespec='seconds'), cpus=os.cpu_count(),
        envs=args.envs, steps_per_round=args.steps, warmup=args.warmup, rounds=args.rounds,
        loadavg_start=load_start, loadavg_end=os.getloadavg(), cpu=cpu.fractions,
        env_steps_per_s=rates, median_env_steps_per_s=median, ratios=ratios(median))


def ratios(median: dict) -> dict:
    """Each arm over EnvPool's and SB3's arm with the same actions (random or CNN)."""
    out = {}
    for arm, rate in median.items():
        kind = 'cnn' if arm.endswith('_cnn') else 'random'
        ceiling, sb3 = median.get(f'envpool_{kind}'), median.get(f'sb3_{kind}')
        out[arm] = dict(of_envpool=rate / ceiling if ceiling else None, over_sb3=rate / sb3 if sb3 else None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--arm', help='run one of our arms in this process (what the driver calls)')
    parser.add_argument('--arms', default=','.join(ARMS))
    parser.add_argument('--envs', type=int, default=8)
    parser.add_argument('--steps', type=int, default=1000, help='batched steps timed per arm and round')
    parser.add_argument('--warmup', type=int, default=128)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--venv-root', help='where the peer venvs live (default benchmarks/compare/.venvs)')
    parser.add_argument('--out', default=str(BENCHMARKS / 'results' / 'pong_collection.json'))
    args = parser.parse_args()
    if args.arm:
        run_arm(args)
        return
    result = drive(args)
    from ding.utils.fileio import atomic_write_json
    atomic_write_json(args.out, result)
    print(json.dumps(dict(median=result['median_env_steps_per_s'], ratios=result['ratios']), indent=1))


if __name__ == '__main__':
    main()
