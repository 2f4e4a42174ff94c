"""`A2CAgent`: advantage actor-critic with the tuned configs (`ding list` shows its envs)."""
from ding.bonus.agent import RLAgent


class A2CAgent(RLAgent):
    """`A2CAgent(env_id='CartPole-v1', seed=0, exp_name=None, cfg=None)`; see `ding.bonus.agent.RLAgent`."""
    algo = 'a2c'
