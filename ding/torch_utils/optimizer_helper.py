"""`Adam` / `RMSprop`: torch's optimizers with optional gradient clipping
(`grad_clip_type='clip_norm'` with `clip_value` as max norm, or `'clip_value'`), applied in `step()`."""
from typing import Any, Iterable, Optional, Tuple

import torch

_CLIP_TYPES = (None, 'none', 'clip_norm', 'clip_value')


def _check(grad_clip_type: Optional[str], grad_ignore_type: Optional[str], grad_norm_type: Optional[str]) -> None:
    if grad_clip_type not in _CLIP_TYPES:
        raise NotImplementedError(
            f'grad_clip_type={grad_clip_type!r} is not implemented in ding; use one of {_CLIP_TYPES}')
    if grad_ignore_type not in (None, 'none') or grad_norm_type not in (None, 'none'):
        raise NotImplementedError('grad_ignore_type and grad_norm_type are not implemented in ding')


class _Clipping:
    """Mixin: clip gradients of every parameter group before the optimizer step."""

    def _setup_clip(self, grad_clip_type: Optional[str], clip_value: Optional[float], clip_norm_type: float) -> None:
        self._grad_clip_type = None if grad_clip_type == 'none' else grad_clip_type
        if self._grad_clip_type is not None and clip_value is None:
            raise ValueError(f'grad_clip_type={grad_clip_type!r} needs clip_value')
        self._clip_value, self._clip_norm_type = clip_value, clip_norm_type

    def _clip(self) -> None:
        params = [p for group in self.param_groups for p in group['params'] if p.grad is not None]
        if self._grad_clip_type == 'clip_norm':
            torch.nn.utils.clip_grad_norm_(params, self._clip_value, self._clip_norm_type)
        elif self._grad_clip_type == 'clip_value':
            torch.nn.utils.clip_grad_value_(params, self._clip_value)


class Adam(_Clipping, torch.optim.Adam):

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, optim_type: str = 'adam',
                 grad_clip_type: Optional[str] = None, clip_value: Optional[float] = None, clip_coef: float = 5,
                 clip_norm_type: float = 2.0, clip_momentum_timestep: int = 100,
                 grad_norm_type: Optional[str] = None, grad_ignore_type: Optional[str] = None,
                 ignore_value: Optional[float] = None, ignore_coef: float = 5, ignore_norm_type: float = 2.0,
                 ignore_momentum_timestep: int = 100) -> None:
        _check(grad_clip_type, grad_ignore_type, grad_norm_type)
        if optim_type not in ('adam', 'adamw'):
            raise ValueError(f"optim_type must be 'adam' or 'adamw', got {optim_type!r}")
        # adamw: decoupled weight decay, applied as torch.optim.AdamW does
        self._decoupled_wd = weight_decay if optim_type == 'adamw' else 0.0
        super().__init__(params, lr=lr, betas=betas, eps=eps, amsgrad=amsgrad,
                         weight_decay=0.0 if optim_type == 'adamw' else weight_decay)
        self._setup_clip(grad_clip_type, clip_value, clip_norm_type)

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        self._clip()
        if self._decoupled_wd:
            for group in self.param_groups:
                for p in group['params']:
                    if p.grad is not None:
                        p.mul_(1 - group['lr'] * self._decoupled_wd)
        return super().step(closure)


class RMSprop(_Clipping, torch.optim.RMSprop):

    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 grad_clip_type: Optional[str] = None, clip_value: Optional[float] = None, clip_coef: float = 5,
                 clip_norm_type: float = 2.0, clip_momentum_timestep: int = 100,
                 grad_norm_type: Optional[str] = None, grad_ignore_type: Optional[str] = None,
                 ignore_value: Optional[float] = None, ignore_coef: float = 5, ignore_norm_type: float = 2.0,
                 ignore_momentum_timestep: int = 100) -> None:
        _check(grad_clip_type, grad_ignore_type, grad_norm_type)
        super().__init__(params, lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                         centered=centered)
        self._setup_clip(grad_clip_type, clip_value, clip_norm_type)

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        self._clip()
        return super().step(closure)
