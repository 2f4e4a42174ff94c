"""One-line agents: `DQNAgent(env_id='CartPole-v1').train(step=100_000)`, then `.best.deploy()`.
Imported lazily: `from ding.bonus import SACAgent` loads only what SAC needs."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'RLAgent': 'agent',
    'TrainingReturn': 'agent',
    'EvalReturn': 'agent',
    'DQNAgent': 'dqn',
    'PPOF': 'ppof',
    'PPOAgent': 'ppof',
    'SACAgent': 'sac',
    'TD3Agent': 'td3',
    'A2CAgent': 'a2c',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
