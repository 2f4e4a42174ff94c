"""`ding train --algo cql --env Pendulum-v1 --dataset PATH [--max-train-iter N]`, or
`ding train -f OFFLINE_CONFIG.py [--dataset PATH]` (a config whose policy learns from a dataset,
e.g. dizoo/d4rl/config/*: its own dataset unless --dataset names one): an offline run
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
from typing import Any, Dict, Optional, Tuple

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


def learns_from_a_dataset(create_cfg: Any) -> bool:
    """Whether a config file's policy is an offline one: its class declares `collect.data_type`."""
    from ding.config.compile import import_create_names, resolve_class
    from ding.utils.registry import POLICY_REGISTRY
    import_create_names(create_cfg)
    policy_cls = resolve_class(POLICY_REGISTRY, create_cfg.get('policy'))
    return policy_cls is not None and 'data_type' in (policy_cls.default_config().get('collect') or {})


def main(args: argparse.Namespace, from_file: Optional[Tuple[Any, Any, Dict[str, Any]]] = None) -> int:
    """`from_file`: (main, create, info) of `-f`; else the offline config of (--algo, --env)."""
    import os

    from easydict import EasyDict

    from ding.data.offline_dataset import data_type_of_path
    from ding.entry.serial_offline import serial_pipeline_offline
    from ding.utils.dicts import deep_merge
    if from_file is None and (not args.algo or not args.env):
        raise UsageError('an offline run needs --algo and --env with --dataset, or -f OFFLINE_CONFIG.py')
    if args.dataset and not os.path.exists(args.dataset):
        raise FileNotFoundError(f'--dataset {args.dataset}: no such file or directory')
    if from_file is not None:  # ding train merged --config into it already
        main_cfg, create_cfg, info = from_file
    else:
        main_cfg, create_cfg, info = offline_config(args.algo, args.env)
        main_cfg = EasyDict(deep_merge(main_cfg, parse_overrides(args.config)))
    if args.dataset:  # else the config's own (a D4RL env id's local file, or its data_path)
        main_cfg.policy.collect.data_path = os.path.abspath(args.dataset)
        if main_cfg.policy.collect.get('data_type') not in SEQUENCE_TYPES:  # DT reads the file as episodes' windows
            main_cfg.policy.collect.data_type = data_type_of_path(args.dataset)
    algo = args.algo or info.get('algo') or 'offline'
    env = args.env or main_cfg.env.get('env_id') or 'env'
    exp_name = args.exp_name or f'{algo}_{str(env).lower()}_offline_seed{args.seed}'
    max_train_iter = args.max_train_iter or info.get('budget_train_iter') or int(1e10)
    policy = serial_pipeline_offline((main_cfg, create_cfg), seed=args.seed, max_train_iter=max_train_iter,
                                     checkpoint_freq=args.checkpoint_freq, exp_name=exp_name,
                                     run_info={**info, 'algo': algo, 'env': env},
                                     keep_checkpoints=getattr(args, 'keep_checkpoints', None))
    print(f'{offline_summary(policy.final_ctx)} run_dir={exp_name}')
    return 0


def offline_summary(ctx: Any) -> str:
    return (f'finished: train_iter={ctx.train_iter} train_epoch={ctx.train_epoch} '
            f'eval_return={ctx.last_eval_value:.2f}')
