"""Reward models: they rewrite or add to the reward of the transitions a learner trains on.
Hindsight relabelling (`HerRewardModel`), exploration bonuses (`RndRewardModel`,
`ICMRewardModel`), imitation (`GailRewardModel`, `TrexRewardModel`); see base_reward_model.py
for the interface."""
from ding.utils.lazy import lazy_exports

_EXPORTS = {
    'BaseRewardModel': 'base_reward_model',
    'create_reward_model': 'base_reward_model',
    'get_reward_model_cls': 'base_reward_model',
    'HerRewardModel': 'her_reward_model',
    'RndRewardModel': 'rnd_reward_model',
    'ICMRewardModel': 'icm_reward_model',
    'GailRewardModel': 'gail_reward_model',
    'TrexRewardModel': 'trex_reward_model',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# config `reward_model.type` -> the module that registers it
from ding.utils.registry import REWARD_MODEL_REGISTRY  # noqa: E402

REWARD_MODEL_REGISTRY.declare(__name__, {
    'rnd': 'rnd_reward_model',
    'icm': 'icm_reward_model',
    'gail': 'gail_reward_model',
    'trex': 'trex_reward_model',
})
