"""`R2D2Policy` (Kapturowski et al. 2019): a recurrent DQN (`DRQN`) learning from replayed
sequences with a burn-in, n-step double-DQN targets, value rescaling and sequence priorities.

The data path (docs of each piece in its file):
- acting: each env's LSTM state lives in the policy (`ding/policy/hidden_state.py`), is reset
  when the collector reports the env's episode ended, and every transition stores the state
  the actor had before the step (column `prev_state` [2, H]); under the 'worker_inference'
  env manager each env worker's actor keeps its envs' states the same way
  (ding/policy/recurrent_worker_actor.py);
- n-step: `nstep_reward_enhancer` after the collector, as for DQN;
- replay: the buffer keeps transitions in push order; the fetcher samples windows of
  `collect.unroll_len` consecutive rows of one env (`ding/data/buffer/sequence_sampling.py`),
  so the learner gets columns [B, T, ...] and the window's start state is `prev_state[:, 0]`;
- learning: the online and the target net start from that stored state; the first
  `burnin_step` steps only warm the online net's state (no gradient); a window that runs over
  an episode end resets the state there, as the actor did; rows whose target the window cannot
  give are masked (`ding/rl_utils/r2d2.py`).

Config keys: `burnin_step`, `learn_unroll_len`, `nstep`,
`learn.value_rescale`, `learn.target_update_theta`, ...; `collect.unroll_len`, the sampled
window length, is usually `burnin_step + learn_unroll_len` (default 100); the
learner takes any window longer than the burn-in and learns from the steps after it.
Priorities: with `priority=True` the learn output carries each sequence's
0.9 * max + 0.1 * mean |TD|, and `priority_IS_weight` weights sequences by the `priority_IS`
column [B]. Behind `PriorityExperienceReplay` (make_replay_buffer adds it for priority=True)
windows are drawn by priority and the fetcher writes each window's priority onto its rows
(ding/data/buffer/middleware/sequence_priority.py).
"""
from typing import Any, Callable, Dict, List, Optional

import torch

from ding.data.batch import Batch
from ding.model.action_mask import split_action_mask
from ding.model.from_config import build_model
from ding.policy.dqn import DQNPolicy, TDLoss
from ding.policy.hidden_state import RecurrentActing
from ding.rl_utils.exploration import epsilon_greedy
from ding.rl_utils.td import soft_update
from ding.rl_utils.r2d2 import r2d2_sequence_td_error, sequence_priority, sequence_valid_mask
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import prob


@POLICY_REGISTRY.register('r2d2')
class R2D2Policy(RecurrentActing, DQNPolicy):
    """R2D2's config keys and defaults; see the module docstring for the data path."""
    graph_safe_update = False  # not captured by learn.cuda_graph: sequence masks and burn-in read host values
    config = dict(
        type='r2d2',
        priority=True,
        priority_IS_weight=True,
        discount_factor=0.997,
        nstep=5,
        burnin_step=20,  # steps that only warm up the LSTM state of a replayed window
        learn_unroll_len=80,  # steps after the burn-in that are learned from
        learn=dict(
            update_per_collect=1,
            batch_size=64,
            learning_rate=0.0001,
            target_update_freq=0,  # > 0: hard copies every N updates instead of the soft update below
            target_update_theta=prob(0.001),  # soft (Polyak) target update after every update
            value_rescale=True,
            ignore_done=False,
        ),
        collect=dict(n_sample=32, unroll_len=100, traj_len_inf=True, env_num=None),
        eval=dict(env_num=None),
        other=dict(
            eps=dict(type='exp', start=0.95, end=0.05, decay=10000),
            replay_buffer=dict(replay_buffer_size=10000),
        ),
    )
    transition_keys = ('prev_state', )  # the actor's LSTM state before each step: a window's start state

    def default_model(self) -> torch.nn.Module:
        from ding.model.drqn import DRQN
        return build_model(DRQN, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        super()._init_learn()
        cfg = self._cfg
        if cfg.learn.target_update_freq <= 0 and not 0 < cfg.learn.target_update_theta <= 1:
            raise ValueError(f'R2D2Policy needs learn.target_update_theta in (0, 1], '
                             f'got {cfg.learn.target_update_theta}')
        if cfg.burnin_step < 0 or cfg.nstep < 1:
            raise ValueError(f'R2D2Policy needs burnin_step >= 0 and nstep >= 1, got {cfg.burnin_step}, {cfg.nstep}')

    def _update_target(self) -> None:
        if self._cfg.learn.target_update_freq > 0:
            return super()._update_target()
        soft_update(self._target_model.parameters(), self._model.parameters(), self._cfg.learn.target_update_theta)

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        cfg = self._cfg
        action = data.action
        self._check_sequences(data, reward)
        batch, steps = action.shape
        burnin = int(cfg.burnin_step)
        if reward.dim() == 2:
            reward = reward.unsqueeze(-1)
        if done.shape != action.shape:  # ignore_done on 1-step rewards: the shared update made it [B]
            done = torch.zeros(action.shape, device=action.device)
        nstep = data['nstep'].long() if 'nstep' in data else torch.full_like(action, reward.shape[-1]).long()
        ended = data.done.bool() | (data.truncated.bool() if 'truncated' in data else torch.zeros_like(done).bool())
        # the actor reset its state after an episode's last row; with n-step rows that row is the
        # one whose window has a single step and ended
        last_of_episode = ended & (nstep == 1) if 'nstep' in data else ended
        reset = torch.zeros_like(last_of_episode)
        reset[:, 1:] = last_of_episode[:, :-1]
        obs, reset = time_major(data.obs), reset.transpose(0, 1)  # time-major for the LSTM
        start = data.prev_state[:, 0].float()

        with torch.no_grad():
            target_q = self._target_model({'obs': obs, 'prev_state': start, 'reset': reset})['logit']
            state = start
            if burnin > 0:
                state = self._model({'obs': obs[:burnin], 'prev_state': start, 'reset': reset[:burnin]})['next_state']
        learned = self._model({'obs': obs[burnin:], 'prev_state': state, 'reset': reset[burnin:]})['logit']
        q = torch.cat([learned.new_zeros(burnin, batch, learned.shape[-1]), learned]).transpose(0, 1)
        target_q = target_q.transpose(0, 1)

        valid = sequence_valid_mask(nstep, done.bool(), ended, burnin)
        td = r2d2_sequence_td_error(q, target_q, q.detach(), action, reward, nstep, done, valid,
                                    cfg.discount_factor, bool(cfg.learn.value_rescale), weight)
        priority = sequence_priority(td.td_error_abs, valid)
        n_valid = valid.float().sum().clamp(min=1.0)
        stats = {
            'q_value': ((td.q_sa * valid).sum() / n_valid).detach(),
            'target_q_value': ((td.target * valid).sum() / n_valid).detach(),
            'valid_fraction': (valid.float().sum() / (batch * max(steps - burnin, 1))).detach(),
        }
        return TDLoss(td.loss, priority, stats)

    def _check_sequences(self, data: Batch, reward: torch.Tensor) -> None:
        cfg = self._cfg
        if data.action.dim() != 2:
            raise ValueError(f'R2D2Policy learns from sequences [B, T] but got action of shape '
                             f'{list(data.action.shape)}: set cfg.policy.collect.unroll_len = burnin_step + '
                             f'learn_unroll_len (> 1) so the fetcher samples windows of consecutive steps')
        steps = data.action.shape[1]
        if steps < cfg.burnin_step + 2:
            raise ValueError(f'R2D2Policy: sequences of {steps} steps leave nothing to learn after burnin_step='
                             f'{cfg.burnin_step}; collect.unroll_len should be burnin_step + learn_unroll_len')
        if 'prev_state' not in data:
            raise KeyError(f"R2D2Policy: the batch has no 'prev_state' column (columns: {data.keys()}); it is "
                           f"recorded by R2D2Policy's collect mode (a random warm-up policy does not record it)")
        if cfg.nstep > 1 and reward.dim() != 3:
            raise ValueError(f'R2D2Policy has nstep={cfg.nstep} but the batch reward is 1-step; add '
                             f'nstep_reward_enhancer(cfg) after the collector')

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['valid_fraction']

    # --- collect / eval (the state tables: RecurrentActing) ---------------------------------
    def _act(self, model: torch.nn.Module, states: Any, obs: Any,
             env_id: Optional[List[int]]) -> Dict[str, torch.Tensor]:
        batch_size = len(split_action_mask(obs)[0])  # a dict obs: the rows of its observation
        out, prev = self._step_states(model, states, obs, batch_size, env_id, inference=True)
        return {'logit': out['logit'], 'prev_state': prev, 'action_mask': out.get('action_mask')}

    def _forward_collect(self, obs: Any, eps: Optional[float] = -1, env_id: Optional[List[int]] = None,
                         **kwargs: Any) -> Dict[str, torch.Tensor]:
        out = self._act(self._collect_model, self._collect_states, obs, env_id)
        out['action'] = epsilon_greedy(out['logit'], -1 if eps is None else float(eps), out.pop('action_mask'))
        return out

    def _forward_eval(self, obs: torch.Tensor, env_id: Optional[List[int]] = None,
                      **kwargs: Any) -> Dict[str, torch.Tensor]:
        out = self._act(self._eval_model, self._eval_states, obs, env_id)
        return {'action': out['logit'].argmax(dim=-1), 'logit': out['logit']}

    def _worker_actor_fn(self) -> Callable[[], Any]:
        """Eps-greedy on a CPU copy of the DRQN inside env workers, each worker keeping its envs'
        states and recording `prev_state` (ding/policy/recurrent_worker_actor.py)."""
        from ding.policy.recurrent_worker_actor import RecurrentActorFactory
        from ding.policy.worker_actor import model_copier
        return RecurrentActorFactory(model_copier(self._collect_model), tuple(self._zero_states(1).shape[1:]))


def time_major(obs: Any) -> Any:
    """[B, T, ...] -> [T, B, ...]; a dict obs (an action mask beside the observation) key by key."""
    if isinstance(obs, torch.Tensor):
        return obs.transpose(0, 1)
    return Batch({k: time_major(v) for k, v in obs.items()})
