"""REINFORCE on CartPole-v1: whole episodes (`EpisodeCollector`), Monte-Carlo returns, one
update per batch of episodes (`trainer`).

    python -m dizoo.classic_control.cartpole.entry.cartpole_pg_main [--seed 0] [--env-id CartPole-v1]
        [--stop-value 195] [--max-env-step 200000] [--exp-name DIR]
"""
import gymnasium as gym

from ding.envs import DingEnvWrapper
from ding.framework.context import OnlineRLContext
from ding.model import PG
from ding.policy import PGPolicy
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.onpolicy_pipeline import run_onpolicy


def main(seed: int = 0, env_id: str = 'CartPole-v1', stop_value: float = 195, max_env_step: int = 200_000,
         exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches `stop_value` or `max_env_step`; returns the final ctx."""
    cfg = load_config('dizoo.classic_control.cartpole.config.cartpole_pg_config', seed, exp_name,
                      overrides={'env': {'env_id': env_id, 'stop_value': stop_value}})
    return run_onpolicy(cfg, lambda: DingEnvWrapper(gym.make(env_id)), PGPolicy, PG, max_env_step,
                        whole_episodes=True)


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
