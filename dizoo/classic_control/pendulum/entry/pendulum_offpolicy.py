"""SAC, TD3 and DDPG on Pendulum-v1: the configs `pendulum_<algo>_config` run through the
shared continuous-control pipeline (`dizoo/common/offpolicy_pipeline.py`)."""
import copy
from typing import Any, Dict, List, Optional

from ding.policy import DDPGPolicy, SACPolicy, TD3Policy
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.offpolicy_pipeline import first_reaching, print_history, run_offpolicy

__all__ = ['train', 'first_reaching', 'main']
POLICIES = {'sac': SACPolicy, 'td3': TD3Policy, 'ddpg': DDPGPolicy}


def train(algo: str = 'sac', seed: int = 0, max_env_step: int = 20000, stop_value: Optional[float] = None,
          exp_name: Optional[str] = None, overrides: Optional[Dict] = None, torch_threads: int = 1,
          save_cfg: bool = True) -> List[Dict[str, Any]]:
    """`algo` in sac/td3/ddpg on Pendulum until the eval mean reaches `stop_value` (default: the
    config's) or `max_env_step` env steps; returns the evaluation history."""
    overrides = copy.deepcopy(overrides or {})
    if stop_value is not None:
        overrides.setdefault('env', {})['stop_value'] = stop_value
    cfg = load_config(f'dizoo.classic_control.pendulum.config.pendulum_{algo}_config', seed, exp_name, overrides,
                      save_cfg)
    return run_offpolicy(cfg, lambda: PendulumEnv(cfg.env), POLICIES[algo], max_env_step, torch_threads)


def main(algo: str) -> None:
    """The command line of `pendulum_<algo>_main`: train, then print the evaluation history."""

    def train_from_flags(seed: int = 0, max_env_step: int = 20000, stop_value: float = None,
                         exp_name: str = None) -> List[Dict[str, Any]]:
        return train(algo, seed, max_env_step, stop_value, exp_name)

    print_history(run_from_command_line(train_from_flags, f'{algo.upper()} on Pendulum-v1'))
