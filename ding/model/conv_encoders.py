"""Which encoder an observation gets: an MLP for vectors, a conv stack for images [C, H, W].

Every model that encodes observations builds its encoder with `build_encoder`, so an image
observation never reaches a policy as 28,224 flattened pixels.

Atari frames (84x84) get `ConvEncoder` (ding/model/common.py) with the Nature DQN kernels
8/4/3 and strides 4/2/1 (Mnih et al. 2015). Those need a frame of at least 36x36; smaller grids
(MinAtar's 10x10xC, MiniGrid's 7x7x3 views) get `grid_encoder`: 3x3 stride-1 convs, as the
MinAtar paper's network (Young & Tian 2019: one conv of 16 channels, then 128 units is
`encoder_hidden_size_list=[16, 128]`). Either way `encoder_hidden_size_list` gives the conv
channels and, last, the width of the linear layer after them.
"""
from typing import Any, Sequence, Type, Union

from torch import nn

from ding.model.common import ConvEncoder, FCEncoder

NATURE_MIN_SIDE = 36  # the smallest side on which the 8/4, 4/2, 3/1 convs leave a 1x1 map


def grid_encoder(obs_shape: Sequence[int], hidden_size_list: Sequence[int],
                 activation: Type[nn.Module] = nn.ReLU) -> ConvEncoder:
    """3x3 stride-1 convs with channels `hidden_size_list[:-1]`, then a linear layer to
    `hidden_size_list[-1]`: for small grids, where every cell matters."""
    n_conv = len(hidden_size_list) - 1
    if n_conv < 1:
        raise ValueError(f'grid_encoder needs conv channels and a final width, e.g. [16, 128]; '
                         f'got {list(hidden_size_list)}')
    if min(obs_shape[1:]) < 2 * n_conv + 1:
        raise ValueError(f'{n_conv} 3x3 convs do not fit a {obs_shape[1]}x{obs_shape[2]} grid; give fewer hidden sizes')
    return ConvEncoder(obs_shape, hidden_size_list, activation, kernel_size=(3, ) * n_conv, stride=(1, ) * n_conv)


def image_encoder(obs_shape: Sequence[int], hidden_size_list: Sequence[int],
                  activation: Type[nn.Module] = nn.ReLU) -> ConvEncoder:
    """The Nature DQN stack for frames of at least 36x36, `grid_encoder` below that."""
    if min(obs_shape[1:]) >= NATURE_MIN_SIDE:
        return ConvEncoder(obs_shape, hidden_size_list, activation)
    return grid_encoder(obs_shape, hidden_size_list, activation)


def is_image(obs_shape: Any) -> bool:
    """An observation shape [C, H, W] (not an int, nor a dict of shapes)."""
    return isinstance(obs_shape, Sequence) and not isinstance(obs_shape, str) and len(obs_shape) == 3


def build_encoder(obs_shape: Union[int, Sequence[int]], hidden_size_list: Sequence[int],
                  activation: Type[nn.Module]) -> nn.Module:
    """FCEncoder for vector observations (int or 1-d shape), a conv encoder for images [C, H, W]."""
    shape = [obs_shape] if isinstance(obs_shape, int) else list(obs_shape)
    if len(shape) == 1:
        return FCEncoder(shape[0], hidden_size_list, activation)
    if is_image(shape):  # Atari frames or small grids (MinAtar)
        return image_encoder(shape, hidden_size_list, activation)
    raise ValueError(f'no encoder for obs_shape={obs_shape!r}: expected an int, [N] or [C, H, W]')
