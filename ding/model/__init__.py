"""Neural networks: encoders, heads and the per-algorithm models."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'mlp': 'common',
    'FCEncoder': 'common',
    'ConvEncoder': 'common',
    'image_encoder': 'conv_encoders',
    'grid_encoder': 'conv_encoders',
    'DQN': 'dqn',
    'C51DQN': 'c51',
    'QRDQN': 'qrdqn',
    'IQN': 'iqn',
    'RainbowDQN': 'rainbow',
    'FQF': 'fqf',
    'DRQN': 'drqn',
    'NoisyLinear': 'noisy',
    'DiscreteHead': 'dqn',
    'DuelingHead': 'dqn',
    'VAC': 'vac',
    'PG': 'pg',
    'ContinuousQAC': 'qac',
    'DiscreteQAC': 'qac',
    'QAC': 'qac',  # the name DI-engine's ding/example/cql.py imports
    'DiscreteBC': 'bc',
    'ContinuousBC': 'bc',
    'IQLModel': 'iql',
    'BCQ': 'bcq',
    'MAVAC': 'mavac',
    'QMix': 'qmix',
    'VDN': 'qmix',
    'RecurrentQMix': 'qmix_recurrent',
    'RecurrentVDN': 'qmix_recurrent',
    'MAQAC': 'maqac',
    'QACDIST': 'qac_dist',
    'PPG': 'ppg',
    'QACEnsemble': 'qac_ensemble',
    'EDAC': 'qac_ensemble',
    'DecisionTransformer': 'decision_transformer',
    'PDQN': 'pdqn',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# config `model.type` -> the module that registers it
from ding.utils.registry import MODEL_REGISTRY  # noqa: E402

MODEL_REGISTRY.declare(__name__, {
    'discrete_bc': 'bc', 'continuous_bc': 'bc', 'iql': 'iql', 'bcq': 'bcq',
    'dqn': 'dqn', 'c51dqn': 'c51', 'qrdqn': 'qrdqn', 'iqn': 'iqn', 'rainbowdqn': 'rainbow', 'fqf': 'fqf',
    'drqn': 'drqn',
    'mavac': 'mavac', 'qmix': 'qmix', 'vdn': 'qmix', 'maqac': 'maqac',
    'qmix_gru': 'qmix_recurrent', 'vdn_gru': 'qmix_recurrent',
    'qac_dist': 'qac_dist', 'ppg': 'ppg', 'edac': 'qac_ensemble',
    'dt': 'decision_transformer',
    'pdqn': 'pdqn',
})
