"""The benchmarks of the side-by-side comparison: env, thresholds and budgets (bars.md).

Shared by the orchestrator and by every runner, so this module imports only the standard
library: the peer runners execute it inside their own virtual environments.
"""
from dataclasses import dataclass
from typing import Dict, Tuple

EVAL_EVERY_ENV_STEPS = 1000
EVAL_EPISODES = 10
# 4 h: above what a 500k-step MinAtar run at one update per step takes here (about 30 min)
MINATAR_WALL_CAP_S = 4 * 3600.0
# 2 h: far above what a 500k-step PPO Hopper run takes here (about 15 minutes)
MUJOCO_WALL_CAP_S = 2 * 3600.0


@dataclass(frozen=True)
class BenchmarkSpec:
    """One row group of the comparison table.

    thresholds: eval mean returns to time; a run stops once the last (hardest) is reached.
    env_step_budget: from bars.md; wall_cap_s: a hard stop so the harness always ends.
    eval_every: env steps between evaluations; frameworks: the runners that have the algorithm.
    whole_budget: every run trains its whole budget; thresholds are then times of first reach only.
    """
    name: str
    algo: str
    env_id: str
    thresholds: Tuple[float, ...]
    env_step_budget: int
    wall_cap_s: float
    eval_every: int = EVAL_EVERY_ENV_STEPS
    frameworks: Tuple[str, ...] = ('ours', 'sb3', 'tianshou', 'di_engine')
    # train the whole budget (no stop at the hardest threshold): the table then also gives the
    # final and best return, the wall time and env steps/s at equal budgets
    whole_budget: bool = False

    @property
    def stop_return(self) -> float:
        return max(self.thresholds)


BENCHMARKS: Dict[str, BenchmarkSpec] = {
    spec.name: spec
    for spec in (
        BenchmarkSpec('dqn_cartpole_v1', 'dqn', 'CartPole-v1', (195.0, 475.0), 100_000, 900.0),
        BenchmarkSpec('ppo_cartpole_v1', 'ppo', 'CartPole-v1', (475.0, ), 200_000, 900.0),
        BenchmarkSpec('sac_pendulum', 'sac', 'Pendulum-v1', (-250.0, -200.0), 20_000, 1200.0),
        # MuJoCo: PPO on Hopper at the RL Zoo's tuned Hopper values, in both (ours:
        # dizoo/mujoco/config/hopper_ppo_config.py), each run to its whole budget: 500k env steps
        # (the zoo trains 1M). 10 evaluation episodes are up to 10k env steps, hence the sparser
        # evaluations.
        BenchmarkSpec('ppo_hopper', 'ppo_hopper', 'Hopper-v5', (1000.0, 2000.0), 500_000, MUJOCO_WALL_CAP_S,
                      eval_every=25_000, frameworks=('ours', 'sb3'), whole_budget=True),
        # SAC and TD3 on HalfCheetah and Hopper: each framework at its own published values (SB3:
        # the RL Zoo's MuJoCo entries; ours: dizoo/mujoco/config/*_{sac,td3}_config.py), batch 256
        # and one update per env step in both. SAC's networks are the same (2 x 256); the zoo's
        # TD3 has 400 x 300 where ours has 2 x 256, so TD3 also runs ours at the zoo's sizes
        # (`ours_peer_net`). 150k env steps, not the zoo's 1M: three seeds of both fit one sitting
        # here (about 30 minutes a run); the thresholds are times of first reach only.
        *(BenchmarkSpec(f'{algo}_{env}', f'{algo}_{env}', env_id, thresholds, 150_000, MUJOCO_WALL_CAP_S,
                        eval_every=10_000, frameworks=('ours', 'sb3'), whole_budget=True)
          for algo in ('sac', 'td3')
          for env, env_id, thresholds in (('halfcheetah', 'HalfCheetah-v5', (3000.0, 5000.0)),
                                          ('hopper', 'Hopper-v5', (1000.0, 2500.0)))),
        # MinAtar Breakout: SB3 and ours under one recipe, the MinAtar paper's DQN (RL Zoo has no
        # MinAtar settings), so that the wall-time ratio measures the framework; then our tuned
        # configs, ours alone. Longer runs: sparser evaluations, and a wall cap no run should meet
        # (every run goes to its threshold or its env-step budget).
        BenchmarkSpec('dqn_minatar_breakout', 'dqn_minatar', 'MinAtar/Breakout-v1', (5.0, 10.0), 500_000,
                      MINATAR_WALL_CAP_S, eval_every=5000, frameworks=('ours', 'sb3')),
        BenchmarkSpec('qrdqn_minatar_breakout', 'qrdqn_minatar', 'MinAtar/Breakout-v1', (5.0, 10.0), 500_000,
                      MINATAR_WALL_CAP_S, eval_every=5000, frameworks=('ours', 'sb3')),
        BenchmarkSpec('dqn_minatar_breakout_tuned', 'dqn_minatar_tuned', 'MinAtar/Breakout-v1', (5.0, 10.0),
                      500_000, MINATAR_WALL_CAP_S, eval_every=5000, frameworks=('ours', )),
        BenchmarkSpec('qrdqn_minatar_breakout_tuned', 'qrdqn_minatar_tuned', 'MinAtar/Breakout-v1', (5.0, 10.0),
                      500_000, MINATAR_WALL_CAP_S, eval_every=5000, frameworks=('ours', )),
    )
}
# what `run.py` runs when no --benchmarks are named: the CartPole and Pendulum table
DEFAULT_BENCHMARKS = ('dqn_cartpole_v1', 'ppo_cartpole_v1', 'sac_pendulum')

# --quick: a smoke check that every runner trains, evaluates and reports; not a measurement.
QUICK_ENV_STEP_BUDGET = 2000
QUICK_WALL_CAP_S = 180.0


def make_env(env_id: str, **kwargs) -> 'object':
    """The gymnasium env `env_id`; MinAtar's ids are registered first (the package does not on import)."""
    import gymnasium as gym
    if env_id.startswith('MinAtar/') and env_id not in gym.registry:
        import minatar.gym
        minatar.gym.register_envs()
    return gym.make(env_id, **kwargs)


def get_spec(name: str) -> BenchmarkSpec:
    if name not in BENCHMARKS:
        raise KeyError(f'unknown benchmark {name!r}; known: {sorted(BENCHMARKS)}')
    return BENCHMARKS[name]
