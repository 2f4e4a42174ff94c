"""`IMPALAPolicy` (Espeholt et al. 2018): an off-policy actor-critic learning from replayed
trajectories of `unroll_len` steps, corrected for the lag between the acting (behaviour) policy
and the learner by V-trace (`ding/rl_utils/vtrace.py`).

The data path is R2D2's (ding/policy/r2d2.py):
- acting: the collect mode samples from the actor's distribution and stores the behaviour
  policy's output in every transition (`logit` [A] for discrete actions; `logit_mu`,
  `logit_sigma` for continuous ones), so the learner can form pi(a|x) / mu(a|x);
- replay: the buffer keeps transitions in push order; the fetcher samples windows of
  `collect.unroll_len` consecutive rows of one env (`ding/data/buffer/sequence_sampling.py`,
  `data_pusher(..., group_by_env=True)`); `compile_config` copies `policy.unroll_len` there,
  and the collector then gathers `n_sample * unroll_len` steps per call;
- learning: the VAC model (`ding/model/vac.py`) scores each window's observations (values with
  gradient) and next observations (bootstrap values, no gradient); V-trace gives value targets
  and policy-gradient advantages. A window that runs over an episode end is handled there: no
  bootstrap after a terminal step, the final observation's value after a truncated one, and the
  trace is cut so a new episode's returns do not flow into the old one (rather than
  only masking the step after a done).

A random warm-up (`StepCollector(..., random_collect_size=N)`) replaces the sampled action but
keeps the stored logit of the (initially near-uniform) policy: its importance ratios are
approximate, and clipped like all others.
IMPALA writes no priorities, so `priority` stays False (prioritized sequence replay is R2D2's).
"""
from typing import Any, Dict, List

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.policy import Policy
from ding.policy.onpolicy_base import action_distribution, greedy_action, require_columns, sample_action
from ding.rl_utils.vtrace import vtrace, vtrace_actor_critic_loss
from ding.torch_utils.optimizer_helper import Adam, RMSprop
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive, positive_int, prob


@POLICY_REGISTRY.register('impala')
class IMPALAPolicy(Policy):
    config = dict(
        type='impala',
        cuda=False,
        on_policy=False,
        priority=False,
        priority_IS_weight=False,
        action_space='discrete',  # 'discrete' or 'continuous'
        unroll_len=positive_int(32),  # steps per learned trajectory (copied to collect.unroll_len by compile_config)
        transition_with_policy_data=True,  # not read here; kept for programs that read it
        random_collect_size=0,  # random warm-up steps
        learn=dict(
            update_per_collect=4,
            batch_size=16,  # trajectories per update
            learning_rate=positive(0.0005),
            value_weight=0.5,
            entropy_weight=0.0001,
            discount_factor=prob(0.99),
            lambda_=prob(0.95),  # c_t = lambda_ * min(c_clip_ratio, rho_t)
            rho_clip_ratio=positive(1.0),  # rho_bar, in the value targets
            c_clip_ratio=positive(1.0),  # c_bar, the trace cut
            rho_pg_clip_ratio=positive(1.0),  # rho_bar of the policy-gradient advantage
            grad_clip_type=None,  # None, 'clip_norm' or 'clip_value'
            clip_value=0.5,
            optim='adam',  # 'adam' or 'rmsprop'
        ),
        collect=dict(unroll_len=positive_int(32)),
        eval=dict(),
        other=dict(replay_buffer=dict(replay_buffer_size=1000, max_use=16, sliced=False)),
    )

    def default_model(self) -> torch.nn.Module:
        from ding.model.vac import VAC
        return build_model(VAC, dict(dict(action_space=self._cfg.action_space), **self._cfg.model))

    def _check_action_space(self) -> None:
        if self._cfg.action_space not in ('discrete', 'continuous'):
            raise ValueError(f"IMPALAPolicy: action_space must be 'discrete' or 'continuous', "
                             f"got {self._cfg.action_space!r}")

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        self._check_action_space()
        cfg = self._cfg.learn
        if self._cfg.priority_IS_weight and not self._cfg.priority:
            raise ValueError('IMPALAPolicy: priority_IS_weight=True needs priority=True')
        kwargs = dict(lr=cfg.learning_rate, grad_clip_type=cfg.grad_clip_type, clip_value=cfg.clip_value)
        if cfg.optim == 'adam':
            self._optimizer = Adam(self._model.parameters(), **kwargs)
        elif cfg.optim == 'rmsprop':
            self._optimizer = RMSprop(self._model.parameters(), **kwargs)
        else:
            raise ValueError(f"IMPALAPolicy: learn.optim must be 'adam' or 'rmsprop', got {cfg.optim!r}")

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        cfg = self._cfg.learn
        behaviour_keys = self._behaviour_keys()
        require_columns(data, ('obs', 'next_obs', 'action', 'reward', 'done') + behaviour_keys,
                        'IMPALAPolicy', "IMPALAPolicy's collect mode (it records the behaviour logit)")
        action = data['action']
        if action.dim() < (2 if self._cfg.action_space == 'discrete' else 3):
            raise ValueError(f'IMPALAPolicy learns from trajectories [B, T] but got action of shape '
                             f'{list(action.shape)}: set cfg.policy.unroll_len (> 1; compile_config copies it to '
                             f'collect.unroll_len) so the fetcher samples windows of consecutive steps')
        B, T = action.shape[:2]

        def flat(x: Any) -> Any:  # [B, T, ...] -> [B * T, ...]
            return x.apply(flat) if isinstance(x, Batch) else x.reshape((B * T, ) + tuple(x.shape[2:]))

        def time_major(x: Any) -> Any:  # [B * T, ...] or [B, T, ...] -> [T, B, ...]
            if isinstance(x, dict):
                return {k: time_major(v) for k, v in x.items()}
            return x.reshape((B, T) + tuple(x.shape[1 if x.shape[0] == B * T else 2:])).transpose(0, 1)

        out = self._model(flat(data['obs']), mode='compute_actor_critic')
        with torch.no_grad():  # bootstrap values: targets only
            next_value = time_major(self._model(flat(data['next_obs']), mode='compute_critic')['value'])
        value, action = time_major(out['value']), time_major(action)
        target = action_distribution(time_major(out['logit']))
        target_logp = target.log_prob(action)
        behaviour = action_distribution(time_major(self._behaviour_output(data)))
        done = time_major(data['done']).bool()
        ended = done | time_major(data['truncated']).bool() if 'truncated' in data else done
        targets = vtrace(target_logp.detach(), behaviour.log_prob(action), time_major(data['reward']).float(),
                         value.detach(), next_value, done, ended, gamma=cfg.discount_factor, lambda_=cfg.lambda_,
                         rho_clip_ratio=cfg.rho_clip_ratio, c_clip_ratio=cfg.c_clip_ratio,
                         rho_pg_clip_ratio=cfg.rho_pg_clip_ratio)
        loss = vtrace_actor_critic_loss(target_logp, target.entropy(), value, targets, self._weight(data, T))
        total = loss.policy_loss + cfg.value_weight * loss.value_loss - cfg.entropy_weight * loss.entropy_loss

        self._optimizer.zero_grad(set_to_none=True)
        total.backward()
        self._sync_gradients()
        self._optimizer.step()  # clips as learn.grad_clip_type says
        return {
            'cur_lr': float(self._optimizer.param_groups[0]['lr']),
            'total_loss': total.item(),
            'policy_loss': loss.policy_loss.item(),
            'value_loss': loss.value_loss.item(),
            'entropy_loss': loss.entropy_loss.item(),
            'rho_mean': targets.rho.mean().item(),
        }

    def _behaviour_keys(self) -> tuple:
        return ('logit', ) if self._cfg.action_space == 'discrete' else ('logit_mu', 'logit_sigma')

    def _behaviour_output(self, data: Batch) -> Any:
        if self._cfg.action_space == 'discrete':
            return data['logit']
        return {'mu': data['logit_mu'], 'sigma': data['logit_sigma']}

    def _weight(self, data: Batch, T: int) -> Any:
        """Per-trajectory importance-sampling weights [T, B] with priority_IS_weight, else None."""
        if not self._cfg.priority_IS_weight:
            return None
        if 'priority_IS' not in data:
            raise KeyError("IMPALAPolicy: priority_IS_weight=True but the batch has no 'priority_IS' column; "
                           'sample from a prioritized replay buffer, or set priority_IS_weight=False')
        weight = data['priority_IS'].float()
        weight = weight[:, 0] if weight.dim() > 1 else weight
        return weight.unsqueeze(0).expand(T, -1)

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {'model': self._model.state_dict(), 'optimizer': self._optimizer.state_dict()}

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if 'optimizer' in state and hasattr(self, '_optimizer'):
            load_optimizer_state(self._optimizer, state['optimizer'])

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['policy_loss', 'value_loss', 'entropy_loss', 'rho_mean']

    # --- collect / eval ------------------------------------------------------------------
    def _init_collect(self) -> None:
        self._check_action_space()
        self.transition_keys = self._behaviour_keys()

    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        logit = self._collect_model(obs, mode='compute_actor')['logit']
        action, _ = sample_action(logit)
        if self._cfg.action_space == 'discrete':
            return {'action': action, 'logit': logit}
        return {'action': action, 'logit_mu': logit['mu'], 'logit_sigma': logit['sigma']}

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': greedy_action(self._eval_model(obs, mode='compute_actor')['logit'])}
