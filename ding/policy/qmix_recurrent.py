"""Recurrent `QMIXPolicy` / `VDNPolicy`: a GRU agent network learning from
replayed sequences. The exported `QMIXPolicy(cfg)` builds it when `collect.unroll_len > 1`
(ding/compat/policy_switches.py), the feed-forward policy when `unroll_len=1`.

The data path is R2D2's (ding/policy/r2d2.py), with an agent axis:
- acting: each env's GRU states [A, H] live in the policy (`HiddenStateTable`,
  ding/policy/hidden_state.py), are zeroed when the collector reports the env's episode ended,
  and every transition stores the states the agents had before the step (`prev_state` [A, H]);
- replay: the fetcher samples windows of `collect.unroll_len` consecutive rows of one env
  (ding/data/buffer/sequence_sampling.py): columns [B, T, A, ...]; a window starts from its
  stored `prev_state[:, 0]`, and where it runs over an episode end the state is zeroed, as the
  actor did;
- learning: the first `burnin_step` steps (R2D2's key; default 0) only
  warm the online state. Each later row t has the 1-step target
  r_t + gamma (1 - done_t) Q_tot^-(next_obs_t), where the bootstrap runs one GRU step from the
  state after obs_t, so a time-limit end still bootstraps from its own next observation. The loss
  is `mixing_td_loss` (ding/rl_utils/mixing.py) over the [B, T] rows.

Keys and defaults as the feed-forward policy's, with `collect.unroll_len=10`
(the default), `collect.env_num` / `eval.env_num` (the size of the state tables).
"""
from typing import Any, Dict, List, Optional

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.policy.dqn import TDLoss
from ding.policy.hidden_state import RecurrentActing
from ding.policy.qmix import QMIXPolicy, masked_epsilon_greedy
from ding.rl_utils.mixing import mixing_td_loss
from ding.rl_utils.r2d2 import sequence_priority

RECURRENT_DEFAULT_UNROLL_LEN = 10  # collect.unroll_len default: a QMIX config without one builds this class
OBS_KEYS = ('agent_state', 'global_state', 'action_mask')


def _obs_columns(obs: Any, fn) -> Dict[str, torch.Tensor]:
    return {k: fn(obs[k]) for k in OBS_KEYS if k in obs}


class RecurrentQMIXPolicy(RecurrentActing, QMIXPolicy):
    config = dict(
        type='qmix',
        burnin_step=0,  # steps of each window that only warm up the GRU states (no loss)
        collect=dict(unroll_len=RECURRENT_DEFAULT_UNROLL_LEN, env_num=None),
        eval=dict(env_num=None),
    )
    transition_keys = ('prev_state', )  # the agents' GRU states before each step: a window's start state

    def default_model(self) -> torch.nn.Module:
        from ding.model.qmix_recurrent import RecurrentQMix, RecurrentVDN
        return build_model(RecurrentQMix if self.model_class == 'qmix' else RecurrentVDN, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _check_unroll_len(self) -> None:
        burnin, unroll = int(self._cfg.burnin_step), int(self._cfg.collect.unroll_len)
        if burnin < 0 or unroll < burnin + 2:
            raise ValueError(f'{type(self).__name__} learns from windows of collect.unroll_len steps after '
                             f'burnin_step warm-up steps: needs 0 <= burnin_step and unroll_len >= burnin_step + 2, '
                             f'got burnin_step={burnin}, unroll_len={unroll}')

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        if weight is not None:
            raise ValueError(f'{type(self).__name__} does not weight samples: set priority_IS_weight=False')
        self._check_sequences(data)
        burnin = int(self._cfg.burnin_step)
        time_major = lambda x: x.transpose(0, 1)  # noqa: E731 - [B, T, ...] -> [T, B, ...] for the GRU
        obs = _obs_columns(data.obs, time_major)
        action = time_major(data.action)
        ended = data.done.bool()
        if 'truncated' in data:
            ended = ended | data.truncated.bool()
        reset = torch.zeros_like(ended)
        reset[:, 1:] = ended[:, :-1]  # the actor zeroed the states after an episode's last row
        reset = time_major(reset)
        start = data.prev_state[:, 0].float()

        state, warm_hidden = start, []
        if burnin > 0:
            with torch.no_grad():
                warm = self._model({'obs': _obs_columns(obs, lambda v: v[:burnin]), 'prev_state': start,
                                    'reset': reset[:burnin]}, single_step=False)
            state, warm_hidden = warm['next_state'], [warm['hidden_state']]
        learned = self._model({'obs': _obs_columns(obs, lambda v: v[burnin:]), 'prev_state': state,
                               'reset': reset[burnin:], 'action': action[burnin:]}, single_step=False)
        with torch.no_grad():
            next_total = self._bootstrap(data, obs, start, reset, torch.cat(warm_hidden + [learned['hidden_state']]))
        if done.shape != reward.shape:  # learn.ignore_done: the shared update made one flag per window
            done = torch.zeros_like(reward)
        reward, done = reward[:, burnin:], done[:, burnin:]
        total_q = time_major(learned['total_q'])
        td = mixing_td_loss(total_q, time_major(next_total)[:, burnin:], reward, done,
                            float(self._cfg.learn.discount_factor))
        error = td.td_error_abs if td.td_error_abs.dim() == 2 else td.td_error_abs.mean(-1)
        priority = sequence_priority(error, torch.ones_like(error, dtype=torch.bool))
        return TDLoss(td.loss, priority, {'q_value': total_q.mean().item(), 'target_q_value': td.target.mean().item()})

    def _bootstrap(self, data: Batch, obs: Dict[str, torch.Tensor], start: torch.Tensor, reset: torch.Tensor,
                   online_hidden: torch.Tensor) -> torch.Tensor:
        """Q_tot^-(next_obs_t) [T, B] (or [T, B, A]): one step of the target net from its state after
        obs_t; with double_q the online net (states `online_hidden` [T, B, A, H]) picks the actions."""
        steps, batch = online_hidden.shape[:2]
        flat = lambda v: v.reshape(steps * batch, *v.shape[2:])  # noqa: E731 - all T x B rows as one batch
        next_obs = _obs_columns(data.next_obs, lambda v: flat(v.transpose(0, 1)))
        target_hidden = self._target_model({'obs': obs, 'prev_state': start, 'reset': reset},
                                           single_step=False)['hidden_state']
        if self._cfg.learn.double_q:
            next_action = self._model({'obs': next_obs, 'prev_state': flat(online_hidden)})['logit'].argmax(-1)
            out = self._target_model({'obs': next_obs, 'prev_state': flat(target_hidden), 'action': next_action})
        else:
            out = self._target_model({'obs': next_obs, 'prev_state': flat(target_hidden)}, mix=True)
        return out['total_q'].view(steps, batch, *out['total_q'].shape[1:])

    def _check_sequences(self, data: Batch) -> None:
        name = type(self).__name__
        if data.action.dim() != 3:
            raise ValueError(f'{name} learns from sequences [B, T, A] but got action of shape '
                             f'{list(data.action.shape)}: the fetcher samples windows of collect.unroll_len (> 1) '
                             f'consecutive steps of one env (offpolicy_data_fetcher)')
        if 'prev_state' not in data:
            raise KeyError(f"{name}: the batch has no 'prev_state' column (columns: {data.keys()}); it is recorded "
                           f"by this policy's collect mode (a random warm-up policy does not record it)")

    # --- collect / eval (the state tables: RecurrentActing) ---------------------------------
    def _act(self, model: torch.nn.Module, states: Any, obs: Any,
             env_id: Optional[List[int]]) -> Dict[str, torch.Tensor]:
        out, prev = self._step_states(model, states, obs, obs['agent_state'].shape[0], env_id)
        return {'logit': out['logit'], 'prev_state': prev}

    def _forward_collect(self, obs: Any, eps: Optional[float] = -1, env_id: Optional[List[int]] = None,
                         **kwargs: Any) -> Dict[str, torch.Tensor]:
        out = self._act(self._collect_model, self._collect_states, obs, env_id)
        action = masked_epsilon_greedy(out['logit'], obs.get('action_mask'), -1 if eps is None else float(eps))
        return {'action': action, 'prev_state': out['prev_state']}

    def _forward_eval(self, obs: Any, env_id: Optional[List[int]] = None, **kwargs: Any) -> Dict[str, torch.Tensor]:
        return {'action': self._act(self._eval_model, self._eval_states, obs, env_id)['logit'].argmax(-1)}


class RecurrentVDNPolicy(RecurrentQMIXPolicy):
    """The recurrent policy with the VDN model (team value = sum of the agents' values)."""
    config = dict(type='vdn')
    model_class = 'vdn'
