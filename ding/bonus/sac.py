"""`SACAgent`: soft actor-critic with the tuned configs (`ding list` shows its envs)."""
from ding.bonus.agent import RLAgent


class SACAgent(RLAgent):
    """`SACAgent(env_id='Pendulum-v1', seed=0, exp_name=None, cfg=None)`; see `ding.bonus.agent.RLAgent`."""
    algo = 'sac'
