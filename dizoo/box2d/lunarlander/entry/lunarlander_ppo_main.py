"""PPO on LunarLander-v3, discrete (default) or continuous (`--continuous`). Needs Box2D:
pip install "ding[box2d]".

    python -m dizoo.box2d.lunarlander.entry.lunarlander_ppo_main [--seed 0] [--continuous] [--max-env-step 1000000]
        [--exp-name DIR] [--stop-value 200]
"""
from ding.framework.context import OnlineRLContext
from ding.model import VAC
from ding.policy import PPOPolicy
from dizoo.box2d.lunarlander.envs.lunarlander_env import LunarLanderEnv
from dizoo.common.cli import run_from_command_line
from dizoo.common.config_loader import load_config
from dizoo.common.onpolicy_pipeline import run_onpolicy

CONFIGS = {
    False: 'dizoo.box2d.lunarlander.config.lunarlander_ppo_config',
    True: 'dizoo.box2d.lunarlander.config.lunarlander_ppo_continuous_config',
}


def main(seed: int = 0, continuous: bool = False, max_env_step: int = 1_000_000,
         exp_name: str = None, stop_value: float = None) -> OnlineRLContext:
    """Trains until the greedy evaluation reaches the stop value (the config's unless given) or
    `max_env_step`; returns the final ctx."""
    overrides = None if stop_value is None else {'env': {'stop_value': float(stop_value)}}
    cfg = load_config(CONFIGS[continuous], seed, exp_name, overrides)
    return run_onpolicy(cfg, lambda: LunarLanderEnv(cfg.env), PPOPolicy, VAC, max_env_step, log_freq=400,
                        ckpt_freq=4000)


if __name__ == '__main__':
    run_from_command_line(main, __doc__)
