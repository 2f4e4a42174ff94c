"""Building policies from configs, a random policy for warm-up collection, and a one-env
wrapper for deployment."""
import copy
import importlib
from typing import Any, Callable, Dict, Mapping, Optional, Sequence

import numpy as np

from ding.data.batch import Batch, as_batch
from ding.model.action_mask import split_action_mask
from ding.policy.policy import Policy
from ding.policy.policy_modes import _split_by_env
from ding.utils.registry import POLICY_REGISTRY


def create_policy(cfg: Mapping, **kwargs: Any) -> Policy:
    """`cfg` is the policy config: modules in `cfg.import_names` are imported, then the class
    registered as `cfg.type` is built with `cfg` and `kwargs` (model=..., enable_field=...)."""
    for name in cfg.get('import_names', None) or ():
        importlib.import_module(name)
    if not cfg.get('type'):
        raise KeyError('create_policy needs cfg.type, the registered policy name (e.g. "dqn")')
    return POLICY_REGISTRY.lookup(cfg['type'])(cfg, **kwargs)


def sample_actions(space: Any, n: int) -> np.ndarray:
    """`n` samples of a gymnasium space stacked on a leading axis, drawn from the space's own
    generator (one vectorised draw for Discrete and bounded Box)."""
    from gymnasium import spaces
    rng = space.np_random
    if isinstance(space, spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=n).astype(np.int64)
    if isinstance(space, spaces.Box) and space.is_bounded():
        return rng.uniform(space.low, space.high, size=(n, *space.shape)).astype(space.dtype)
    return np.stack([np.asarray(space.sample()) for _ in range(n)])


class RandomPolicy:
    """Collect-mode look-alike that acts uniformly at random from the env's action space.

    Everything but the action is delegated to the wrapped collect mode, so transitions match
    what the real policy would produce; when the policy stores extra outputs per transition
    (`transition_keys`) it is still run and only its action is replaced.
    """

    def __init__(self, collect_mode: Any, action_space: Any) -> None:
        self._mode = collect_mode
        self._space = copy.deepcopy(action_space)
        if getattr(self._space, '_np_random', None) is None:
            # not seeded by the user: draw its seed from numpy, so set_pkg_seed makes it repeatable
            self._space.seed(int(np.random.randint(2**31 - 1)))

    @property
    def transition_keys(self) -> Sequence[str]:
        return self._mode.transition_keys

    def forward_batch(self, obs: Any, **kwargs: Any) -> Dict[str, np.ndarray]:
        n = len(obs)
        out = self._mode.forward_batch(obs, **kwargs) if self.transition_keys else {}
        _, mask = split_action_mask(obs)
        out['action'] = sample_actions(self._space, n) if mask is None else self._allowed_actions(mask)
        return out

    def _allowed_actions(self, mask: Any) -> np.ndarray:
        """Each action drawn uniformly from those its mask row allows: a mask [n, A] gives [n]
        actions, a multi-agent one [n, agents, A] gives [n, agents] (MultiDiscrete)."""
        allowed = np.asarray(mask.cpu() if hasattr(mask, 'cpu') else mask) != 0
        if not allowed.any(axis=-1).all():
            raise ValueError('an observation\'s action_mask allows no action')
        rng = self._space.np_random
        rows = allowed.reshape(-1, allowed.shape[-1])
        return np.array([rng.choice(np.flatnonzero(row)) for row in rows], dtype=np.int64).reshape(allowed.shape[:-1])

    def forward(self, data: Any, **kwargs: Any) -> Any:
        """`{env_id: obs}` -> `{env_id: {'action': ...}}`; a stacked array goes to `forward_batch`."""
        if isinstance(data, Mapping) and not isinstance(data, Batch):
            env_ids = list(data.keys())
            first = data[env_ids[0]]
            obs = as_batch([data[i] for i in env_ids]) if isinstance(first, Mapping) \
                else np.stack([np.asarray(data[i]) for i in env_ids])
            return _split_by_env(env_ids, self.forward_batch(obs, **kwargs))
        return self.forward_batch(data, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # the rest of the mode's interface (process_transition, reset, ...) is the wrapped mode's
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self._mode, name)


def get_random_policy(cfg: Optional[Mapping], policy: Any, env: Any) -> RandomPolicy:
    """A random policy with `policy`'s collect-mode interface (`policy` is a Policy or its
    collect mode), sampling `env.action_space`. `cfg` is part of the signature and is not read."""
    collect_mode = policy.collect_mode if isinstance(policy, Policy) else policy
    return RandomPolicy(collect_mode, env.action_space)


def single_env_forward_wrapper(forward_fn: Callable) -> Callable[[Any], np.ndarray]:
    """Deploy helper: one observation in, one action (numpy) out, around a mode's `forward`
    (`{env_id: obs} -> {env_id: {'action': ...}}`)."""

    def forward(obs: Any) -> np.ndarray:
        return np.asarray(forward_fn({0: obs})[0]['action'])

    return forward
