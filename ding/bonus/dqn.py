"""`DQNAgent`: deep Q-learning with the tuned configs (`ding list` shows its envs)."""
from ding.bonus.agent import RLAgent


class DQNAgent(RLAgent):
    """`DQNAgent(env_id='CartPole-v1', seed=0, exp_name=None, cfg=None)`; see `ding.bonus.agent.RLAgent`."""
    algo = 'dqn'
