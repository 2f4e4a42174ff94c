"""BenchMARL's MAPPO on MPE simple_spread, timed to a greedy return in ding's metric (one seed).

Runs in BenchMARL's own venv (`venvs.py benchmarl`), e.g.
    benchmarks/compare/.venvs/benchmarl/bin/python benchmarks/compare/benchmarl_mappo.py --seed 1000 \
        --out /tmp/bm.json [--max-frames 300000] [--max-wall-s 10800] [--set lr=0.0005 ...]  (--set: not in tables)
benchmarks/compare/mappo_vs_benchmarl.py drives it next to ours.

Task: BenchMARL's `PettingZooTask.SIMPLE_SPREAD` builds mpe2's `simple_spread_v3` with N=3,
local_ratio=0.5 and max_cycles=100; we override max_cycles to 25 (ours) and set
`prefer_continuous_actions=False` (BenchMARL prefers continuous actions; ours are discrete).
With pettingzoo 1.27, torchrl 0.11 cannot find the MPE envs (`pettingzoo.mpe` now raises
ImportError pointing at mpe2, which torchrl's fallback does not catch), so `_point_torchrl_at_mpe2`
hands torchrl mpe2's module: the same env ding's dizoo wraps.

Hyperparameters: BenchMARL's own MAPPO defaults, unchanged (conf/algorithm/mappo.yaml,
conf/experiment/base_experiment.yaml, conf/model/layers/mlp.yaml): lr 5e-5, Adam eps 1e-6,
gamma 0.99, GAE lambda 0.9, clip 0.2, entropy 0, critic coef 1, grad-norm clip 5,
6,000 frames per iteration from 10 envs, 45 passes of 15 minibatches of 400 per iteration,
shared actor and critic params, centralised critic on the global state, MLP [256, 256] tanh.
Only protocol settings change: evaluation every iteration (6,000 frames, its smallest allowed
interval), 10 deterministic episodes, no rendering, no checkpoints, loggers off (json only,
which BenchMARL needs to run evaluations at all), 1 torch thread, CPU.

Metric: mpe2 gives agent i the reward r_i = 0.5 g + 0.5 l_i (g the global distance term,
l_i its collision penalty). ding's team reward per step is sum_i (g + l_i) = 2 sum_i r_i
(dizoo/petting_zoo/envs/petting_zoo_simple_spread_env.py), so the return in ding's metric is
2 x the sum over agents and steps of BenchMARL's per-agent rewards (`team_return`);
`check_metric` verifies the identity on mpe2 directly, and the driver checks it against
ding's env.

Wall time: from just before `Experiment.run()` (after model, collector and env construction)
to the end of the evaluation that first reaches the threshold: evaluations included.
"""
import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch

from benchmarl.algorithms import MappoConfig
from benchmarl.environments import PettingZooTask
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.experiment.callback import Callback
from benchmarl.models.mlp import MlpConfig


class StopRun(Exception):
    """Raised from the callback to end `Experiment.run()` (it has no early-stop hook)."""


def _point_torchrl_at_mpe2() -> None:
    import torchrl.envs.libs.pettingzoo as tr_pz
    from mpe2 import simple_spread_v3
    tr_pz._load_available_envs = lambda: {'simple_spread_v3': simple_spread_v3}


def check_metric(seed: int = 0, steps: int = 25) -> float:
    """Largest |2 sum_i r_i - sum_i (g + l_i)| over a random episode of mpe2's simple_spread."""
    from mpe2 import simple_spread_v3
    env = simple_spread_v3.parallel_env(N=3, local_ratio=0.5, max_cycles=steps, continuous_actions=False)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(steps):
        _, rewards, _, _, _ = env.step({a: int(rng.integers(5)) for a in env.agents})
        g = raw.scenario.global_reward(raw.world)
        ding_team = sum(g + raw.scenario.reward(agent, raw.world) for agent in raw.world.agents)
        worst = max(worst, abs(2 * sum(rewards.values()) - ding_team))
    return worst


def team_return(rollout, groups) -> float:
    """ding's metric for one episode: 2 x the sum over agents and steps of per-agent rewards."""
    return 2.0 * float(sum(rollout.get(('next', group, 'reward')).sum() for group in groups))


class ThresholdRecorder(Callback):

    def __init__(self, threshold: float, max_frames: int, max_wall_s: float):
        super().__init__()
        self.threshold, self.max_frames, self.max_wall_s = threshold, max_frames, max_wall_s
        self.t0 = None
        self.record = {'reached': False, 'evals': []}

    def on_evaluation_end(self, rollouts):
        wall = time.perf_counter() - self.t0
        exp = self.experiment
        groups = list(exp.group_map.keys())
        mean = float(np.mean([team_return(r, groups) for r in rollouts]))
        lengths = sorted({int(r.batch_size[0]) for r in rollouts})
        self.record['evals'].append((int(exp.total_frames), int(exp.n_iters_performed), round(wall, 3), round(mean, 2)))
        self.record['eval_episode_lengths'] = lengths
        if mean >= self.threshold:
            self.record.update(reached=True, env_steps=int(exp.total_frames), wall_s=round(wall, 2), stop='threshold')
            raise StopRun('threshold')
        if exp.total_frames >= self.max_frames:
            self.record['stop'] = 'env_step_budget'
            raise StopRun('budget')
        if wall >= self.max_wall_s:  # the harness's safety cap: the driver gives such a run no ratio
            self.record['stop'] = 'wall_cap'
            raise StopRun('wall cap')


def build(seed: int, args, recorder: ThresholdRecorder, save_folder: str) -> Experiment:
    task = PettingZooTask.SIMPLE_SPREAD.get_from_yaml()
    defaults = dict(task.config)
    task.config.update(max_cycles=25)  # ours; BenchMARL's yaml says 100
    cfg = ExperimentConfig.get_from_yaml()
    cfg.prefer_continuous_actions = False
    cfg.sampling_device = cfg.train_device = cfg.buffer_device = 'cpu'
    cfg.max_n_frames = args.max_frames + cfg.on_policy_collected_frames_per_batch  # the recorder stops first
    cfg.evaluation = True
    cfg.evaluation_interval = cfg.on_policy_collected_frames_per_batch
    cfg.evaluation_episodes = args.eval_episodes
    cfg.evaluation_deterministic_actions = True
    cfg.render = False
    cfg.loggers = []
    cfg.create_json = True
    cfg.checkpoint_interval = 0
    cfg.checkpoint_at_end = False
    cfg.save_folder = save_folder
    for key, value in args.set.items():  # sensitivity runs only (the comparison uses none)
        if not hasattr(cfg, key):
            raise KeyError(f'--set {key}: not an ExperimentConfig field')
        setattr(cfg, key, value)
    recorder.record['overrides'] = dict(args.set)
    recorder.record['task_config'] = {'yaml': defaults, 'used': dict(task.config)}
    recorder.record['hyperparameters'] = {
        k: getattr(cfg, k) for k in ('gamma', 'lr', 'adam_eps', 'clip_grad_norm', 'clip_grad_val',
                                     'on_policy_collected_frames_per_batch', 'on_policy_n_envs_per_worker',
                                     'on_policy_n_minibatch_iters', 'on_policy_minibatch_size',
                                     'share_policy_params')}
    algo = MappoConfig.get_from_yaml()
    recorder.record['hyperparameters'].update(vars(algo))
    model = MlpConfig.get_from_yaml()
    recorder.record['hyperparameters']['mlp'] = {'num_cells': list(model.num_cells),
                                                 'activation': model.activation_class.__name__}
    return Experiment(task=task, algorithm_config=algo, model_config=model,
                      critic_model_config=MlpConfig.get_from_yaml(), seed=seed, config=cfg, callbacks=[recorder])


def run_seed(seed: int, args) -> dict:
    recorder = ThresholdRecorder(args.threshold, args.max_frames, args.max_wall_s)
    with tempfile.TemporaryDirectory() as save_folder:
        experiment = build(seed, args, recorder, save_folder)
        recorder.t0 = time.perf_counter()
        try:
            experiment.run()
        except StopRun:
            pass
        recorder.record['total_wall_s'] = round(time.perf_counter() - recorder.t0, 2)
    return dict(seed=seed, **recorder.record)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--threshold', type=float, default=-130.0)
    parser.add_argument('--max-frames', type=int, default=300_000)
    parser.add_argument('--max-wall-s', type=float, default=3 * 3600.0, help='a safety cap, sized not to bind')
    parser.add_argument('--eval-episodes', type=int, default=10)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--set', nargs='*', default=[], help='ExperimentConfig overrides, e.g. lr=0.0005')
    parser.add_argument('--out', required=True)
    args = parser.parse_args()
    args.set = {k: json.loads(v) for k, v in (s.split('=', 1) for s in args.set)}
    torch.set_num_threads(args.threads)
    _point_torchrl_at_mpe2()
    mismatch = check_metric()
    if mismatch > 1e-9:
        raise RuntimeError(f'2 x sum of mpe2 rewards differs from ding team reward by {mismatch}')
    record = run_seed(args.seed, args)
    record.update(threads=args.threads, metric_check_max_abs_err=mismatch, load_end=os.getloadavg())
    tmp = args.out + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(record, f, indent=1, default=str)
    os.replace(tmp, args.out)
    print(json.dumps({k: record.get(k) for k in ('seed', 'reached', 'env_steps', 'wall_s', 'total_wall_s')}))
    print('last evals', record['evals'][-3:])


if __name__ == '__main__':
    main()
