"""Small network blocks: `fc_block`, `MLP`, `build_normalization`."""
from typing import Callable, Optional, Type

import torch.nn as nn

_NORMS = {
    'BN': {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d},
    'IN': {1: nn.InstanceNorm1d, 2: nn.InstanceNorm2d, 3: nn.InstanceNorm3d},
    'LN': nn.LayerNorm,
    'GN': {2: nn.GroupNorm},
    'SyncBN': {2: nn.SyncBatchNorm},
}


def build_normalization(norm_type: str, dim: Optional[int] = None) -> Type[nn.Module]:
    """The normalization class for `norm_type` ('BN', 'LN', 'IN', 'GN', 'SyncBN') and `dim`."""
    if norm_type not in _NORMS:
        raise KeyError(f'unknown norm_type {norm_type!r}; valid: {sorted(_NORMS)}')
    norm = _NORMS[norm_type]
    if isinstance(norm, dict):
        if dim not in norm:
            raise ValueError(f'norm_type {norm_type!r} supports dim {sorted(norm)}, got {dim}')
        return norm[dim]
    return norm


def build_activation(activation: str, inplace: Optional[bool] = None) -> nn.Module:
    acts = {'relu': nn.ReLU, 'tanh': nn.Tanh, 'sigmoid': nn.Sigmoid, 'gelu': nn.GELU, 'silu': nn.SiLU,
            'swish': nn.SiLU, 'leakyrelu': nn.LeakyReLU, 'elu': nn.ELU, 'softplus': nn.Softplus}
    name = activation.lower()
    if name not in acts:
        raise KeyError(f'unknown activation {activation!r}; valid: {sorted(acts)}')
    return acts[name](inplace=inplace) if inplace is not None and name in ('relu', 'leakyrelu', 'elu') else acts[name]()


def fc_block(in_channels: int, out_channels: int, activation: Optional[nn.Module] = None,
             norm_type: Optional[str] = None, use_dropout: bool = False,
             dropout_probability: float = 0.5) -> nn.Sequential:
    """Linear, then optional normalization, activation and dropout."""
    layers = [nn.Linear(in_channels, out_channels)]
    if norm_type is not None:
        layers.append(build_normalization(norm_type, dim=1)(out_channels))
    if activation is not None:
        layers.append(activation)
    if use_dropout:
        layers.append(nn.Dropout(dropout_probability))
    return nn.Sequential(*layers)


def MLP(in_channels: int, hidden_channels: int, out_channels: int, layer_num: int,
        layer_fn: Optional[Callable] = None, activation: Optional[nn.Module] = None, norm_type: Optional[str] = None,
        use_dropout: bool = False, dropout_probability: float = 0.5, output_activation: bool = True,
        output_norm: bool = True, last_linear_layer_init_zero: bool = False) -> nn.Sequential:
    """`layer_num` linear layers in -> hidden ... -> out, each followed by norm/activation/dropout
    (the last one only with `output_norm` / `output_activation`)."""
    if layer_num < 1:
        raise ValueError(f'MLP needs layer_num >= 1, got {layer_num}')
    layer_fn = layer_fn or nn.Linear
    channels = [in_channels] + [hidden_channels] * (layer_num - 1) + [out_channels]
    layers = []
    for i, (cin, cout) in enumerate(zip(channels[:-1], channels[1:])):
        last = i == layer_num - 1
        layers.append(layer_fn(cin, cout))
        if norm_type is not None and (not last or output_norm):
            layers.append(build_normalization(norm_type, dim=1)(cout))
        if activation is not None and (not last or output_activation):
            layers.append(activation)
        if use_dropout and not last:
            layers.append(nn.Dropout(dropout_probability))
    if last_linear_layer_init_zero:
        linear = [m for m in layers if isinstance(m, nn.Linear)][-1]
        nn.init.zeros_(linear.weight)
        nn.init.zeros_(linear.bias)
    return nn.Sequential(*layers)
