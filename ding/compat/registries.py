"""DI-engine's registries that nothing of ding reads, for user code that registers into them,
and DI-engine's `registries` table of all twelve (`from ding.utils import registries`).
ding looks up only the eight of ding/utils/registry.py."""
from ding.utils.registry import (BUFFER_REGISTRY, DATASET_REGISTRY, ENV_MANAGER_REGISTRY, ENV_REGISTRY,
                                 ENV_WRAPPER_REGISTRY, MODEL_REGISTRY, POLICY_REGISTRY, REWARD_MODEL_REGISTRY, Registry)

LEARNER_REGISTRY = Registry('learner')
SERIAL_COLLECTOR_REGISTRY = Registry('serial_collector')
SERIAL_EVALUATOR_REGISTRY = Registry('serial_evaluator')
WORLD_MODEL_REGISTRY = Registry('world_model')

registries = {
    'policy': POLICY_REGISTRY, 'model': MODEL_REGISTRY, 'env': ENV_REGISTRY, 'env_manager': ENV_MANAGER_REGISTRY,
    'buffer': BUFFER_REGISTRY, 'reward_model': REWARD_MODEL_REGISTRY, 'env_wrapper': ENV_WRAPPER_REGISTRY,
    'dataset': DATASET_REGISTRY, 'learner': LEARNER_REGISTRY, 'serial_collector': SERIAL_COLLECTOR_REGISTRY,
    'serial_evaluator': SERIAL_EVALUATOR_REGISTRY, 'world_model': WORLD_MODEL_REGISTRY,
}
