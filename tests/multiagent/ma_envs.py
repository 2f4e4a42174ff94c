"""Small PettingZoo parallel envs for the multi-agent tests."""
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ding.envs.petting_zoo_env import PettingZooParallelEnv


class CueEnv(ParallelEnv):
    """Each step every agent sees a shared random cue (one-hot of `n_cue`) and its id; the team
    earns 1 for each agent whose action equals the cue. Episodes last `length` steps (truncated).
    `die_at`: agent_1 terminates after that many steps while agent_0 plays on."""
    metadata = {'name': 'cue_v0'}

    def __init__(self, n_cue=3, length=5, die_at=None):
        self.possible_agents = ['agent_0', 'agent_1']
        self.n_cue, self.length, self.die_at = n_cue, length, die_at
        self._obs_space = spaces.Box(0, 1, shape=(n_cue + 2, ), dtype=np.float32)
        self._act_space = spaces.Discrete(n_cue)
        self.rng = np.random.default_rng()

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def _obs(self):
        out = {}
        for i, a in enumerate(self.agents):
            o = np.zeros(self.n_cue + 2, dtype=np.float32)
            o[self.cue] = 1.0
            o[self.n_cue + self.possible_agents.index(a)] = 1.0
            out[a] = o
        return out

    def state(self):
        s = np.zeros(self.n_cue + 1, dtype=np.float32)
        s[self.cue] = 1.0
        s[-1] = self.t / self.length
        return s

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self.t, self.cue = 0, int(self.rng.integers(self.n_cue))
        return self._obs(), {a: {} for a in self.agents}

    def step(self, actions):
        assert set(actions) == set(self.agents), (actions, self.agents)
        rewards = {a: float(int(actions[a]) == self.cue) for a in self.agents}
        self.t += 1
        self.cue = int(self.rng.integers(self.n_cue))
        trunc = {a: self.t >= self.length for a in self.agents}
        term = {a: bool(self.die_at is not None and a == 'agent_1' and self.t >= self.die_at) for a in self.agents}
        obs = self._obs()
        self.agents = [a for a in self.agents if not (trunc[a] or term[a])]
        return obs, rewards, term, trunc, {a: {} for a in rewards}


def cue_env(cfg=None, **kwargs):
    """The CueEnv as a ding multi-agent env (picklable factory for subprocess managers)."""
    return PettingZooParallelEnv(cfg or {}, lambda: CueEnv(**kwargs))


class RecallEnv(CueEnv):
    """CueEnv with memory: the cue is drawn once per episode and shown only at the first step, and
    every step pays 1 per agent whose action equals it. After the first step a feed-forward agent
    can only guess (1 / n_cue); a recurrent one can remember. The global state keeps the cue."""
    metadata = {'name': 'recall_v0'}

    def _obs(self):
        out = super()._obs()
        if self.t > 0:
            for o in out.values():
                o[:self.n_cue] = 0.0
        return out

    def step(self, actions):
        cue = self.cue
        result = super().step(actions)  # draws a new cue, which is hidden; the episode's stays
        self.cue = cue
        return result


def recall_env(cfg=None, **kwargs):
    return PettingZooParallelEnv(cfg or {}, lambda: RecallEnv(**kwargs))
