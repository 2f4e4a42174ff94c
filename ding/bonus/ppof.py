"""`PPOF` / `PPOAgent`: proximal policy optimisation with the tuned configs (`ding list` shows
its envs). DI-engine names its one-line PPO agent `PPOF`; both names are the same class."""
from ding.bonus.agent import RLAgent


class PPOF(RLAgent):
    """`PPOF(env_id='CartPole-v1', seed=0, exp_name=None, cfg=None)`; see `ding.bonus.agent.RLAgent`."""
    algo = 'ppo'


PPOAgent = PPOF
