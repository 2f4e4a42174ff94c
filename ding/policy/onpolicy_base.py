"""What PPO, A2C and PG share: acting from the actor's distribution and one optimiser step.

Collecting samples an action from the distribution the actor outputs and stores its
log-probability (and the critic's value, for actor-critic methods) in the transition;
evaluating takes the distribution's mode. For continuous actions with `action_bound` set,
the env receives the sample clipped to [-bound, bound] while the transition also keeps the
unclipped sample as `raw_action`, so the learner scores exactly what was sampled.
"""
import logging
import math
from typing import Any, Dict, Sequence, Union

import torch
from torch.distributions import Categorical, Independent, Normal

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.policy import Policy
from ding.torch_utils.lr_schedule import parse_schedule
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.config.schema import positive, prob

logger = logging.getLogger('ding.policy')


def action_distribution(logit: Union[torch.Tensor, Dict[str, torch.Tensor]]) -> torch.distributions.Distribution:
    """Categorical over a logit tensor; diagonal Gaussian over {'mu', 'sigma'}."""
    if isinstance(logit, torch.Tensor):
        return Categorical(logits=logit, validate_args=False)
    return Independent(Normal(logit['mu'], logit['sigma'], validate_args=False), 1, validate_args=False)


def sample_action(logit: Union[torch.Tensor, Dict[str, torch.Tensor]]):
    """(action, log-prob of it). Both paths skip torch.distributions, whose objects cost as
    much as the whole network forward at one env's batch (CartPole, MuJoCo); the numbers are
    those the distributions give (the same sampling call, the same log-density arithmetic)."""
    if isinstance(logit, torch.Tensor):
        logp_all = torch.log_softmax(logit, -1)
        action = torch.multinomial(logp_all.exp(), 1)
        return action.squeeze(-1), logp_all.gather(-1, action).squeeze(-1)
    mu, sigma = logit['mu'], logit['sigma']
    action = torch.normal(mu, sigma)
    return action, _normal_logp(action, mu, sigma)


def _normal_logp(action: torch.Tensor, mu: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """Normal.log_prob, summed over the action dims as Independent(..., 1) does."""
    logp = -((action - mu)**2) / (2 * sigma**2) - sigma.log() - math.log(math.sqrt(2 * math.pi))
    return logp.sum(-1)


def logp_and_entropy(logit: Union[torch.Tensor, Dict[str, torch.Tensor]], action: torch.Tensor):
    """(log-prob of `action`, entropy) per sample, as `action_distribution(logit)` gives them,
    without building the distribution object: in a PPO update on CartPole that object and its
    backward took about a tenth of the step."""
    if isinstance(logit, torch.Tensor):
        logp_all = torch.log_softmax(logit, -1)
        # a masked action's log-prob is -inf and its probability 0: clamped as Categorical does,
        # so the entropy term stays 0 there rather than nan
        logp_all = logp_all.clamp(min=torch.finfo(logp_all.dtype).min)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        return logp_all.gather(-1, action.long().unsqueeze(-1)).squeeze(-1), entropy
    mu, sigma = logit['mu'], logit['sigma']
    entropy = 0.5 + 0.5 * math.log(2 * math.pi) + sigma.log()
    return _normal_logp(action, mu, sigma), entropy.sum(-1)


def require_columns(data: Batch, columns: Sequence[str], owner: str, producer: str) -> None:
    """Fail with the middleware to add when the train data lacks a column the update reads."""
    missing = [c for c in columns if c not in data]
    if missing:
        raise KeyError(f'{owner} needs columns {missing} in its train data (has {sorted(data.keys())}); '
                       f'put {producer} before the learner')


def greedy_action(logit: Union[torch.Tensor, Dict[str, torch.Tensor]]) -> torch.Tensor:
    return logit.argmax(-1) if isinstance(logit, torch.Tensor) else logit['mu']


class OnPolicyBase(Policy):
    config = dict(
        on_policy=True,
        action_space='discrete',
        # continuous only: actions sent to the env are clipped to [-action_bound, action_bound]
        action_bound=None,
        learn=dict(
            learning_rate=positive(3e-4),
            # max global gradient norm; None disables clipping
            grad_clip_value=0.5,
            entropy_weight=0.0,
            # None, or a schedule of entropy_weight over the learner updates, in lr_scheduler's layout
            # (dict(type='linear', epoch_num=N, min_lr_lambda=m): the weight falls to m * entropy_weight)
            entropy_scheduler=None,
            # anneal the learning rate linearly to 0 over this many optimizer steps; None keeps it constant
            lr_decay_iters=None,
        ),
        collect=dict(discount_factor=prob(0.99)),
    )
    # whether the model has a critic (VAC) or only an actor (PG)
    has_critic = True

    def default_model(self) -> torch.nn.Module:
        from ding.model.vac import VAC
        return build_model(VAC, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        self._params = [p for p in self._model.parameters() if p.requires_grad]
        # fused Adam: one kernel for all parameters; per-tensor Adam costs more than the
        # forward-backward itself on networks this small
        self._optimizer = torch.optim.Adam(self._params, lr=self._cfg.learn.learning_rate, fused=True)
        decay = self._cfg.learn.lr_decay_iters
        self._lr_schedule = None if not decay else torch.optim.lr_scheduler.LambdaLR(
            self._optimizer, lambda it: max(0.0, 1.0 - it / float(decay)))
        self._entropy_schedule = parse_schedule(self._cfg.learn.entropy_scheduler, 'policy.learn.entropy_scheduler')
        self._entropy_updates = 0  # learner updates (learn_mode.forward calls) the entropy schedule has seen

    def _entropy_weight(self) -> float:
        """entropy_weight for this update, after `learn.entropy_scheduler`."""
        weight = float(self._cfg.learn.entropy_weight)
        if self._entropy_schedule is None:
            return weight
        return weight * self._entropy_schedule.factor(self._entropy_updates)

    def _after_update(self) -> None:
        super()._after_update()
        self._entropy_updates += 1

    def _optimizer_step(self, loss: torch.Tensor) -> float:
        """Backward, clip the gradient norm, step; returns the gradient norm before clipping."""
        self._optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self._sync_gradients()
        clip = self._cfg.learn.grad_clip_value
        norm = torch.nn.utils.clip_grad_norm_(self._params, clip if clip is not None else float('inf'), foreach=True)
        self._optimizer.step()
        if self._lr_schedule is not None:
            self._lr_schedule.step()
        return float(norm)

    def _learn_action(self, batch: Batch) -> torch.Tensor:
        """The action the behaviour distribution produced (unclipped when it was clipped for the env)."""
        return batch['raw_action'] if 'raw_action' in batch else batch['action']

    def _state_dict_learn(self) -> Dict[str, Any]:
        state = {'model': self._model.state_dict(), 'optimizer': self._optimizer.state_dict()}
        if self._lr_schedule is not None:
            state['lr_schedule'] = self._lr_schedule.state_dict()
        if self._entropy_schedule is not None:
            state['entropy_updates'] = self._entropy_updates
        return state

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if 'optimizer' in state and hasattr(self, '_optimizer'):
            load_optimizer_state(self._optimizer, state['optimizer'])
        if 'lr_schedule' in state and getattr(self, '_lr_schedule', None) is not None:
            self._lr_schedule.load_state_dict(state['lr_schedule'])
        if getattr(self, '_entropy_schedule', None) is not None:
            if 'entropy_updates' not in state:
                logger.warning('policy.learn.entropy_scheduler is set but the loaded learn state has no entropy '
                               'schedule (saved without one): the schedule starts from update 0')
            self._entropy_updates = int(state.get('entropy_updates', 0))

    def _scalars(self, values: Dict[str, Any]) -> Dict[str, float]:
        out = {k: float(v.detach()) if torch.is_tensor(v) else float(v) for k, v in values.items()}
        out['cur_lr'] = float(self._optimizer.param_groups[0]['lr'])
        if self._entropy_schedule is not None:
            out['entropy_weight'] = self._entropy_weight()
        return out

    # --- collect / eval ------------------------------------------------------------------
    def _init_collect(self) -> None:
        keys = ('value', 'logp') if self.has_critic else ('logp', )
        if self._cfg.action_space == 'continuous':
            keys += ('raw_action', )
        self.transition_keys = keys

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        mode = 'compute_actor_critic' if self.has_critic else 'compute_actor'
        out = self._collect_model(obs, mode=mode)
        raw, logp = sample_action(out['logit'])
        result = {'action': self._env_action(raw), 'logp': logp}
        if self.has_critic:
            result['value'] = out['value']
        if self._cfg.action_space == 'continuous':
            result['raw_action'] = raw
        return result

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._eval_model(obs, mode='compute_actor')['logit']
        return {'action': self._env_action(greedy_action(logit))}

    def _env_action(self, action: torch.Tensor) -> torch.Tensor:
        bound = self._cfg.action_bound
        if self._cfg.action_space == 'continuous' and bound is not None:
            bound = torch.as_tensor(bound, dtype=action.dtype, device=action.device)
            return torch.max(torch.min(action, bound), -bound)
        return action

    def _monitor_vars_learn(self):
        return ['cur_lr', 'total_loss', 'policy_loss', 'entropy', 'grad_norm']
