"""`PettingZooEnv` (`env.type='petting_zoo'`): MPE scenarios from the `mpe2` package as ding
multi-agent envs (ding/envs/petting_zoo_env.py: dict obs `{agent_state, global_state,
action_mask}` with an agent axis, a team reward, death masking).

Config keys as DI-engine's: `env_family` ('mpe'), `env_id` (`simple_spread_v2` / `_v3`,
`simple_reference_v3`), `n_agent`, `n_landmark`, `max_cycles`, `continuous_actions`,
`agent_obs_only`, `agent_specific_global_state`.

simple_spread follows DI-engine's definitions, so returns compare with its configs:
- the team reward is the sum over agents of (global reward + the agent's collision penalty),
  which is exactly twice the sum of mpe2's per-agent rewards at `local_ratio=0.5`;
- `global_state` is DI-engine's layout, `4N + 2L + 2N(N-1)` floats: agent 0's position with
  the landmarks and other agents relative to it, every agent's velocity, every agent's
  communication channels.
simple_reference's global state is mpe2's own `state()` (the agents' observations, concatenated).
"""
from typing import Any

import numpy as np

from ding.envs.petting_zoo_env import PettingZooParallelEnv, env_state
from ding.utils.registry import ENV_REGISTRY

SCENARIOS = ('simple_spread', 'simple_reference')


def _scenario(env_id: str) -> str:
    name = str(env_id).rsplit('_v', 1)[0]
    if name not in SCENARIOS:
        raise ValueError(f'PettingZooEnv: env_id must name one of {SCENARIOS} (e.g. simple_spread_v2), got {env_id!r}')
    return name


def simple_spread_global_state(n_agent: int):
    """DI-engine's simple_spread global state from the stacked agent observations [N, obs]."""
    comm = (n_agent - 1) * 2

    def global_state(env: Any, agent_state: np.ndarray) -> np.ndarray:
        return np.concatenate([agent_state[0, 2:-comm], agent_state[:, 0:2].reshape(-1),
                               agent_state[:, -comm:].reshape(-1)])

    return global_state


@ENV_REGISTRY.register('petting_zoo')
class PettingZooEnv(PettingZooParallelEnv):
    config = dict(
        env_family='mpe',
        env_id='simple_spread_v2',
        n_agent=3,
        n_landmark=3,
        max_cycles=25,
        continuous_actions=False,
        act_scale=False,
        stop_value=0,
    )

    def __init__(self, cfg: Any = None) -> None:
        merged = dict(self.default_config())
        merged.update(cfg or {})
        if merged.get('env_family', 'mpe') != 'mpe':
            raise ValueError(f"PettingZooEnv: only env_family='mpe' is available, got {merged['env_family']!r}")
        scenario = _scenario(merged['env_id'])
        if merged.get('act_scale') and not merged.get('continuous_actions'):
            raise ValueError('PettingZooEnv: act_scale is for continuous_actions=True only')
        n_agent, n_landmark = int(merged['n_agent']), int(merged.get('n_landmark', merged['n_agent']))
        if scenario == 'simple_spread' and n_landmark != n_agent:
            raise ValueError(f'PettingZooEnv: mpe2 simple_spread has as many landmarks as agents; got '
                             f'n_agent={n_agent}, n_landmark={n_landmark}')
        if scenario == 'simple_reference' and n_agent != 2:
            raise ValueError(f'PettingZooEnv: simple_reference has 2 agents, got n_agent={n_agent}')
        self._scenario = scenario
        kwargs = dict(max_cycles=int(merged['max_cycles']), continuous_actions=bool(merged['continuous_actions']))

        def make_env() -> Any:
            try:
                from mpe2 import simple_reference_v3, simple_spread_v3
            except ImportError as err:
                raise ImportError('PettingZooEnv needs pettingzoo and mpe2: pip install "ding[petting_zoo]"') from err
            if scenario == 'simple_spread':
                return simple_spread_v3.parallel_env(N=n_agent, local_ratio=0.5, **kwargs)
            return simple_reference_v3.parallel_env(**kwargs)

        state_fn = simple_spread_global_state(n_agent) if scenario == 'simple_spread' else env_state
        super().__init__(merged, make_env, state_fn)

    def _team_reward(self, rewards: Any) -> float:
        total = super()._team_reward(rewards)
        # DI-engine's simple_spread: sum of (global + local) = 2 x mpe2's sum at local_ratio 0.5
        return 2.0 * total if self._scenario == 'simple_spread' else total

    def __repr__(self) -> str:
        return f'PettingZooEnv({self._cfg.env_id}, n_agent={self._cfg.n_agent})'
