"""DI-engine's policy classes that build another class from a config switch.

DI-engine programs build these by their public names (`from ding.policy import PPOPolicy`,
or `policy.type` in a config), so those names and the registry's types are these classes:
- `PPOPolicy` with `multi_agent=True` builds `MAPPOPolicy` (DI-engine's ding/example/mappo.py);
- `DiscreteSACPolicy` (DI-engine's `SACDiscretePolicy`) with `multi_agent=True` builds
  `MASACPolicy` (its ding/example/masac.py);
- `QMIXPolicy` / `VDNPolicy` build their recurrent twins unless `collect.unroll_len` is 1:
  DI-engine's QMIX is recurrent, with `unroll_len` 10 by default.
Without the switch each builds itself: the algorithm it subclasses, which lives in `ding/policy/`
and knows nothing of the switch. `compile_config` takes the defaults of the class `variant_for`
names, so a switched config is checked against the class that will read it.
"""
from typing import Any

from ding.policy import discrete_sac, mappo, masac, ppo, qmix, qmix_recurrent
from ding.utils.registry import POLICY_REGISTRY


def _new(cls: type, cfg: Any = None, *args: Any, **kwargs: Any) -> Any:
    """The `__new__` of the classes below: a bare `cls` for Python to initialise, or a variant
    built whole here (it is no instance of `cls`, so Python would not call its `__init__`)."""
    variant = cls if cfg is None else cls.variant_for(cfg)  # no cfg: unpickling or copying
    if variant is cls:
        return object.__new__(cls)
    return variant(cfg, *args, **kwargs)


def _multi_agent(cfg: Any) -> bool:
    return bool(cfg is not None and cfg.get('multi_agent', False))


@POLICY_REGISTRY.register('ppo')
class PPOPolicy(ppo.PPOPolicy):
    config = dict(multi_agent=False)  # DI-engine's switch: True builds MAPPOPolicy
    __new__ = _new

    @classmethod
    def variant_for(cls, cfg: Any) -> type:
        return mappo.MAPPOPolicy if cls is PPOPolicy and _multi_agent(cfg) else cls


@POLICY_REGISTRY.register('discrete_sac')
class DiscreteSACPolicy(discrete_sac.DiscreteSACPolicy):
    config = dict(multi_agent=False)  # DI-engine's switch: True builds MASACPolicy
    __new__ = _new

    @classmethod
    def variant_for(cls, cfg: Any) -> type:
        return masac.MASACPolicy if cls is DiscreteSACPolicy and _multi_agent(cfg) else cls


SACDiscretePolicy = DiscreteSACPolicy  # DI-engine's name


def _recurrent(cfg: Any) -> bool:
    collect = (cfg or {}).get('collect') or {}
    return int(collect.get('unroll_len', qmix_recurrent.RECURRENT_DEFAULT_UNROLL_LEN) or 1) > 1


@POLICY_REGISTRY.register('qmix')
class QMIXPolicy(qmix.QMIXPolicy):
    __new__ = _new

    @classmethod
    def variant_for(cls, cfg: Any) -> type:
        """`collect.unroll_len > 1`, or none given, builds the GRU variant learning from sequences
        (ding/policy/qmix_recurrent.py); 1 the feed-forward policy (ding/policy/qmix.py)."""
        return qmix_recurrent.RecurrentQMIXPolicy if cls is QMIXPolicy and _recurrent(cfg) else cls


@POLICY_REGISTRY.register('vdn')
class VDNPolicy(qmix.VDNPolicy):
    __new__ = _new

    @classmethod
    def variant_for(cls, cfg: Any) -> type:
        return qmix_recurrent.RecurrentVDNPolicy if cls is VDNPolicy and _recurrent(cfg) else cls
