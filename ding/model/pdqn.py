"""`PDQN` (Xiong et al. 2018): the two networks of parameterised-action Q-learning.

A hybrid action is a discrete `action_type` k plus continuous `action_args` x in [-1, 1]^M.
- the parameter network x(s) (`compute_continuous`) proposes the args: `{'action_args': [B, M]}`;
- the Q network Q(s, x) (`compute_discrete`) values every action type given the state and the
  args: `{'logit': [B, K], 'action_args': [B, M]}`, from a dict `{'state', 'action_args'}`.
Each network has its own encoder, so the two optimisers (`learning_rate_dis` /
`learning_rate_cont`) own disjoint parameters. `multi_pass=True` (MP-DQN, Bester et al. 2019)
evaluates Q once per action type with only that type's args visible (the rest set to 0),
so Q(s, k, .) does not depend on other types' args; `action_mask[k][m] = 1` says arg m
belongs to type k.
"""
from typing import Any, Dict, Mapping, Optional, Sequence, Type, Union

import torch
from torch import nn

from ding.model.common import as_activation_class, mlp
from ding.model.conv_encoders import build_encoder
from ding.model.dqn import DiscreteHead, DuelingHead
from ding.utils.registry import MODEL_REGISTRY


def _size(value: Any, name: str) -> int:
    """A size written as 3 or (3, )."""
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(f'PDQN: action_shape.{name} must be one size, got {value!r}')
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f'PDQN: action_shape.{name} must be a positive int, got {value!r}')
    return value


@MODEL_REGISTRY.register('pdqn')
class PDQN(nn.Module):
    """`action_shape` is a dict with `action_type_shape` (K) and `action_args_shape` (M)."""
    mode = ['compute_discrete', 'compute_continuous']

    def __init__(self, obs_shape: Union[int, Sequence[int]], action_shape: Mapping[str, Any],
                 encoder_hidden_size_list: Sequence[int] = (128, 128, 64), dueling: bool = True,
                 head_hidden_size: Optional[int] = None, head_layer_num: int = 1,
                 activation: Union[Type[nn.Module], nn.Module] = nn.ReLU, multi_pass: bool = False,
                 action_mask: Optional[Sequence[Sequence[int]]] = None) -> None:
        super().__init__()
        missing = {'action_type_shape', 'action_args_shape'} - set(action_shape)
        if missing:
            raise ValueError(f'PDQN: action_shape needs keys {sorted(missing)}, got {dict(action_shape)}')
        self.action_type_shape = _size(action_shape['action_type_shape'], 'action_type_shape')
        self.action_args_shape = _size(action_shape['action_args_shape'], 'action_args_shape')
        act = as_activation_class(activation)
        self.dis_encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        self.cont_encoder = build_encoder(obs_shape, list(encoder_hidden_size_list), act)
        feature = self.dis_encoder.output_size
        hidden = head_hidden_size or feature
        # tanh keeps the args in [-1, 1], the range envs scale from
        self.cont_head = nn.Sequential(
            mlp(feature, [hidden] * head_layer_num, act, out_dim=self.action_args_shape, last_activation=False),
            nn.Tanh())
        head_cls = DuelingHead if dueling else DiscreteHead
        self.dis_head = head_cls(hidden, self.action_type_shape, head_layer_num, act,
                                 input_size=feature + self.action_args_shape)
        self.multi_pass = bool(multi_pass)
        if self.multi_pass:
            mask = torch.as_tensor(action_mask if action_mask is not None else [], dtype=torch.float32)
            if mask.shape != (self.action_type_shape, self.action_args_shape):
                raise ValueError(f'PDQN: multi_pass needs action_mask of shape [action_type_shape, action_args_shape]'
                                 f' = [{self.action_type_shape}, {self.action_args_shape}], got {action_mask!r}')
            self.register_buffer('action_mask', mask)

    def forward(self, inputs: Any, mode: str) -> Dict[str, torch.Tensor]:
        if mode not in self.mode:
            raise ValueError(f'PDQN: unknown forward mode {mode!r}; modes: {self.mode}')
        return getattr(self, mode)(inputs)

    def compute_continuous(self, obs: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {'action_args': self.cont_head(self.cont_encoder(obs))}

    def compute_discrete(self, inputs: Mapping[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        feature = self.dis_encoder(inputs['state'])
        args = inputs['action_args']
        if args.dim() == 1:  # one arg per sample given as [B]
            args = args.unsqueeze(1)
        if not self.multi_pass:
            return {'logit': self.dis_head(torch.cat([feature, args], dim=-1))['logit'], 'action_args': args}
        # one pass per type k: [B, K, feature + M] with the args of other types zeroed
        k = self.action_type_shape
        passes = torch.cat([feature.unsqueeze(1).expand(-1, k, -1), args.unsqueeze(1) * self.action_mask], dim=-1)
        q_all = self.dis_head(passes.flatten(0, 1))['logit'].view(-1, k, k)
        return {'logit': q_all.diagonal(dim1=1, dim2=2), 'action_args': args}
