"""Neural networks: encoders, heads and the per-algorithm models."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'mlp': 'common',
    'FCEncoder': 'common',
    'DQN': 'dqn',
    'DiscreteHead': 'heads',
    'DuelingHead': 'heads',
    'VAC': 'vac',
    'PG': 'pg',
    'ContinuousQAC': 'qac',
    'DiscreteQAC': 'qac',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
