"""`QMix` and `VDN`: value-decomposition Q-networks for cooperative multi-agent Q-learning.

Every agent has a Q-network over its own observation (one network shared by the agents, as in
the QMIX paper; feed-forward here, a GRU in ding/model/qmix_recurrent.py). The team's value is a
mix of the agents' chosen Q values:
- QMIX (Rashid et al. 2018): a monotonic mixing network whose weights come from hypernetworks of
  the global state (non-negative through `abs`), so `argmax` of the team value is each agent's
  own `argmax` while the team value can still depend non-linearly on the agents' values;
- VDN (Sunehag et al. 2018): the sum of the agents' Q values;
- `mixer='none'`: no mixing, one TD target per agent (independent Q-learning on the team reward).

Input: the multi-agent observation dict `{agent_state [B, A, obs], global_state [B, g],
action_mask [B, A, n]}` (ding/envs/petting_zoo_env.py). `model(obs)` gives `{'logit': [B, A, n]}`
(masked actions at a large negative value) for acting; `model(obs, action=a)` with `a [B, A]` adds
`agent_q_act [B, A]` and `total_q` ([B], or [B, A] without mixing); `action=None` with
`mix=True` mixes the greedy (allowed) actions' values, which is the bootstrap target.
"""
from typing import Any, Dict, Optional, Sequence, Union

import torch
from torch import nn
from torch.nn import functional as F

from ding.model.action_mask import MASKED_LOGIT
from ding.model.common import flat_dim, mlp
from ding.utils.registry import MODEL_REGISTRY

MIXERS = ('qmix', 'vdn', 'none')


def mixer_name(mixer: Union[bool, str]) -> str:
    """`mixer=True` is QMIX's mixing network, `False` the sum (VDN); or a name of MIXERS."""
    name = ('qmix' if mixer else 'vdn') if isinstance(mixer, bool) else mixer
    if name not in MIXERS:
        raise ValueError(f'mixer must be True (QMIX), False (VDN) or one of {MIXERS}, got {mixer!r}')
    return name


class Mixer(nn.Module):
    """QMIX's monotonic mixing network: agent values [B, A] and state [B, g] -> team value [B].

        hidden = elu(q @ |W1(s)| + b1(s)),   total = hidden @ |W2(s)| + V(s)

    W1, W2 are hypernetworks (linear in the state), V is a two-layer network of the state."""

    def __init__(self, agent_num: int, state_dim: int, embed_dim: int = 32, hypernet_dim: int = 64) -> None:
        super().__init__()
        self.agent_num, self.embed_dim = agent_num, embed_dim
        self.hyper_w1 = mlp(state_dim, [hypernet_dim], nn.ReLU, out_dim=agent_num * embed_dim, last_activation=False)
        self.hyper_b1 = nn.Linear(state_dim, embed_dim)
        self.hyper_w2 = mlp(state_dim, [hypernet_dim], nn.ReLU, out_dim=embed_dim, last_activation=False)
        self.value = mlp(state_dim, [embed_dim], nn.ReLU, out_dim=1, last_activation=False)

    def forward(self, agent_q: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        w1 = self.hyper_w1(state).abs().view(-1, self.agent_num, self.embed_dim)
        hidden = F.elu(torch.bmm(agent_q.unsqueeze(1), w1).squeeze(1) + self.hyper_b1(state))
        w2 = self.hyper_w2(state).abs()
        return (hidden * w2).sum(-1) + self.value(state).squeeze(-1)


@MODEL_REGISTRY.register('qmix')
class QMix(nn.Module):
    """`lstm_type` must stay None: this agent network is feed-forward; the GRU one (`lstm_type='gru'`) is
    RecurrentQMix, ding/model/qmix_recurrent.py."""

    def __init__(
            self,
            agent_num: int,
            obs_shape,
            global_obs_shape,
            action_shape,
            hidden_size_list: Sequence[int] = (64, 64),
            mixer: Union[bool, str] = True,
            lstm_type: Optional[str] = None,
            activation: Optional[nn.Module] = None,
            dueling: bool = False,
            mixing_embed_dim: int = 32,
    ) -> None:
        super().__init__()
        if lstm_type is not None:
            raise ValueError(f'QMix has a feed-forward agent network: lstm_type must be None, got {lstm_type!r}; '
                             f'the GRU agent network is RecurrentQMix (ding/model/qmix_recurrent.py), which '
                             f'QMIXPolicy builds when collect.unroll_len > 1')
        if dueling:
            raise ValueError('QMix: dueling heads are not supported (dueling must be False)')
        self.agent_num, self.mixer = int(agent_num), mixer_name(mixer)
        act = type(activation) if activation is not None else nn.ReLU
        self.q_network = mlp(flat_dim(obs_shape), list(hidden_size_list), act, out_dim=flat_dim(action_shape),
                             last_activation=False)
        self._mixer = Mixer(self.agent_num, flat_dim(global_obs_shape), mixing_embed_dim) \
            if self.mixer == 'qmix' else None

    def forward(self, obs: Dict[str, torch.Tensor], action: Optional[torch.Tensor] = None,
                mix: bool = False) -> Dict[str, torch.Tensor]:
        q = self.q_network(obs['agent_state'])
        mask = obs.get('action_mask')
        if mask is not None:
            q = q.masked_fill(mask == 0, MASKED_LOGIT)
        out = {'logit': q}
        if action is None and not mix:
            return out
        agent_q = q.max(-1).values if action is None else q.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)
        out['agent_q_act'] = agent_q
        out['total_q'] = self.mix(agent_q, obs['global_state'])
        return out

    def mix(self, agent_q: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        """Team value from the agents' values [..., A] ([..., A] unchanged without a mixer)."""
        if self.mixer == 'qmix':
            lead = agent_q.shape[:-1]
            flat = self._mixer(agent_q.reshape(-1, self.agent_num), state.reshape(lead.numel(), -1))
            return flat.view(lead)
        if self.mixer == 'vdn':
            return agent_q.sum(-1)
        return agent_q


@MODEL_REGISTRY.register('vdn')
class VDN(QMix):
    """QMix with the sum as its mixer: the team value is the sum of the agents' values."""

    def __init__(self, agent_num: int, obs_shape, action_shape, hidden_size_list: Sequence[int] = (64, 64),
                 global_obs_shape: Any = None, **kwargs: Any) -> None:
        if mixer_name(kwargs.pop('mixer', 'vdn')) != 'vdn':
            raise ValueError('VDN mixes by summing; for a mixing network use QMix(mixer=True)')
        super().__init__(agent_num, obs_shape, global_obs_shape or 1, action_shape, hidden_size_list, mixer='vdn',
                         **kwargs)
