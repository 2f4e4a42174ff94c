"""`ICMRewardModel`: the intrinsic curiosity module (Pathak et al. 2017), an exploration bonus.

An encoder phi maps observations to features, trained through two heads: an inverse model
that predicts the action from (phi(s), phi(s')), which makes phi keep what the agent can
control, and a forward model that predicts phi(s') from (phi(s), a). Transitions whose outcome
the forward model cannot yet predict are new to the agent: their forward error is the bonus.

Loss per batch: reverse_scale * cross_entropy(inverse) + mse(forward, phi(s') held fixed).
Bonus (`estimate`): the forward error per transition, min-max scaled to [0, 1] within the
batch, fused into the reward by `intrinsic_reward_type` (ding/reward_model/intrinsic.py).
Discrete actions only (`action_shape` actions).
"""
from typing import Any, Dict, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from easydict import EasyDict

from ding.data.batch import Batch
from ding.reward_model.base_reward_model import BaseRewardModel
from ding.reward_model.intrinsic import KeptColumns, batch_of, check_fusion, encoder, fuse_bonus, minmax
from ding.utils.dicts import deep_merge
from ding.config.schema import key
from ding.utils.registry import REWARD_MODEL_REGISTRY

KEPT_TRANSITIONS = 100_000
HEAD_HIDDEN = 256


class ICMNetwork(torch.nn.Module):
    """Encoder, inverse head and forward head; `forward` returns (phi(s'), predicted phi(s'),
    predicted action logits)."""

    def __init__(self, obs_shape: Any, hidden_size_list: Any, action_shape: int) -> None:
        super().__init__()
        self.action_shape = int(action_shape)
        self.feature = encoder(obs_shape, hidden_size_list, 'ICMNetwork')
        width = int(hidden_size_list[-1])
        self.inverse_net = torch.nn.Sequential(torch.nn.Linear(2 * width, HEAD_HIDDEN), torch.nn.ReLU(),
                                               torch.nn.Linear(HEAD_HIDDEN, self.action_shape))
        self.forward_net = torch.nn.Sequential(torch.nn.Linear(width + self.action_shape, HEAD_HIDDEN),
                                               torch.nn.LeakyReLU(), torch.nn.Linear(HEAD_HIDDEN, width))

    def forward(self, obs: torch.Tensor, next_obs: torch.Tensor,
                action: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        phi, next_phi = self.feature(obs), self.feature(next_obs)
        action_logit = self.inverse_net(torch.cat([phi, next_phi], dim=1))
        one_hot = F.one_hot(action.long().reshape(-1), self.action_shape).to(phi.dtype)
        predicted_next_phi = self.forward_net(torch.cat([phi, one_hot], dim=1))
        return next_phi, predicted_next_phi, action_logit


@REWARD_MODEL_REGISTRY.register('icm')
class ICMRewardModel(BaseRewardModel):
    """`ICMRewardModel(config, device='cpu', tb_logger=None)`; `config` holds its keys and defaults."""
    config = dict(
        type='icm',
        intrinsic_reward_type='add',
        learning_rate=1e-3,
        obs_shape=6,
        action_shape=7,
        batch_size=64,
        hidden_size_list=[64, 64, 128],
        update_per_collect=100,  # updates per train() call
        reverse_scale=1,  # weight of the inverse-model loss
        intrinsic_reward_weight=key(0.003, 'real', optional=True),  # read with type 'add' only
        extrinsic_reward_norm=True,
        extrinsic_reward_norm_max=1,
        clear_buffer_per_iters=100,  # reward_model_trainer clears the kept data every N train() calls
    )

    def __init__(self, config: Any, device: str = 'cpu', tb_logger: Any = None) -> None:
        self.cfg = cfg = EasyDict(deep_merge(self.default_config(), dict(config)))
        check_fusion(cfg, 'ICMRewardModel')
        if isinstance(cfg.action_shape, bool) or not isinstance(cfg.action_shape, int) or cfg.action_shape < 2:
            raise ValueError(f'ICMRewardModel: action_shape must be the number of discrete actions (an int >= 2), '
                             f'got {cfg.action_shape!r}')
        self.device = torch.device(device)
        self.tb_logger = tb_logger
        self.reward_model = ICMNetwork(cfg.obs_shape, cfg.hidden_size_list, cfg.action_shape).to(self.device)
        self.opt = torch.optim.Adam(self.reward_model.parameters(), lr=cfg.learning_rate)
        self._kept = KeptColumns(KEPT_TRANSITIONS)
        self.train_cnt = 0
        self.estimate_cnt = 0
        self.last_stats: Dict[str, float] = {}

    def collect_data(self, data: Any) -> None:
        batch = batch_of(data)
        if len(batch):
            self._kept.add(obs=np.asarray(batch['obs'], np.float32), next_obs=np.asarray(batch['next_obs'], np.float32),
                           action=np.asarray(batch['action']).reshape(len(batch)).astype(np.int64))

    def clear_data(self) -> None:
        self._kept.clear()

    def _tensors(self, obs: Any, next_obs: Any, action: Any) -> Tuple[torch.Tensor, ...]:
        return tuple(torch.as_tensor(np.asarray(x), device=self.device) for x in (obs, next_obs, action))

    def train(self) -> None:
        if len(self._kept) == 0:
            return
        for _ in range(self.cfg.update_per_collect):
            sample = self._kept.sample(self.cfg.batch_size)
            obs, next_obs, action = self._tensors(sample['obs'], sample['next_obs'], sample['action'])
            next_phi, predicted, logit = self.reward_model(obs, next_obs, action)
            inverse_loss = F.cross_entropy(logit, action)
            forward_loss = F.mse_loss(predicted, next_phi.detach())
            loss = self.cfg.reverse_scale * inverse_loss + forward_loss
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.train_cnt += 1
        self.last_stats.update(icm_forward_loss=forward_loss.item(), icm_inverse_loss=inverse_loss.item(),
                               icm_action_accuracy=(logit.argmax(-1) == action).float().mean().item())
        if self.tb_logger is not None:
            for k, v in self.last_stats.items():
                self.tb_logger.add_scalar(f'icm_reward/{k}', v, self.train_cnt)

    def intrinsic_reward(self, obs: Any, next_obs: Any, action: Any) -> np.ndarray:
        """The forward model's error per transition, min-max scaled to [0, 1] within the batch."""
        tensors = self._tensors(np.asarray(obs, np.float32), np.asarray(next_obs, np.float32),
                                np.asarray(action).reshape(len(obs)).astype(np.int64))
        with torch.no_grad():
            next_phi, predicted, _ = self.reward_model(*tensors)
            return minmax(F.mse_loss(predicted, next_phi, reduction='none').mean(dim=1).cpu().numpy())

    def estimate(self, data: Any) -> Batch:
        batch = batch_of(data)
        if len(batch) == 0:
            return batch
        bonus = self.intrinsic_reward(batch['obs'], batch['next_obs'], batch['action'])
        self.estimate_cnt += 1
        self.last_stats['intrinsic_reward_mean'] = float(bonus.mean())
        return fuse_bonus(batch, bonus, self.cfg)

    def state_dict(self) -> Dict[str, Any]:
        return {'model': self.reward_model.state_dict(), 'optimizer': self.opt.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.reward_model.load_state_dict(state['model'] if 'model' in state else state)  # or the weights alone
        if 'optimizer' in state:
            self.opt.load_state_dict(state['optimizer'])
