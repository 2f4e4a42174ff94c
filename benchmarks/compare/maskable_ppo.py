"""Masked PPO, ours against sb3-contrib's MaskablePPO, side by side on the masking test env (issue 39).

    python benchmarks/compare/maskable_ppo.py                      # seeds 1000 1001 1002, 20,480 env steps
    python benchmarks/compare/maskable_ppo.py --table-only         # print the table of the results JSON

The env is `tests/policy/action_mask_env.py`: 8 actions, a random subset allowed each step, +1
for the target, -10 and the end of the episode for a forbidden one, 10 steps, so 10 is the best
return; solved here at a mean greedy return of 9.5 (the masking test's stop value). sb3-contrib
publishes no settings for it, so both run one recipe, MaskablePPO's defaults (`RECIPE` in
`maskable_ppo_sb3c.py`), and the same network. MaskablePPO runs in its own venv
(`/work/peers/sb3c`: torch 2.13.0 first, then sb3-contrib and gymnasium) through
`maskable_ppo_sb3c.py`; sides alternate seed by seed, one at a time, 1 torch thread each. Both
train for the whole env-step budget (no early stop at the threshold) and are evaluated after
every rollout of 2,048 env steps (and once untrained, untimed) with the same greedy evaluation
(`evaluate`), whose time is counted in the wall time. Writes `benchmarks/results/maskable_ppo.json`."""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from maskable_ppo_sb3c import EVAL_EPISODES, HIDDEN, RECIPE, evaluate, load_env_module  # noqa: E402
from seed_guard import SeedRefused, check_reporting_seeds  # noqa: E402

REPO_ROOT = HERE.parents[1]
RESULTS = REPO_ROOT / 'benchmarks' / 'results' / 'maskable_ppo.json'
PEER_PYTHON = Path('/work/peers/sb3c/bin/python')
SOLVED = 9.5  # tests/policy/test_action_mask.py's stop value: EPISODE_STEPS - 0.5
FRAMEWORKS = ('ours', 'sb3c')


def run_ours(seed: int, max_env_step: int, threads: int) -> Dict[str, Any]:
    import torch
    from easydict import EasyDict

    import ding
    from ding.config import compile_config
    from ding.data.batch import Batch
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper
    from ding.framework import ding_init, task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import StepCollector, gae_estimator, multistep_trainer, termination_checker
    from ding.utils import set_pkg_seed
    from ding.utils.registry import POLICY_REGISTRY
    torch.set_num_threads(threads)
    env_module = load_env_module()
    r = RECIPE
    model = dict(obs_shape=env_module.N_ACTIONS, action_shape=env_module.N_ACTIONS, action_space='discrete',
                 share_encoder=False, encoder_hidden_size_list=[HIDDEN], actor_head_hidden_size=HIDDEN,
                 actor_head_layer_num=1, critic_head_hidden_size=HIDDEN, critic_head_layer_num=1)  # 2 x 64 each
    policy_cfg = dict(action_space='discrete', model=model,
                      learn=dict(epoch_per_collect=r['n_epochs'], batch_size=r['batch_size'],
                                 learning_rate=r['learning_rate'], clip_ratio=r['clip_range'],
                                 entropy_weight=r['ent_coef'], value_weight=r['vf_coef'],
                                 grad_clip_value=r['max_grad_norm'], adv_norm=r['normalize_advantage']),
                      collect=dict(n_sample=r['n_steps'], discount_factor=r['gamma'], gae_lambda=r['gae_lambda']))
    env_cfg = dict(collector_env_num=r['n_envs'], evaluator_env_num=1, stop_value=SOLVED)
    cfg = compile_config(EasyDict(dict(exp_name=f'maskable_ppo_ours_{seed}', env=env_cfg, policy=policy_cfg)),
                         create_cfg=EasyDict(dict(env_manager=dict(type='base'), policy=dict(type='ppo'))),
                         auto=True, save_cfg=False)
    env_module.MaskedTargets.invalid_taken = 0
    curve: List[Dict[str, Any]] = []
    timing = dict(eval_s=0.0)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        envs = BaseEnvManagerV2([lambda: DingEnvWrapper(env_module.MaskedTargets())], cfg.env.manager)
        envs.seed(seed)
        set_pkg_seed(seed)
        policy = POLICY_REGISTRY.lookup('ppo')(cfg.policy)
        n_params = sum(p.numel() for p in policy._model.parameters())

        def act(observation, mask):
            batch = Batch(observation=observation[None], action_mask=mask[None])
            return int(policy.eval_mode.forward_batch(batch)['action'].reshape(-1)[0])

        def evaluate_after_update(ctx):
            t = time.perf_counter()
            curve.append(dict(env_step=int(ctx.env_step), **evaluate(act, seed, env_module)))
            timing['eval_s'] += time.perf_counter() - t

        evaluate_after_update(OnlineRLContext())  # untrained (env_step 0), outside the timed span
        timing['eval_s'] = 0.0
        task.use(StepCollector(cfg, policy.collect_mode, envs))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=10**9))
        task.use(evaluate_after_update)
        task.use(termination_checker(max_env_step=max_env_step))
        start, cpu_start = time.perf_counter(), time.process_time()
        task.run()
        wall_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
        envs.close()
    return dict(framework='ours PPO, masked', version=getattr(ding, '__version__', 'unknown'),
                torch=torch.__version__, seed=seed, curve=curve, wall_s=wall_s, cpu_s=cpu_s, eval_s=timing['eval_s'],
                env_steps=int(curve[-1]['env_step']), n_params=n_params,
                invalid_actions_in_training=env_module.MaskedTargets.invalid_taken
                - sum(c['invalid_actions'] for c in curve))


def run_peer(seed: int, max_env_step: int, threads: int) -> Dict[str, Any]:
    if not PEER_PYTHON.exists():
        raise SystemExit(f'{PEER_PYTHON} not found: python3 -m venv /work/peers/sb3c && '
                         '/work/peers/sb3c/bin/pip install torch==2.13.0 && '
                         '/work/peers/sb3c/bin/pip install torch==2.13.0 sb3-contrib gymnasium')
    out = subprocess.run([str(PEER_PYTHON), str(HERE / 'maskable_ppo_sb3c.py'), '--seed', str(seed),
                          '--max-env-step', str(max_env_step), '--threads', str(threads)],
                         capture_output=True, text=True, check=False, env=dict(os.environ, PYTHONPATH=''))
    if out.returncode != 0:
        raise SystemExit(f'sb3-contrib runner failed (seed {seed}): {out.stderr.strip().splitlines()[-1:]}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarise(run: Dict[str, Any]) -> Dict[str, Any]:
    """The table's figures for one run, from its evaluation curve."""
    returns = [c['mean_return'] for c in run['curve']]
    reached = next((c['env_step'] for c in run['curve'] if c['mean_return'] >= SOLVED), None)
    return dict(untrained_return=returns[0], final_return=returns[-1], best_return=max(returns), steps_to_solved=reached,
                eval_invalid_actions=sum(c['invalid_actions'] for c in run['curve']),
                train_invalid_actions=run['invalid_actions_in_training'], wall_s=run['wall_s'], cpu_s=run['cpu_s'],
                env_steps_per_s=run['env_steps'] / run['wall_s'], env_steps=run['env_steps'])


def _steps(value: Optional[int], budget: int) -> str:
    return f'{value:,}' if value is not None else f'not reached in {budget:,}'


def markdown(data: Dict[str, Any]) -> str:
    """One row per framework and seed, then each framework's medians."""
    budget = data['max_env_step']
    lines = [f"Masking test env, {budget:,} env steps per run, seeds {', '.join(map(str, data['seeds']))}; "
             f"{data['eval_episodes']} greedy episodes after every rollout; solved at {data['solved']}. "
             f"Network: {data['network']}; parameters: "
             + ', '.join(f"{r['framework']} {r['n_params']:,}" for r in _one_per_framework(data['runs']))
             + ". Recipe (both, sb3-contrib's MaskablePPO defaults): "
             + ', '.join(f'{k} {v}' for k, v in data['recipe'].items()) + '.', '',
             '| framework | seed | untrained return | final return | best return | env steps to solved | forbidden actions (eval / training) '
             '| wall s | CPU s | env steps/s (wall) | load avg (1 min, before / after) |',
             '|---|---|---|---|---|---|---|---|---|---|---|']
    for framework in FRAMEWORKS:
        runs = [r for r in data['runs'] if r['key'] == framework]
        for run in runs:
            s = summarise(run)
            lines.append(f"| {run['framework']} | {run['seed']} | {s['untrained_return']:.2f} | {s['final_return']:.2f} | {s['best_return']:.2f} | "
                         f"{_steps(s['steps_to_solved'], budget)} | {s['eval_invalid_actions']} / "
                         f"{s['train_invalid_actions']} | {s['wall_s']:.1f} | {s['cpu_s']:.1f} | {s['env_steps_per_s']:,.0f} | "
                         f"{_load(run)} |")
    lines += ['', 'Versions: ' + '; '.join(f"{r['framework']} {r['version']} (torch {r['torch']})"
                                           for r in _one_per_framework(data['runs'])) + '.']
    return '\n'.join(lines)


def _load(run: Dict[str, Any]) -> str:
    loads = run.get('load_avg_1min')
    return ' / '.join(f'{x:.1f}' for x in loads) if loads else 'not recorded'


def _one_per_framework(runs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    seen: Dict[str, Dict[str, Any]] = {}
    for run in runs:
        seen.setdefault(run['key'], run)
    return list(seen.values())


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seeds', type=int, nargs='+', default=[1000, 1001, 1002])
    parser.add_argument('--max-env-step', type=int, default=10 * RECIPE['n_steps'])
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--frameworks', nargs='+', choices=FRAMEWORKS, default=list(FRAMEWORKS))
    parser.add_argument('--out', type=Path, default=RESULTS)
    parser.add_argument('--table-only', action='store_true')
    args = parser.parse_args(argv)
    if args.table_only:
        print(markdown(json.loads(args.out.read_text())))
        return 0
    try:
        check_reporting_seeds(args.seeds)
    except SeedRefused as err:
        print(err, file=sys.stderr)
        return 2
    runs = []
    for seed in args.seeds:  # alternate the sides seed by seed, one at a time
        for key in args.frameworks:
            load_before = os.getloadavg()[0]
            run = (run_ours if key == 'ours' else run_peer)(seed, args.max_env_step, args.threads)
            run.update(key=key, load_avg_1min=[load_before, os.getloadavg()[0]])  # other jobs share the cores
            runs.append(run)
            s = summarise(run)
            print(f"{key} seed {seed}: final {s['final_return']:.2f} best {s['best_return']:.2f} "
                  f"solved at {s['steps_to_solved']} invalid {s['eval_invalid_actions']}/{s['train_invalid_actions']} "
                  f"{s['wall_s']:.1f} s", flush=True)
    data = dict(what='masked PPO, ours against sb3-contrib MaskablePPO, on tests/policy/action_mask_env.py',
                seeds=args.seeds, max_env_step=args.max_env_step, solved=SOLVED, eval_episodes=EVAL_EPISODES,
                recipe=RECIPE, network=f'actor and critic each 8 -> {HIDDEN} -> {HIDDEN} (tanh) -> head, separate',
                torch_threads=args.threads, runs=runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + '\n')
    print(markdown(data))
    return 0


if __name__ == '__main__':
    sys.exit(main())
