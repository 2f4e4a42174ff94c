"""DI-engine's command form: `ding -m serial|serial_onpolicy|serial_offline|eval -c CONFIG.py -s SEED`.

`-s` may repeat (one run per seed, run directories `<exp_name>_seed<N>` when several).
`serial` and `serial_onpolicy` run the pipeline the policy's config implies (off-policy,
on-policy, or episodes for PG; see `ding.entry.pipeline`); `serial_offline` trains on the
config's dataset (`ding.entry.serial_offline`); `eval` evaluates a checkpoint
(`--ckpt`, default the run's best) of the run directory the config names.
"""
import argparse
import logging
import os
from typing import Any, List, Optional, Tuple

from ding.entry.arguments import Parser, positive_int, seed_value

MODES = ('serial', 'serial_onpolicy', 'serial_offline', 'eval')
logger = logging.getLogger('ding.entry')


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog='ding', description='DI-engine-style entry: ding -m MODE -c CONFIG -s SEED')
    parser.add_argument('-m', '--mode', required=True, help=f'one of {", ".join(MODES)}')
    parser.add_argument('-c', '--config', required=True, help='python config file with main_config, create_config')
    parser.add_argument('-s', '--seed', type=seed_value, action='append', help='seed (repeat for several runs)')
    parser.add_argument('--max-env-step', type=positive_int, default=int(1e10))
    parser.add_argument('--max-train-iter', type=positive_int, default=None)
    parser.add_argument('--checkpoint-freq', type=positive_int, default=10000,
                        help='env steps between resume checkpoints')
    parser.add_argument('--ckpt', default=None, help='(eval mode) checkpoint to evaluate')
    parser.add_argument('--episodes', type=int, default=None, help='(eval mode) episodes, default n_evaluator_episode')
    parser.add_argument('--resume', action='store_true',
                        help='(serial_offline) continue the run from its ckpt/run_state.pt')
    parser.add_argument('-v', '--verbose', action='store_true')
    return parser


def run_mode(mode: str, config_path: str, seed: int, exp_name: str, args: argparse.Namespace) -> None:
    from ding.config import read_config
    from ding.entry.catalog import choice_error
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import start_run, summary
    if mode not in MODES:
        raise choice_error('mode', mode, list(MODES))
    main, create = read_config(config_path)
    env = main.get('env', {}).get('env_id') or create.get('env', {}).get('type')  # dizoo's pendulum has no env_id
    info = {'algo': create.get('policy', {}).get('type'), 'env': env, 'source': config_path, 'mode': mode}
    if mode == 'serial_offline':
        from ding.entry.serial_offline import serial_pipeline_offline
        policy = serial_pipeline_offline((main, create), seed=seed, exp_name=exp_name,
                                         max_train_iter=args.max_train_iter or int(1e10), resume=args.resume,
                                         run_info=info)
        ctx = policy.final_ctx
        print(f'finished: train_iter={ctx.train_iter} epochs={ctx.train_epoch} last eval return='
              f'{ctx.last_eval_value:.2f}')
        return
    if mode == 'eval':
        from ding.entry.evaluate import evaluate
        path, render = eval_target(main, args.ckpt, exp_name)
        evaluate(path, episodes=args.episodes or int(main.get('env', {}).get('n_evaluator_episode', 5)),
                 render=render, seed=seed)
        return
    # The policy's `on_policy` flag picks the pipeline under either mode name.
    options = RunOptions(max_env_step=args.max_env_step, max_train_iter=args.max_train_iter,
                         checkpoint_freq=args.checkpoint_freq, stop_on_signals=True)
    print(summary(start_run(main, create, info, seed, options, exp_name)[1]))


def eval_target(main: Any, ckpt: Optional[str], exp_name: str) -> Tuple[str, Optional[str]]:
    """(what to evaluate, video file or None) for `-m eval`: `--ckpt`, else
    `policy.load_path` when that file exists, else the run's best checkpoint; the episodes are
    recorded as `<env.replay_path>/eval.gif` when the config sets `env.replay_path`."""
    load_path = (main.get('policy') or {}).get('load_path')
    path = ckpt or exp_name
    if not ckpt and load_path:
        if os.path.isfile(load_path):
            path = load_path
        else:
            logger.warning('policy.load_path %s does not exist; evaluating the best checkpoint of %s',
                           load_path, exp_name)
    replay_path = (main.get('env') or {}).get('replay_path')
    return path, os.path.join(replay_path, 'eval.gif') if replay_path else None


def main(argv: List[str]) -> int:
    from ding.config import read_config
    args = build_parser().parse_args(argv)
    seeds = args.seed or [0]
    base = read_config(args.config)[0].get('exp_name') or 'default_experiment'
    for seed in seeds:
        exp_name = base if len(seeds) == 1 else f'{base.replace("_seed0", "")}_seed{seed}'
        run_mode(args.mode, args.config, seed, exp_name, args)
    return 0
