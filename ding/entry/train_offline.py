"""`ding train --algo cql --env Pendulum-v1 --dataset PATH [--max-train-iter N]`: an offline run
on a dataset file, through `serial_pipeline_offline` with the offline tuned pair of (algo, env)
(`ding list`: its threshold is the stop value, its budget the default --max-train-iter), else the
dizoo offline config of (algo, env), and `policy.collect.data_path` set to PATH (its type from the path: a directory is
a Minari dataset, `.pkl` naive, else hdf5, whose reader also recognises D4RL's layout). `--config` overrides,
`--seed` and `--exp-name` work as for online runs; checkpoints go to the run directory, and
`run.json` records the run (with the dataset's size and sha256) for `ding resume RUN_DIR`.
"""
import argparse
import copy
import importlib
from typing import Any, Dict, Tuple

from ding.entry.arguments import UsageError, parse_overrides

# (algo, env) -> the dizoo config module of the offline run
OFFLINE_CONFIGS: Dict[Tuple[str, str], str] = {
    ('cql', 'Pendulum-v1'): 'dizoo.classic_control.pendulum.config.pendulum_cql_config',
    ('td3_bc', 'Pendulum-v1'): 'dizoo.classic_control.pendulum.config.pendulum_td3_bc_config',
    ('iql', 'Pendulum-v1'): 'dizoo.classic_control.pendulum.config.pendulum_iql_config',
    ('bcq', 'Pendulum-v1'): 'dizoo.classic_control.pendulum.config.pendulum_bcq_config',
    ('edac', 'Pendulum-v1'): 'dizoo.classic_control.pendulum.config.pendulum_edac_config',
    ('cql', 'CartPole-v0'): 'dizoo.classic_control.cartpole.config.cartpole_cql_config',
    ('bc', 'CartPole-v0'): 'dizoo.classic_control.cartpole.config.cartpole_bc_config',
}
SEQUENCE_TYPES = ('sequence', 'd4rl_trajectory')  # Decision Transformer's datasets (ding/data/sequence_dataset.py)


def offline_pairs() -> Dict[Tuple[str, str], Any]:
    """(algo, env) -> the offline tuned pair (ding/config/tuned, `ding list`)."""
    from ding.entry.catalog import tuned_configs
    return {(t.algo, t.env): t for t in tuned_configs() if t.offline}


def offline_config(algo: str, env: str) -> Tuple[Any, Any, Dict[str, Any]]:
    """(main, create, info): the tuned pair's (info: its threshold and update budget), else the dizoo config's."""
    tuned = offline_pairs().get((algo, env))
    if tuned is not None:
        main, create = tuned.load()
        return main, create, {'source': tuned.path, 'threshold': tuned.threshold,
                              'budget_train_iter': tuned.budget_train_iter}
    key = (algo, env)
    if key not in OFFLINE_CONFIGS:
        choices = ', '.join(f'--algo {a} --env {e}' for a, e in sorted(set(OFFLINE_CONFIGS) | set(offline_pairs())))
        raise UsageError(f'no offline config for --algo {algo} --env {env}; valid choices: {choices}')
    module = importlib.import_module(OFFLINE_CONFIGS[key])
    return copy.deepcopy(module.main_config), copy.deepcopy(module.create_config), {'source': OFFLINE_CONFIGS[key]}


def main(args: argparse.Namespace) -> int:
    import os

    from easydict import EasyDict

    from ding.data.offline_dataset import data_type_of_path
    from ding.entry.serial_offline import serial_pipeline_offline
    from ding.utils.dicts import deep_merge
    if not args.algo or not args.env:
        raise UsageError('an offline run needs --algo and --env with --dataset')
    if not os.path.exists(args.dataset):
        raise FileNotFoundError(f'--dataset {args.dataset}: no such file or directory')
    main_cfg, create_cfg, info = offline_config(args.algo, args.env)
    main_cfg = EasyDict(deep_merge(main_cfg, parse_overrides(args.config)))
    main_cfg.policy.collect.data_path = os.path.abspath(args.dataset)
    if main_cfg.policy.collect.get('data_type') not in SEQUENCE_TYPES:  # DT reads the file as episodes' windows
        main_cfg.policy.collect.data_type = data_type_of_path(args.dataset)
    exp_name = args.exp_name or f'{args.algo}_{args.env.lower()}_offline_seed{args.seed}'
    max_train_iter = args.max_train_iter or info.get('budget_train_iter') or int(1e10)
    policy = serial_pipeline_offline((main_cfg, create_cfg), seed=args.seed, max_train_iter=max_train_iter,
                                     checkpoint_freq=args.checkpoint_freq, exp_name=exp_name,
                                     run_info={'algo': args.algo, 'env': args.env, **info},
                                     keep_checkpoints=getattr(args, 'keep_checkpoints', None))
    print(f'{offline_summary(policy.final_ctx)} run_dir={exp_name}')
    return 0


def offline_summary(ctx: Any) -> str:
    return (f'finished: train_iter={ctx.train_iter} train_epoch={ctx.train_epoch} '
            f'eval_return={ctx.last_eval_value:.2f}')
