"""A policy mode written to DI-engine's protocol that is no ding Policy, seen through our batched one.

DI-engine's collectors and evaluator take any object with `forward({env_id: obs}) -> {env_id:
output}`, `reset(env_ids)` and, for collection, `process_transition(obs, output, timestep)`: a
user's own class, or a `Mock` subclass in DI-engine's tests. Our middleware calls
`forward_batch(obs)` on a stacked observation; `as_batched_policy(policy)` (called once when a
middleware is built) returns a policy that has it as is, and wraps any other in
`DuckTypedMode`, which makes the `{i: obs[i]}` dict and stacks the actions back, as the modes of
a DI-engine-style `Policy` subclass do (ding/compat/policy.py).
"""
from typing import Any, Mapping, Optional, Sequence

from ding.utils.duck_typing import has_attr


def as_batched_policy(policy: Any) -> Any:
    """`policy` when it has our `forward_batch`; a DI-engine-protocol mode wrapped; else TypeError."""
    if has_attr(policy, 'forward_batch'):
        return policy
    if not has_attr(policy, 'forward'):
        raise TypeError(f'{type(policy).__name__} is no policy mode: it has neither forward_batch (ding) nor '
                        f"forward({{env_id: obs}}) (DI-engine); pass policy.collect_mode or policy.eval_mode")
    return DuckTypedMode(policy)


class DuckTypedMode:
    """`forward_batch` / `transition_recorder` over a DI-engine-protocol mode (see the module doc)."""
    transition_keys = ()  # the mode builds its own transitions, when it collects

    def __init__(self, mode: Any) -> None:
        self._mode = mode
        self.policy = mode  # what our middleware names in messages (`policy.policy`)

    def forward(self, data: Any, **kwargs: Any) -> Any:
        return self._mode.forward(data, **kwargs)

    def forward_batch(self, obs: Any, **kwargs: Any) -> Any:
        from ding.compat.policy_data import PolicyOutputs, obs_by_env
        data = obs_by_env(obs)
        return PolicyOutputs(self._mode.forward(data, **kwargs), data)

    def reset(self, env_ids: Optional[Sequence[int]] = None) -> None:
        if has_attr(self._mode, 'reset'):
            self._mode.reset(env_ids)

    def process_transition(self, obs: Any, output: Mapping[str, Any], timestep: Any) -> Any:
        return self._mode.process_transition(obs, output, timestep)

    def get_train_sample(self, data: Any) -> Any:
        return self._mode.get_train_sample(data) if has_attr(self._mode, 'get_train_sample') else data

    def transition_recorder(self, env_num: int) -> Any:
        """DI-engine's per-env transition lists (transitions.py), when the mode can build
        transitions; None for an acting-only (eval) mode."""
        if not has_attr(self._mode, 'process_transition'):
            return None
        from ding.compat.transitions import DIEngineTransitions
        return DIEngineTransitions(self, env_num)

    def __repr__(self) -> str:
        return f'DuckTypedMode({self._mode!r})'
