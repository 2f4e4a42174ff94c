"""The benchmarks of the side-by-side comparison: env, thresholds and budgets (bars.md).

Shared by the orchestrator and by every runner, so this module imports only the standard
library: the peer runners execute it inside their own virtual environments.
"""
from dataclasses import dataclass
from typing import Dict, Tuple

EVAL_EVERY_ENV_STEPS = 1000
EVAL_EPISODES = 10


@dataclass(frozen=True)
class BenchmarkSpec:
    """One row group of the comparison table.

    thresholds: eval mean returns to time; a run stops once the last (hardest) is reached.
    env_step_budget: from bars.md; wall_cap_s: a hard stop so the harness always ends.
    """
    name: str
    algo: str
    env_id: str
    thresholds: Tuple[float, ...]
    env_step_budget: int
    wall_cap_s: float

    @property
    def stop_return(self) -> float:
        return max(self.thresholds)


BENCHMARKS: Dict[str, BenchmarkSpec] = {
    spec.name: spec
    for spec in (
        BenchmarkSpec('dqn_cartpole_v1', 'dqn', 'CartPole-v1', (195.0, 475.0), 100_000, 900.0),
        BenchmarkSpec('ppo_cartpole_v1', 'ppo', 'CartPole-v1', (475.0, ), 200_000, 900.0),
        BenchmarkSpec('sac_pendulum', 'sac', 'Pendulum-v1', (-250.0, -200.0), 20_000, 1200.0),
    )
}

# --quick: a smoke check that every runner trains, evaluates and reports; not a measurement.
QUICK_ENV_STEP_BUDGET = 2000
QUICK_WALL_CAP_S = 180.0


def get_spec(name: str) -> BenchmarkSpec:
    if name not in BENCHMARKS:
        raise KeyError(f'unknown benchmark {name!r}; known: {sorted(BENCHMARKS)}')
    return BENCHMARKS[name]
