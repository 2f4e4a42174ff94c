"""`PDQNPolicy`: P-DQN (Xiong et al. 2018) for hybrid actions, registered as `pdqn`.

An action is `{'action_type': int k, 'action_args': float [M] in [-1, 1]}` (the env scales the args).
The `PDQN` model has a parameter network x(s) and a Q network Q(s, ., x); the loss is
`ding/rl_utils/pdqn.py`.

learn: update 1 trains both halves; after it, within each cycle of
  `learn.update_circle` updates, the first half trains Q (Q-learning, double DQN, n-step targets,
  soft target update with `learn.target_theta`) and the second half trains x(s) to climb
  sum_k Q(s, k, x(s)). Q and x have their own Adam (`learning_rate_dis`, `learning_rate_cont`).
collect: x(s) plus Gaussian noise `collect.noise_sigma`, clipped to [-1, 1]; the type is epsilon-greedy
  on Q(s, ., x) with `collect_kwargs['eps']` from `eps_greedy_handler`; with probability eps (drawn
  apart) the type is uniform and the args are uniform in [-1, 1]. (When not exploring the type is
  greedy, as in DQN, rather than sampled from softmax(Q).)
eval: argmax_k Q(s, k, x(s)) with x(s).
"""
import copy
from typing import Any, Dict, List

import torch

from ding.data.batch import Batch
from ding.model.from_config import build_model
from ding.model.pdqn import PDQN
from ding.policy.policy import Policy
from ding.policy.dqn import make_adam
from ding.rl_utils.exploration import epsilon_greedy
from ding.rl_utils.pdqn import pdqn_error
from ding.rl_utils.td import soft_update
from ding.torch_utils.optimizer_state import load_optimizer_state
from ding.utils.registry import POLICY_REGISTRY
from ding.config.schema import positive, positive_int, prob


@POLICY_REGISTRY.register('pdqn')
class PDQNPolicy(Policy):
    """PDQN's config keys and defaults; the module docstring has the rules."""
    config = dict(
        type='pdqn',
        cuda=False,
        on_policy=False,
        priority=False,
        priority_IS_weight=False,
        discount_factor=prob(0.97),
        nstep=1,
        learn=dict(
            update_per_collect=3,
            batch_size=64,
            learning_rate_dis=positive(0.001),
            learning_rate_cont=positive(0.001),
            target_theta=prob(0.005),
            update_circle=10,  # updates 0..circle/2-1 of a cycle train Q, the rest train x(s)
            ignore_done=False,
        ),
        collect=dict(unroll_len=1, noise_sigma=0.1),
        eval=dict(),
        other=dict(
            eps=dict(type='exp', start=prob(0.95), end=prob(0.1), decay=positive_int(10000)),
            replay_buffer=dict(replay_buffer_size=positive_int(10000)),
        ),
    )

    def default_model(self) -> torch.nn.Module:
        return build_model(PDQN, self._cfg.model)

    # --- learn ---------------------------------------------------------------------------
    def _init_learn(self) -> None:
        learn = self._cfg.learn
        if not 0 < learn.target_theta <= 1:
            raise ValueError(f'PDQNPolicy: learn.target_theta must be in (0, 1], got {learn.target_theta}')
        if int(learn.update_circle) < 2:
            raise ValueError(f'PDQNPolicy: learn.update_circle must be >= 2 (half Q, half args), '
                             f'got {learn.update_circle}')
        if self._cfg.priority_IS_weight and not self._cfg.priority:
            raise ValueError('PDQNPolicy: priority_IS_weight=True needs priority=True')
        model = self._model
        self._dis_optimizer = make_adam(list(model.dis_encoder.parameters()) + list(model.dis_head.parameters()),
                                        learn.learning_rate_dis)
        self._cont_optimizer = make_adam(list(model.cont_encoder.parameters()) + list(model.cont_head.parameters()),
                                         learn.learning_rate_cont)
        self._target_model = copy.deepcopy(model)
        self._target_model.requires_grad_(False)
        self._target_model.eval()
        self._train_cnt = 0

    def _phases(self) -> tuple:
        """(train Q, train args) for this update, by the schedule in the module docstring."""
        if self._train_cnt == 1:
            return True, True
        circle = int(self._cfg.learn.update_circle)
        q_turn = self._train_cnt % circle < circle // 2
        return q_turn, not q_turn

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        cfg = self._cfg
        self._train_cnt += 1
        train_q, train_args = self._phases()
        obs, action = data.obs.float(), data.action
        reward = data.reward.float()
        if reward.dim() == 1 and cfg.nstep > 1:
            raise ValueError(f'PDQNPolicy has nstep={cfg.nstep} but the batch reward is 1-step [B]; '
                             f'add nstep_reward_enhancer(cfg) after the collector')
        done = torch.zeros_like(data.done, dtype=torch.float32) if cfg.learn.ignore_done else data.done.float()
        if cfg.priority_IS_weight and 'priority_IS' not in data:
            raise KeyError(f"PDQNPolicy has priority_IS_weight=True but the batch has no 'priority_IS' column "
                           f"(columns: {list(data.keys())}); use a prioritized replay buffer")
        weight = data.priority_IS.float() if cfg.priority_IS_weight else None
        model = self._model
        q_data = q_pi = next_q_target = next_q_online = None
        if train_q:
            q_data = model.compute_discrete({'state': obs, 'action_args': action.action_args.float()})['logit']
            with torch.no_grad():
                next_obs = data.next_obs.float()
                next_inputs = {'state': next_obs, 'action_args': model.compute_continuous(next_obs)['action_args']}
                next_q_target = self._target_model.compute_discrete(next_inputs)['logit']
                next_q_online = model.compute_discrete(next_inputs)['logit']
        if train_args:
            q_pi = model.compute_discrete({'state': obs,
                                           'action_args': model.compute_continuous(obs)['action_args']})['logit']
        loss = pdqn_error(q_data, q_pi, next_q_target, action.action_type if train_q else None, reward, done,
                          cfg.discount_factor, nstep=data.get('nstep'), weight=weight, next_q_online=next_q_online)
        # one optimiser per half: the args loss must not move Q (nor the Q loss x). Args first: its step
        # changes only x's weights, which the Q loss's graph does not hold (the reverse would reuse stale Q weights)
        for train, loss_part, optimizer in ((train_args, loss.args_loss, self._cont_optimizer),
                                            (train_q, loss.q_loss, self._dis_optimizer)):
            if train:
                self._dis_optimizer.zero_grad(set_to_none=True)
                self._cont_optimizer.zero_grad(set_to_none=True)
                loss_part.backward()
                self._sync_gradients()
                optimizer.step()
        if train_q:
            soft_update(self._target_model.parameters(), model.parameters(), cfg.learn.target_theta)
        out = {
            'cur_lr': self._lr_scaled(cfg.learn.learning_rate_dis),
            'q_loss': loss.q_loss.item(),
            'continuous_loss': loss.args_loss.item(),
            'total_loss': loss.q_loss.item() + loss.args_loss.item(),
            'q_value': q_pi.mean().item() if q_pi is not None else 0.0,
            'target_q_value': loss.target.mean().item() if loss.target is not None else 0.0,
            'reward': reward.mean().item(),
        }
        if cfg.priority:
            if loss.td_error_abs is None:  # an args-only update leaves the priorities as they are
                raise ValueError('PDQNPolicy: priority=True needs a TD error every update; '
                                 'P-DQN alternates Q and args updates, so priorities are not supported')
            out['priority'] = loss.td_error_abs.cpu().numpy()
        return out

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {
            'model': self._model.state_dict(),
            'target_model': self._target_model.state_dict(),
            'dis_optimizer': self._dis_optimizer.state_dict(),
            'cont_optimizer': self._cont_optimizer.state_dict(),
            'train_cnt': self._train_cnt,
        }

    def _load_state_dict_learn(self, state: Dict[str, Any]) -> None:
        self._model.load_state_dict(state['model'])
        if hasattr(self, '_target_model'):
            self._target_model.load_state_dict(state.get('target_model', state['model']))
            if 'dis_optimizer' in state:
                load_optimizer_state(self._dis_optimizer, state['dis_optimizer'], 'dis_optimizer')
                load_optimizer_state(self._cont_optimizer, state['cont_optimizer'], 'cont_optimizer')
            self._train_cnt = state.get('train_cnt', 0)

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'q_loss', 'continuous_loss', 'total_loss', 'q_value', 'target_q_value', 'reward']

    # --- collect / eval ------------------------------------------------------------------
    def _forward_collect(self, obs: torch.Tensor, eps: float = -1, **kwargs: Any) -> Dict[str, Any]:
        eps = -1.0 if eps is None else float(eps)
        model = self._collect_model
        args = model.compute_continuous(obs)['action_args']
        sigma = float(self._cfg.collect.noise_sigma)
        if sigma > 0:
            args = (args + sigma * torch.randn_like(args)).clamp(-1.0, 1.0)
        if eps > 0:  # exploring rows get uniform args as well as a uniform type
            explore = torch.rand(args.shape[0], 1, device=args.device) < eps
            args = torch.where(explore, torch.rand_like(args) * 2 - 1, args)
        logit = model.compute_discrete({'state': obs, 'action_args': args})['logit']
        action_type = epsilon_greedy(logit, eps)
        return {'action': Batch(action_type=action_type, action_args=args), 'logit': logit}

    def _forward_eval(self, obs: torch.Tensor, **kwargs: Any) -> Dict[str, Any]:
        model = self._eval_model
        args = model.compute_continuous(obs)['action_args']
        logit = model.compute_discrete({'state': obs, 'action_args': args})['logit']
        return {'action': Batch(action_type=logit.argmax(dim=-1), action_args=args), 'logit': logit}
