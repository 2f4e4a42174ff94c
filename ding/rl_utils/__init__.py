"""Losses and estimators, each one readable function: TD, GAE, PPO, A2C, PG, SAC/TD3 targets."""
from ding.utils.lazy import lazy_exports

# Each engineer adds the functions of their module here: {name: module}.
_EXPORTS = {
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
