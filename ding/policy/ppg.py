"""`PPGOffPolicy`: Phasic Policy Gradient (Cobbe et al. 2021) fed from replay buffers.

The learner's batch is `{'policy': Batch, 'value': Batch}` (an `OffPolicyLearner` over a dict of
two buffer views; `gae_estimator(cfg, policy.collect_mode, buffer_)` fills the buffer with `adv`,
`return`, `value`, `logp`). Each update:
- policy phase: the clipped PPO surrogate (minus an entropy bonus) on the 'policy' batch;
- value phase: the value network regresses onto `return` on the 'value' batch;
  both losses touch disjoint parameters, so they share one backward and one optimiser step;
- every `learn.aux_freq` updates, the auxiliary phase: `aux_train_epoch` passes over the value
  batches seen since the last one, distilling the returns into the policy network's auxiliary
  value head while a KL term (`aux_bc_weight`) holds the policy still (`ppg_joint_loss`), and
  training the value network again.
Collecting samples from the policy and stores the *value network's* value (the paper's choice
for advantages, not the auxiliary head's).
"""
from typing import Any, Dict, List

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.ppg import PPG
from ding.policy.onpolicy_base import OnPolicyBase, logp_and_entropy, require_columns, sample_action
from ding.rl_utils.adv_norm import normalize_advantage
from ding.rl_utils.ppg import ppg_joint_loss
from ding.rl_utils.ppo import ppo_policy_loss, ppo_value_loss
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import non_negative, positive, positive_int, prob

POLICY_COLUMNS = ('obs', 'action', 'logp', 'adv')
VALUE_COLUMNS = ('obs', 'value', 'return')


@POLICY_REGISTRY.register('ppg_offpolicy')
class PPGOffPolicy(OnPolicyBase):
    config = dict(
        type='ppg_offpolicy',
        on_policy=False,
        priority=False,
        priority_IS_weight=False,
        transition_with_policy_data=True,  # not read here; kept for programs that read it
        learn=dict(
            update_per_collect=5,
            batch_size=64,
            learning_rate=positive(0.001),
            value_weight=0.5,
            entropy_weight=0.01,
            clip_ratio=non_negative(0.2),
            value_clip=True,  # clip value updates around the stored value
            adv_norm=False,
            aux_freq=positive_int(5),  # an auxiliary phase every this many updates
            aux_train_epoch=positive_int(6),  # passes over the stored value batches per auxiliary phase
            aux_bc_weight=1,  # weight of KL(pi_old || pi) in the auxiliary phase
            grad_clip_value=None,
        ),
        collect=dict(unroll_len=1, discount_factor=prob(0.99), gae_lambda=prob(0.95)),
        other=dict(replay_buffer=dict(
            multi_buffer=True,
            policy=dict(replay_buffer_size=1000, max_use=float('inf')),  # uses per item (use_time_check)
            value=dict(replay_buffer_size=1000, max_use=float('inf')),
        )),
    )

    def default_model(self) -> torch.nn.Module:
        return build_model(PPG, self._cfg.model)

    def _init_learn(self) -> None:
        if self._cfg.priority or self._cfg.priority_IS_weight:
            raise ValueError('PPGOffPolicy: prioritized replay is not supported; set priority=False and '
                             'priority_IS_weight=False')
        for name in ('actor_critic', 'compute_critic'):
            if not hasattr(self._model, name):
                raise TypeError(f'PPGOffPolicy needs a PPG-style model (ding.model.PPG) with {name!r}; '
                                f'got {type(self._model).__name__}')
        super()._init_learn()
        self._train_iteration = 0
        self._aux_memories: List[Batch] = []

    # --- learn ---------------------------------------------------------------------------
    def _forward_learn(self, data: Batch) -> Dict[str, float]:
        for name, columns in (('policy', POLICY_COLUMNS), ('value', VALUE_COLUMNS)):
            if name not in data:
                raise KeyError(f"PPGOffPolicy trains on {{'policy': batch, 'value': batch}} (an OffPolicyLearner over "
                               f"a dict of buffers); got columns {sorted(data.keys())}")
            require_columns(data[name], columns, type(self).__name__, 'gae_estimator(cfg, collect_mode, buffer_)')
        cfg = self._cfg.learn
        pol, val = data['policy'], data['value']
        adv = normalize_advantage(pol['adv']) if cfg.adv_norm else pol['adv']
        logit = self._model.compute_actor(pol['obs'])['logit']
        logp, entropy = logp_and_entropy(logit, self._learn_action(pol))
        policy = ppo_policy_loss(logp, pol['logp'], adv, cfg.clip_ratio)
        value_new = self._model.compute_critic(val['obs'])['value']
        value_clip = cfg.clip_ratio if cfg.value_clip else None
        value_loss = cfg.value_weight * ppo_value_loss(value_new, val['value'], val['return'], value_clip)
        entropy = entropy.mean()
        total = policy.loss - self._entropy_weight() * entropy + value_loss
        self._optimizer_step(total)
        self._aux_memories.append(Batch({k: _detached(val[k]) for k in ('obs', 'value', 'return')}))
        self._train_iteration += 1
        out = {'policy_loss': policy.loss, 'value_loss': value_loss, 'entropy_loss': entropy,
               'policy_adv_abs_max': adv.abs().max(), 'approx_kl': policy.approx_kl, 'clipfrac': policy.clip_fraction,
               'total_loss': total}
        if self._train_iteration % int(cfg.aux_freq) == 0:
            out.update(self._learn_aux())
        out = self._scalars(out)
        out['policy_cur_lr'] = out['value_cur_lr'] = out.pop('cur_lr')
        return out

    def _learn_aux(self) -> Dict[str, float]:
        """The auxiliary phase over the value batches stored since the last one (then dropped)."""
        cfg = self._cfg.learn
        memory = Batch.cat(self._aux_memories)
        self._aux_memories = []
        with torch.no_grad():
            logit_old = self._model.compute_actor(memory['obs'])['logit']
        value_clip = cfg.clip_ratio if cfg.value_clip else None
        n = len(memory)
        batch_size = min(int(cfg.batch_size), n)
        sums = {'auxiliary_loss': 0.0, 'behavioral_cloning_loss': 0.0, 'aux_value_loss': 0.0}
        steps = 0
        for _ in range(int(cfg.aux_train_epoch)):
            order = torch.randperm(n, device=self._device)
            for start in range(0, n - batch_size + 1, batch_size):
                idx = order[start:start + batch_size]
                mb = memory[idx]
                old = {k: v[idx] for k, v in logit_old.items()} if isinstance(logit_old, dict) else logit_old[idx]
                out = self._model.compute_actor_critic(mb['obs'])
                joint = ppg_joint_loss(out['logit'], old, out['value'], mb['return'])
                value_net = self._model.compute_critic(mb['obs'])['value']
                aux_value_loss = ppo_value_loss(value_net, mb['value'], mb['return'], value_clip)
                self._optimizer_step(joint.auxiliary_loss + cfg.aux_bc_weight * joint.behavioral_cloning_loss +
                                     aux_value_loss)
                sums['auxiliary_loss'] += float(joint.auxiliary_loss.detach())
                sums['behavioral_cloning_loss'] += float(joint.behavioral_cloning_loss.detach())
                sums['aux_value_loss'] += float(aux_value_loss.detach())
                steps += 1
        return {k: v / max(steps, 1) for k, v in sums.items()}

    def _state_dict_learn(self) -> Dict[str, Any]:
        state = super()._state_dict_learn()
        # exact resume: the auxiliary phase's schedule and the batches it will replay
        state['train_iteration'] = self._train_iteration
        state['aux_memories'] = [dict(m.items()) for m in self._aux_memories]
        return state

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        super()._load_state_dict_learn(state)
        if hasattr(self, '_aux_memories'):
            self._train_iteration = int(state.get('train_iteration', 0))
            self._aux_memories = [Batch(m) for m in state.get('aux_memories', [])]

    def _monitor_vars_learn(self) -> List[str]:
        return ['policy_cur_lr', 'value_cur_lr', 'policy_loss', 'value_loss', 'entropy_loss', 'policy_adv_abs_max',
                'approx_kl', 'clipfrac', 'aux_value_loss', 'auxiliary_loss', 'behavioral_cloning_loss',
                'total_loss']

    # --- collect -------------------------------------------------------------------------
    def _forward_collect(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, torch.Tensor]:
        raw, logp = sample_action(self._collect_model.compute_actor(obs)['logit'])
        result = {'action': self._env_action(raw), 'logp': logp,
                  'value': self._collect_model.compute_critic(obs)['value']}
        if self._cfg.action_space == 'continuous':
            result['raw_action'] = raw
        return result


def _detached(column: Any) -> Any:
    """A column without its autograd history; a dict obs (an action mask beside it) column by column."""
    return column.apply(lambda v: v.detach()) if isinstance(column, Batch) else column.detach()
