"""`DRQN`: DQN with an LSTM between the encoder and the Q head (Hausknecht & Stone 2015), the
model of R2D2.

`forward({'obs': x, 'prev_state': s}, inference=False, saved_state_timesteps=None)`:
- `inference=True`: one step, x [B, ...] -> `logit` [B, A], `next_state`;
- otherwise a sequence, x [T, B, ...] -> `logit` [T, B, A], `next_state` (after the last step),
  `hidden_state` [T, B, H] (every step's h) and, given `saved_state_timesteps`, `saved_state`:
  the state after each listed number of steps (e.g. the end of R2D2's burn-in).

Recurrent state forms (`prev_state`; `next_state` comes back in the form it was given):
- packed: a tensor [B, 2, H] holding (h, c) per sample. Our policies use this form: it is one
  array per batch, stored as one replay column;
- listed: a list of B entries, each None (a fresh state) or {'h', 'c'} / (h, c) tensors
  of H elements (any shape, e.g. [1, 1, H]); `next_state` is then a list of {'h', 'c'} [1, 1, H];
- None: every sample starts from the zero state (packed form returned).

An action mask (`obs` a dict `{'observation', 'action_mask'}`, ding/model/action_mask.py) masks
`logit` step by step: the mask is [B, A] at inference and [T, B, A] for a sequence.

An optional `inputs['reset']` [T, B] bool zeroes a sample's state before step t: a replayed
window may run over an episode end, and the actor started the next episode from the zero state.
`lstm_type` 'normal' and 'pytorch' are both `nn.LSTM` here (no layer norm inside the LSTM cell;
'gru' is not supported).
"""
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, Union

import torch
from torch import nn

from ding.model.action_mask import MASK_KEY, mask_logit, split_action_mask
from ding.model.common import as_activation_class
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import DiscreteHead, DuelingHead, _action_count
from ding.utils.registry import MODEL_REGISTRY

State = Tuple[torch.Tensor, torch.Tensor]  # (h, c), each [1, B, H]: nn.LSTM's layout


@MODEL_REGISTRY.register('drqn')
class DRQN(nn.Module):
    """Encoder (MLP or conv) -> one-layer LSTM -> dueling or plain Q head."""

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Union[int, Sequence[int]],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), dueling: bool = True,
                 head_hidden_size: Optional[int] = None, head_layer_num: int = 1,
                 lstm_type: Optional[str] = 'normal', activation: Union[Type[nn.Module], nn.Module] = nn.ReLU,
                 norm_type: Optional[str] = None, res_link: bool = False) -> None:
        super().__init__()
        if lstm_type not in ('normal', 'pytorch', None):
            raise ValueError(f"DRQN: lstm_type {lstm_type!r} is not supported; use 'normal' or 'pytorch' (an LSTM)")
        if norm_type is not None:
            raise ValueError(f'DRQN: norm_type={norm_type!r} is not supported (only None)')
        act = as_activation_class(activation)
        self.encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        self.hidden_size = head_hidden_size or self.encoder.output_size
        if res_link and self.hidden_size != self.encoder.output_size:
            raise ValueError('DRQN: res_link adds the encoder output to the LSTM output, so head_hidden_size must '
                             f'equal encoder_hidden_size_list[-1] ({self.encoder.output_size})')
        self.rnn = nn.LSTM(self.encoder.output_size, self.hidden_size)
        self.res_link = res_link
        head_cls = DuelingHead if dueling else DiscreteHead
        self.head = head_cls(self.hidden_size, _action_count(action_shape), head_layer_num, act)

    # --- state conversions -----------------------------------------------------------------
    def zero_state(self, batch_size: int, device: Any = None) -> torch.Tensor:
        """The packed fresh state [B, 2, H]."""
        return torch.zeros(batch_size, 2, self.hidden_size, device=device)

    def _unpack(self, prev_state: Any, batch_size: int, device: Any) -> State:
        if prev_state is None:
            packed = self.zero_state(batch_size, device)
        elif isinstance(prev_state, torch.Tensor):
            packed = prev_state
        else:  # a list of per-sample states (B entries, each None, {'h', 'c'} or (h, c))
            if len(prev_state) != batch_size:
                raise ValueError(f'DRQN: prev_state has {len(prev_state)} entries for a batch of {batch_size}')
            packed = torch.stack([self._one_state(s, device) for s in prev_state])
        if packed.shape != (batch_size, 2, self.hidden_size):
            raise ValueError(f'DRQN: packed prev_state must be [B, 2, H] = [{batch_size}, 2, {self.hidden_size}], '
                             f'got {list(packed.shape)}')
        packed = packed.to(device=device, dtype=torch.float32)
        return packed[:, 0].unsqueeze(0).contiguous(), packed[:, 1].unsqueeze(0).contiguous()

    def _one_state(self, state: Any, device: Any) -> torch.Tensor:
        if state is None:
            return torch.zeros(2, self.hidden_size, device=device)
        h, c = (state['h'], state['c']) if isinstance(state, dict) else state
        return torch.stack([torch.as_tensor(h).reshape(-1), torch.as_tensor(c).reshape(-1)]).to(device)

    @staticmethod
    def _pack(state: State, as_list: bool) -> Any:
        h, c = state
        if as_list:
            return [{'h': h[:, i:i + 1], 'c': c[:, i:i + 1]} for i in range(h.shape[1])]
        return torch.stack([h[0], c[0]], dim=1)

    # --- forward ---------------------------------------------------------------------------
    def forward(self, inputs: Dict[str, Any], inference: bool = False,
                saved_state_timesteps: Optional[List[int]] = None) -> Dict[str, Any]:
        x, mask = split_action_mask(inputs['obs'])
        result = self._forward(x, inputs, inference, saved_state_timesteps)
        if mask is not None:
            result['logit'] = mask_logit(result['logit'], mask)
            result[MASK_KEY] = mask
        return result

    def _forward(self, x: torch.Tensor, inputs: Dict[str, Any], inference: bool,
                 saved_state_timesteps: Optional[List[int]]) -> Dict[str, Any]:
        prev_state = inputs.get('prev_state')
        as_list = isinstance(prev_state, (list, tuple))
        if inference:
            feature = self.encoder(x)
            state = self._unpack(prev_state, feature.shape[0], feature.device)
            out, state = self.rnn(feature.unsqueeze(0), state)
            out = out[0] + feature if self.res_link else out[0]
            result = self.head(out)
            result['next_state'] = self._pack(state, as_list)
            return result
        steps, batch = x.shape[:2]
        feature = self.encoder(x.reshape(steps * batch, *x.shape[2:])).view(steps, batch, -1)
        state = self._unpack(prev_state, batch, feature.device)
        outputs, saved = self._unroll(feature, state, inputs.get('reset'), sorted(set(saved_state_timesteps or ())))
        out = torch.cat([o for o, _ in outputs]) if outputs else feature.new_zeros(0, batch, self.hidden_size)
        hidden = out
        if self.res_link:
            out = out + feature
        result = self.head(out.reshape(steps * batch, -1))
        result = {k: v.view(steps, batch, *v.shape[1:]) for k, v in result.items()}
        result['next_state'] = self._pack(outputs[-1][1] if outputs else state, as_list)
        result['hidden_state'] = hidden
        if saved_state_timesteps is not None:
            result['saved_state'] = [self._pack(saved[t], as_list) for t in saved_state_timesteps]
        return result

    def _unroll(self, feature: torch.Tensor, state: State, reset: Optional[torch.Tensor],
                saved_at: List[int]) -> Tuple[List[Tuple[torch.Tensor, State]], Dict[int, State]]:
        """Runs the LSTM over `feature` [T, B, F] in as few calls as the resets and the saved
        timesteps allow; returns (output chunk, state after it) pairs and {t: state after t steps}."""
        steps = feature.shape[0]
        cuts = {t for t in saved_at if 0 < t < steps}
        if reset is not None:
            reset = torch.as_tensor(reset, device=feature.device).bool()
            cuts |= {int(t) for t in torch.nonzero(reset.any(dim=1)).flatten().tolist() if t > 0}
        bounds = [0] + sorted(cuts) + [steps]
        outputs, saved = [], {0: state} if 0 in saved_at else {}
        for start, end in zip(bounds[:-1], bounds[1:]):
            if reset is not None and reset[start].any():
                keep = (~reset[start]).float().view(1, -1, 1)
                state = (state[0] * keep, state[1] * keep)
            out, state = self.rnn(feature[start:end], state)
            outputs.append((out, state))
            saved[end] = state
        missing = [t for t in saved_at if t not in saved]
        if missing:
            raise ValueError(f'DRQN: saved_state_timesteps {missing} lie outside the sequence of {steps} steps')
        return outputs, saved
