"""Continuous PPO on Pendulum-v1: the CartPole PPO pipeline with a Gaussian actor.

    python -m dizoo.classic_control.pendulum.entry.pendulum_ppo_main [--seed 0] [--max-env-step 300000]
        [--exp-name DIR]
"""
from ding.framework.context import OnlineRLContext
from ding.model import VAC
from ding.policy import PPOPolicy
from dizoo.classic_control.pendulum.envs.pendulum_env import PendulumEnv
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.onpolicy_pipeline import run_onpolicy


def main(seed: int = 0, max_env_step: int = 300_000, exp_name: str = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches cfg.env.stop_value or `max_env_step`; returns the final ctx."""
    cfg = load_config('dizoo.classic_control.pendulum.config.pendulum_ppo_config', seed, exp_name)
    return run_onpolicy(cfg, lambda: PendulumEnv(cfg.env), PPOPolicy, VAC, max_env_step, log_freq=100,
                        ckpt_freq=1000)


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
