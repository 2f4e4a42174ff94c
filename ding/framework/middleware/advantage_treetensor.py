"""The advantage estimators over DI-engine's treetensor transitions (advantage.py's second path).

DI-engine's collectors hand `gae_estimator` a list of treetensor transitions and
`montecarlo_return_estimator` a list of episodes, each a list of them; its policies are reached
only through `policy.get_attribute('model')` (the critic: `model.forward(obs,
mode='compute_critic')['value']`) and the policy's config. Code written against DI-engine keeps
working here: the output is a treetensor too, with DI-engine's columns (`value`, `adv`,
`traj_flag`) plus our `return`. treetensor is optional for ding, so it is imported only here,
when such data arrives.
"""
import sys
from typing import Any, List, Optional

import torch

from ding.rl_utils.returns import discounted_return, gae


def is_treetensor_data(data: Any) -> bool:
    """Whether `data` is a treetensor, or a (nested) list whose first leaf item is one. No
    treetensor can exist before `treetensor.torch` is imported, so that is not imported here."""
    ttorch = sys.modules.get('treetensor.torch')
    if ttorch is None:
        return False
    while isinstance(data, (list, tuple)) and len(data):
        data = data[0]
    return isinstance(data, ttorch.Tensor)


def _collate(transitions: Any) -> Any:
    from ding.data.treetensor_collate import ttorch_collate
    import treetensor.torch as ttorch
    data = transitions if isinstance(transitions, ttorch.Tensor) else ttorch_collate(transitions, cat_1dim=True)
    action = data.action
    if action.is_floating_point() and action.dim() == 1:  # continuous actions are [B, D], also for D = 1
        data.action = action.unsqueeze(-1)
    return data


def _critic_values(model: Any, obs: torch.Tensor) -> torch.Tensor:
    """V(obs) [B] (or [B, A] for a per-agent critic), computed without gradients on the model's device."""
    params = list(model.parameters()) if isinstance(model, torch.nn.Module) else []
    device = params[0].device if params else obs.device
    with torch.no_grad():
        value = model.forward(obs.to(device=device, dtype=torch.float32), mode='compute_critic')['value']
    return torch.as_tensor(value).to(obs.device, torch.float32)


def treetensor_gae(transitions: Any, trajectory_end_idx: Any, policy: Any, gamma: float, lambda_: float) -> Any:
    """Transitions of consecutive steps (one env's segments back to back; `trajectory_end_idx`
    marks the last row of each) -> one treetensor with `value`, `adv`, `return`, `traj_flag`.
    V(obs) and V(next_obs) both come from the policy's critic, so a segment cut short or an
    episode truncated bootstraps from its own terminal obs."""
    data = _collate(transitions)
    model = policy.get_attribute('model')
    value = _critic_values(model, data.obs)
    next_value = _critic_values(model, data.next_obs)
    done = data.done.bool()
    traj_flag = done.clone()
    if trajectory_end_idx is not None:
        traj_flag[torch.as_tensor(trajectory_end_idx, dtype=torch.long)] = True
    end = traj_flag.clone()
    end[-1] = True  # the data ends here: no trace runs past its last row (traj_flag is not marked there)
    reward, terminated = data.reward.float(), done
    if value.dim() > reward.dim():  # a per-agent critic [B, A] shares the team reward [B]
        reward, terminated, end = (x.unsqueeze(-1) for x in (reward, terminated, end))
    data.value = value
    data.adv = gae(reward, value, next_value, terminated, end, gamma=gamma, lambda_=lambda_)
    setattr(data, 'return', data.adv + value)
    data.traj_flag = traj_flag
    return data


def treetensor_rows(data: Any) -> List[Any]:
    """One treetensor per transition (what a buffer stores, as gae_estimator pushes them)."""
    return [data[i] for i in range(len(data.done))]


def treetensor_returns(episodes: Any, gamma: float) -> Any:
    """Episodes (each a list of treetensor transitions, or one collated treetensor) -> one
    treetensor of all rows with a `return` column (no bootstrap: an episode's last row ends it)."""
    import treetensor.torch as ttorch
    parts = []
    for episode in episodes:
        if isinstance(episode, (list, tuple)) and len(episode) == 0:
            continue
        data = _collate(episode)
        end = data.done.bool().clone()
        end[-1] = True
        setattr(data, 'return', discounted_return(data.reward.float(), end, gamma))
        parts.append(data)
    if not parts:
        raise ValueError('montecarlo_return_estimator was given only empty episodes')
    return ttorch.cat(parts, dim=0)


def policy_config(policy: Any) -> Optional[Any]:
    """The config of a ding policy (`cfg`) or of one that keeps it as `_cfg`, asking a Mock
    only for what it defines."""
    from ding.utils.duck_typing import optional_attr
    cfg = optional_attr(policy, 'cfg')
    return cfg if cfg is not None else optional_attr(policy, '_cfg')
