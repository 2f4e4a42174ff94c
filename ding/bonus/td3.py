"""`TD3Agent`: TD3 with the tuned configs (`ding list` shows its envs)."""
from ding.bonus.agent import RLAgent


class TD3Agent(RLAgent):
    """`TD3Agent(env_id='Pendulum-v1', seed=0, exp_name=None, cfg=None)`; see `ding.bonus.agent.RLAgent`."""
    algo = 'td3'
