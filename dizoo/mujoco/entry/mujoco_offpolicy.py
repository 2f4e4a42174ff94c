"""SAC / TD3 on MuJoCo (HalfCheetah-v5, Hopper-v5) with the spec's continuous-control pipeline
(the same one as Pendulum: `run_offpolicy`). Needs the mujoco extra."""
import copy
import importlib
from typing import Any, Callable, Dict, List, Optional, Sequence

from ding.config import compile_config
from ding.policy import SACPolicy, TD3Policy
from ding.utils.dicts import deep_merge
from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import run_offpolicy
from dizoo.mujoco.envs.mujoco_env import MujocoEnv

POLICIES = {'sac': SACPolicy, 'td3': TD3Policy}
ENVS = ('halfcheetah', 'hopper')


def load_config(env: str, algo: str, seed: int, exp_name: Optional[str] = None, overrides: Optional[Dict] = None,
                save_cfg: bool = True) -> Any:
    module = importlib.import_module(f'dizoo.mujoco.config.{env}_{algo}_config')
    main_config = deep_merge(copy.deepcopy(module.main_config), overrides or {})
    main_config.exp_name = exp_name or main_config.exp_name.replace('seed0', f'seed{seed}')
    return compile_config(main_config, create_cfg=copy.deepcopy(module.create_config), auto=True, seed=seed,
                          save_cfg=save_cfg)


def train(env: str = 'halfcheetah', algo: str = 'sac', seed: int = 0, max_env_step: int = int(1e6),
          exp_name: Optional[str] = None, overrides: Optional[Dict] = None, torch_threads: int = 1,
          save_cfg: bool = True, extra_middleware: Sequence[Callable] = ()) -> List[Dict[str, Any]]:
    """Returns the evaluation history (see `run_offpolicy`). One torch thread: two were 15x
    slower per update on the shared 2-core machine."""
    cfg = load_config(env, algo, seed, exp_name, overrides, save_cfg)
    return run_offpolicy(cfg, lambda: MujocoEnv(cfg.env), POLICIES[algo], max_env_step, torch_threads,
                         extra_middleware)


def main(algo: str) -> None:
    import argparse
    import logging
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser(description=f'{algo.upper()} on MuJoCo')
    parser.add_argument('--env', choices=ENVS, default='halfcheetah')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--max-env-step', type=int, default=int(1e6))
    parser.add_argument('--exp-name', default=None)
    args = parser.parse_args()
    for h in train(args.env, algo, args.seed, args.max_env_step, args.exp_name):
        print(f"env_step {h['env_step']:8d}  wall {h['wall_s']:8.1f}s  eval {h['eval_value']:9.1f}")
