"""SAC / TD3 on MuJoCo (HalfCheetah-v5, Hopper-v5) with the spec's continuous-control pipeline
(the same one as Pendulum: `dizoo/common/offpolicy_pipeline.py`). Needs the mujoco extra."""
from typing import Any, Callable, Dict, List, Optional, Sequence

from ding.policy import SACPolicy, TD3Policy
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.offpolicy_pipeline import print_history, run_offpolicy
from dizoo.mujoco.envs.mujoco_env import MujocoEnv

POLICIES = {'sac': SACPolicy, 'td3': TD3Policy}
ENVS = ('halfcheetah', 'hopper')


def train(env: str = 'halfcheetah', algo: str = 'sac', seed: int = 0, max_env_step: int = int(1e6),
          exp_name: Optional[str] = None, overrides: Optional[Dict] = None, torch_threads: int = 1,
          save_cfg: bool = True, extra_middleware: Sequence[Callable] = ()) -> List[Dict[str, Any]]:
    """Returns the evaluation history (see `run_offpolicy`). One torch thread: two were 15x
    slower per update on the shared 2-core machine."""
    if env not in ENVS:
        raise ValueError(f'unknown MuJoCo env {env!r}; valid: {ENVS}')
    cfg = load_config(f'dizoo.mujoco.config.{env}_{algo}_config', seed, exp_name, overrides, save_cfg)
    return run_offpolicy(cfg, lambda: MujocoEnv(cfg.env), POLICIES[algo], max_env_step, torch_threads,
                         extra_middleware)


def main(algo: str) -> None:
    """The command line of `mujoco_<algo>_main`: train, then print the evaluation history."""

    def train_from_flags(env: str = 'halfcheetah', seed: int = 0, max_env_step: int = int(1e6),
                         exp_name: str = None) -> List[Dict[str, Any]]:
        return train(env, algo, seed, max_env_step, exp_name)

    print_history(run_from_command_line(train_from_flags, f'{algo.upper()} on MuJoCo'))
