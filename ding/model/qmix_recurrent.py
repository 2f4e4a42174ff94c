"""`RecurrentQMix`: QMIX / VDN with a GRU agent network (QMix's `lstm_type='gru'`),
learned from replayed sequences (ding/policy/qmix_recurrent.py).

The agent network is shared by the agents (as in the QMIX paper): an MLP encoder over
`hidden_size_list`, a GRU cell of width `hidden_size_list[-1]`, a Q head. Every agent carries its
own hidden state, so a state is [B, A, H]. The team value is mixed as in QMix
(ding/model/qmix.py): QMIX's monotonic mixer (embedding `hidden_size_list[-1]`), the sum
(VDN) or none.

`forward(inputs, single_step=True, mix=False)`:
- inputs: `obs` (the multi-agent dict: agent_state, global_state, action_mask), `prev_state`
  (packed [B, A, H]; None for fresh states; or a list of B lists of A entries, each
  None or a tensor of H elements), optional `action`, and optional `reset` [T, B] bool (ours):
  zero a sample's state before step t, as the actor did when an episode ended inside a window;
- `single_step=True`: agent_state [B, A, N] -> `logit` [B, A, n] (masked actions at a large
  negative value), `next_state` [B, A, H];
- `single_step=False`: agent_state [T, B, A, N], global_state [T, B, ...] -> `logit`
  [T, B, A, n], `next_state` [B, A, H] after the last step and `hidden_state` [T, B, A, H], the
  state after every step (before any reset at the next one);
- with `action` (or `mix=True`: the greedy allowed actions) also `agent_q_act` and `total_q`
  ([B] or [T, B]; per agent without a mixer).
"""
from typing import Any, Dict, Optional, Sequence, Union

import torch
from torch import nn

from ding.model.action_mask import MASKED_LOGIT
from ding.model.common import as_activation_class, flat_dim
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import DiscreteHead, DuelingHead, _action_count
from ding.model.qmix import Mixer, QMix, mixer_name
from ding.utils.registry import MODEL_REGISTRY


@MODEL_REGISTRY.register('qmix_gru')
class RecurrentQMix(nn.Module):
    """QMix's arguments; `lstm_type` must be 'gru' (the default)."""

    def __init__(
            self,
            agent_num: int,
            obs_shape,
            global_obs_shape,
            action_shape,
            hidden_size_list: Sequence[int] = (64, ),
            mixer: Union[bool, str] = True,
            lstm_type: str = 'gru',
            activation: Any = nn.ReLU,
            dueling: bool = False,
            mixing_embed_dim: Optional[int] = None,
    ) -> None:
        super().__init__()
        if lstm_type != 'gru':
            raise ValueError(f"RecurrentQMix: lstm_type must be 'gru' (the default), got {lstm_type!r}; "
                             f"a feed-forward agent network is QMix (lstm_type=None, collect.unroll_len=1)")
        self.agent_num, self.mixer = int(agent_num), mixer_name(mixer)
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(hidden_size_list), act)
        self.hidden_size = self.encoder.output_size
        self.rnn = nn.GRUCell(self.hidden_size, self.hidden_size)
        self.head = (DuelingHead if dueling else DiscreteHead)(self.hidden_size, _action_count(action_shape), 1, act)
        embed = int(mixing_embed_dim or self.hidden_size)
        self._mixer = Mixer(self.agent_num, flat_dim(global_obs_shape), embed) if self.mixer == 'qmix' else None

    def zero_state(self, batch_size: int, device: Any = None) -> torch.Tensor:
        """Fresh states [B, A, H]."""
        return torch.zeros(batch_size, self.agent_num, self.hidden_size, device=device)

    def forward(self, inputs: Dict[str, Any], single_step: bool = True, mix: bool = False) -> Dict[str, Any]:
        obs = inputs['obs']
        if single_step:  # one step is a sequence of length 1
            obs = {k: v.unsqueeze(0) for k, v in obs.items()}
        agent_state = obs['agent_state']
        steps, batch = agent_state.shape[:2]
        state = self._unpack(inputs.get('prev_state'), batch, agent_state.device)
        feature = self.encoder(agent_state.reshape(steps * batch * self.agent_num, *agent_state.shape[3:]))
        feature = feature.view(steps, batch * self.agent_num, -1)
        reset = inputs.get('reset')
        h, after = state.reshape(batch * self.agent_num, -1), []
        for t in range(steps):
            if reset is not None:  # the actor zeroed the states of envs whose episode had ended
                keep = (~torch.as_tensor(reset[t], device=h.device).bool()).float()
                h = h * keep.repeat_interleave(self.agent_num).unsqueeze(-1)
            h = self.rnn(feature[t], h)
            after.append(h)
        hidden = torch.stack(after).view(steps, batch, self.agent_num, self.hidden_size)
        q = self.head(hidden.reshape(-1, self.hidden_size))['logit'].view(steps, batch, self.agent_num, -1)
        mask = obs.get('action_mask')
        if mask is not None:
            q = q.masked_fill(mask == 0, MASKED_LOGIT)
        out = {'logit': q, 'next_state': hidden[-1]}
        action = inputs.get('action')
        if action is not None or mix:
            if action is not None and single_step:
                action = action.unsqueeze(0)
            agent_q = q.max(-1).values if action is None else q.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)
            out['agent_q_act'] = agent_q
            out['total_q'] = self.mix(agent_q, obs['global_state'])
        if single_step:
            return {k: v if k == 'next_state' else v.squeeze(0) for k, v in out.items()}
        out['hidden_state'] = hidden
        return out

    mix = QMix.mix  # the same mixing, of [B, A] or of a sequence's [T, B, A]

    def _unpack(self, prev_state: Any, batch: int, device: Any) -> torch.Tensor:
        if prev_state is None:
            return self.zero_state(batch, device)
        if not isinstance(prev_state, torch.Tensor):  # a list of B lists of A states
            if len(prev_state) != batch or any(len(p) != self.agent_num for p in prev_state):
                raise ValueError(f'RecurrentQMix: prev_state must be {batch} lists of {self.agent_num} states')
            prev_state = torch.stack([
                torch.stack([torch.zeros(self.hidden_size, device=device) if s is None else
                             torch.as_tensor(s, device=device).reshape(-1) for s in agents]) for agents in prev_state
            ])
        if prev_state.shape != (batch, self.agent_num, self.hidden_size):
            raise ValueError(f'RecurrentQMix: prev_state must be [B, A, H] = [{batch}, {self.agent_num}, '
                             f'{self.hidden_size}], got {list(prev_state.shape)}')
        return prev_state.to(device=device, dtype=torch.float32)


@MODEL_REGISTRY.register('vdn_gru')
class RecurrentVDN(RecurrentQMix):
    """RecurrentQMix that sums the agents' values (no global state needed)."""

    def __init__(self, agent_num: int, obs_shape, action_shape, hidden_size_list: Sequence[int] = (64, ),
                 global_obs_shape: Any = None, **kwargs: Any) -> None:
        if mixer_name(kwargs.pop('mixer', 'vdn')) != 'vdn':
            raise ValueError('RecurrentVDN mixes by summing; for a mixing network use RecurrentQMix(mixer=True)')
        super().__init__(agent_num, obs_shape, global_obs_shape or 1, action_shape, hidden_size_list, mixer='vdn',
                         **kwargs)
