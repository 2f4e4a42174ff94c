"""PPO on CartPole-v1 with the on-policy middleware pipeline (compare `cartpole_dqn_main.py`:
only the collector's companions and the learner differ; see docs/pipelines.md).

    python -m dizoo.classic_control.cartpole.entry.cartpole_ppo_main [--seed 0] [--env-id CartPole-v1]
        [--stop-value 475] [--max-env-step 200000] [--exp-name DIR]
"""
import gymnasium as gym

from ding.envs import DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.model import VAC
from ding.policy import PPOPolicy
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.onpolicy_pipeline import run_onpolicy


def main(seed: int = 0, env_id: str = 'CartPole-v1', stop_value: float = 475, max_env_step: int = 200_000,
         exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches `stop_value` or `max_env_step`; returns the final ctx."""
    cfg = load_config('dizoo.classic_control.cartpole.config.cartpole_ppo_config', seed, exp_name,
                      overrides={'env': {'env_id': env_id, 'stop_value': stop_value}})
    return run_onpolicy(cfg, lambda: DingEnvWrapper(gym.make(env_id)), PPOPolicy, VAC, max_env_step)


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
