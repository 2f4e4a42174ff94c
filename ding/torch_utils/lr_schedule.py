"""`learn.lr_scheduler` (and PPO's `learn.entropy_scheduler`): a factor of a base value that
follows the number of learner updates (`learn_mode.forward` calls) made so far.

The config is `lr_scheduler=dict(epoch_num=N, min_lr_lambda=m)` (PPO's linear
decay from 1 to m over N updates; PPOF's `(N, m)` pair is accepted too), with `type`
choosing the kind:

- `linear` (the default): `max(1 - k (1 - m) / N, m)`.
- `cosine`: `epoch_num`, `min_lr_lambda`, and `warmup_epoch` W (default 0): `k / W` during the
  warm-up, then half a cosine from 1 down to m at update N, m after.
- `step`: `decay_epoch` S and `decay_rate` g (the names BC configs use): `g ** (k // S)`.

Update k (counting from 0) runs with factor(k). `ScheduledLR` applies the factor to every
parameter group of every optimizer a policy built (each relative to its own initial lr), so one
key schedules the actor, critic and temperature rates together. Where an optimizer is
`capturable` (CUDA graphs), the lr of each group becomes a tensor updated in place, which a
captured update reads at every replay; a float would be baked into the graph at capture.
"""
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

import torch

_KEYS = {
    'linear': ({'epoch_num'}, {'min_lr_lambda'}),  # (required, optional)
    'cosine': ({'epoch_num'}, {'min_lr_lambda', 'warmup_epoch'}),
    'step': ({'decay_epoch', 'decay_rate'}, set()),
}


@dataclass(frozen=True)
class Schedule:
    kind: str
    epoch_num: int = 0
    min_lr_lambda: float = 0.0
    warmup_epoch: int = 0
    decay_epoch: int = 0
    decay_rate: float = 1.0

    def factor(self, updates: int) -> float:
        """The multiplier of the base value for the update after `updates` updates."""
        if self.kind == 'linear':
            return max(1.0 - updates * (1.0 - self.min_lr_lambda) / self.epoch_num, self.min_lr_lambda)
        if self.kind == 'cosine':
            if updates < self.warmup_epoch:
                return updates / self.warmup_epoch
            if updates >= self.epoch_num:
                return self.min_lr_lambda
            progress = (updates - self.warmup_epoch) / (self.epoch_num - self.warmup_epoch)
            return self.min_lr_lambda + (1.0 - self.min_lr_lambda) * 0.5 * (1.0 + math.cos(math.pi * progress))
        return self.decay_rate ** (updates // self.decay_epoch)


def parse_schedule(spec: Any, key: str) -> Optional[Schedule]:
    """The Schedule of config value `spec` (None: no schedule); ValueError naming `key` otherwise."""
    if spec is None:
        return None
    if isinstance(spec, (list, tuple)):
        if len(spec) != 2:
            raise ValueError(f'{key}: a pair is (epoch_num, min_lr_lambda), got {list(spec)}')
        spec = {'epoch_num': spec[0], 'min_lr_lambda': spec[1]}
    if not isinstance(spec, Mapping):
        raise ValueError(f'{key} must be a dict such as dict(type="linear", epoch_num=1000, min_lr_lambda=0.1), '
                         f'got {spec!r}')
    spec = dict(spec)
    kind = spec.pop('type', 'linear')
    if kind not in _KEYS:
        raise ValueError(f'{key}.type must be one of {", ".join(_KEYS)}, got {kind!r}')
    required, optional = _KEYS[kind]
    missing, unknown = required - set(spec), set(spec) - required - optional
    if missing or unknown:
        raise ValueError(f'{key} of type {kind!r} takes {sorted(required)} and optionally {sorted(optional)}; '
                         + (f'missing {sorted(missing)}' if missing else f'unknown {sorted(unknown)}'))
    schedule = Schedule(kind, **spec)
    _check_numbers(schedule, key)
    return schedule


def _check_numbers(s: Schedule, key: str) -> None:
    if s.kind in ('linear', 'cosine') and not s.epoch_num > 0:
        raise ValueError(f'{key}.epoch_num must be positive, got {s.epoch_num}')
    if not 0.0 <= s.min_lr_lambda <= 1.0:
        raise ValueError(f'{key}.min_lr_lambda must be in [0, 1], got {s.min_lr_lambda}')
    if s.kind == 'cosine' and not 0 <= s.warmup_epoch < s.epoch_num:
        raise ValueError(f'{key}.warmup_epoch must be in [0, epoch_num), got {s.warmup_epoch}')
    if s.kind == 'step' and not (s.decay_epoch > 0 and s.decay_rate > 0):
        raise ValueError(f'{key}: decay_epoch and decay_rate must be positive, got {s.decay_epoch}, {s.decay_rate}')


class ScheduledLR:
    """Sets the lr of every group of `optimizers` to its initial lr times `schedule.factor(updates)`.

    A torch `LambdaLR` a policy steps itself (DT's warm-up, on-policy `lr_decay_iters`) keeps
    working: its `base_lrs` are scaled by the factor, so the two schedules multiply."""

    def __init__(self, schedule: Schedule, optimizers: Sequence[torch.optim.Optimizer],
                 own_schedulers: Sequence[Any] = ()) -> None:
        self.schedule = schedule
        self.updates = 0
        self._optimizers = list(optimizers)
        self._base = [[float(group['lr']) for group in opt.param_groups] for opt in self._optimizers]
        self._own = {id(s.optimizer): s for s in own_schedulers}
        for scheduler in own_schedulers:
            if not isinstance(scheduler, torch.optim.lr_scheduler.LambdaLR):
                raise ValueError(f'learn.lr_scheduler cannot be combined with the policy\'s own '
                                 f'{type(scheduler).__name__}; only a LambdaLR composes with it')
            self._base[self._optimizers.index(scheduler.optimizer)] = [float(b) for b in scheduler.base_lrs]
        self._apply()

    @property
    def factor(self) -> float:
        return self.schedule.factor(self.updates)

    def step(self) -> None:
        """After one learner update: the next update runs with the next factor."""
        self.updates += 1
        self._apply()

    def _apply(self) -> None:
        factor = self.factor
        for opt, bases in zip(self._optimizers, self._base):
            own = self._own.get(id(opt))
            if own is not None:
                own.base_lrs = [b * factor for b in bases]
            for i, (group, base) in enumerate(zip(opt.param_groups, bases)):
                own_factor = own.lr_lambdas[i](own.last_epoch) if own is not None else 1.0
                _set_lr(opt, group, base * factor * own_factor)

    def state_dict(self) -> Dict[str, Any]:
        return {'updates': self.updates, 'base_lrs': self._base}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Resume at the saved update count (call after the optimizers' own state is loaded: that
        state carries the lr it was saved with, a float or a tensor on the saving device)."""
        self.updates = int(state['updates'])
        self._apply()


def _set_lr(opt: torch.optim.Optimizer, group: Dict[str, Any], value: float) -> None:
    if not opt.defaults.get('capturable', False):
        group['lr'] = value  # also turns a loaded tensor lr back into a float
        return
    lr = group['lr']
    device = group['params'][0].device
    if isinstance(lr, torch.Tensor) and lr.device == device:
        lr.fill_(value)  # in place: a captured graph reads this very tensor at its next replay
    else:
        group['lr'] = torch.tensor(value, dtype=torch.float32, device=device)


def optimizers_of(owner: Any) -> List[torch.optim.Optimizer]:
    """The optimizers an object holds as attributes, in attribute-name order."""
    return [v for _, v in sorted(vars(owner).items()) if isinstance(v, torch.optim.Optimizer)]


def lr_schedulers_of(owner: Any) -> List[Any]:
    """The torch LR schedulers an object holds as attributes (LRScheduler in torch >= 2.0)."""
    return [v for _, v in sorted(vars(owner).items()) if isinstance(v, torch.optim.lr_scheduler.LRScheduler)]
