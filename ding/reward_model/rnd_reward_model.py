"""`RndRewardModel`: random network distillation (Burda et al. 2018), an exploration bonus.

A fixed, randomly initialised target network maps observations to features; a predictor is
trained to match it on the observations collected so far. Its error is small on familiar
states and large on new ones, so it is added to the reward as a novelty bonus.

Per sampled batch (`estimate`): bonus = mean squared prediction error per observation,
min-max scaled to [0, 1] within the batch, fused into the reward by
`intrinsic_reward_type` (ding/reward_model/intrinsic.py). Observations are normalised by the
running statistics of everything collected, then clamped to [obs_norm_clamp_min,
obs_norm_clamp_max] (`obs_norm`).
"""
from typing import Any, Dict

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

KEPT_OBS = 100_000  # observations kept to train the predictor on (the newest win)


class RndNetwork(torch.nn.Module):
    """Target (frozen) and predictor encoders of the same shape."""

    def __init__(self, obs_shape: Any, hidden_size_list: Any) -> None:
        super().__init__()
        self.target = encoder(obs_shape, hidden_size_list, 'RndNetwork')
        self.predictor = encoder(obs_shape, hidden_size_list, 'RndNetwork')
        self.target.requires_grad_(False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Per-observation squared error of the predictor, averaged over features: [B]."""
        with torch.no_grad():
            target = self.target(obs)
        return F.mse_loss(self.predictor(obs), target, reduction='none').mean(dim=1)


class _ObsStats:
    """Running mean and variance of observations (parallel combination of batch moments)."""

    def __init__(self) -> None:
        self.mean, self.var, self.count = 0.0, 1.0, 1e-4

    def update(self, x: np.ndarray) -> None:
        n = x.shape[0]
        mean, var = x.mean(axis=0), x.var(axis=0)
        total = self.count + n
        delta = mean - self.mean
        m2 = self.var * self.count + var * n + delta ** 2 * self.count * n / total
        self.mean, self.var, self.count = self.mean + delta * n / total, m2 / total, total


@REWARD_MODEL_REGISTRY.register('rnd')
class RndRewardModel(BaseRewardModel):
    """`RndRewardModel(config, device='cpu', tb_logger=None)`; `config` holds its keys and defaults."""
    config = dict(
        type='rnd',
        intrinsic_reward_type='add',
        learning_rate=1e-3,
        batch_size=64,
        hidden_size_list=[64, 64, 128],
        update_per_collect=100,  # predictor updates per train() call
        obs_norm=True,
        obs_norm_clamp_min=-1,
        obs_norm_clamp_max=1,
        intrinsic_reward_weight=key(0.01, 'real', optional=True),  # read with type 'add' only
        extrinsic_reward_norm=True,
        extrinsic_reward_norm_max=1,
        obs_shape=None,  # required: the observation shape, as the policy model's
    )

    def __init__(self, config: Any, device: str = 'cpu', tb_logger: Any = None) -> None:
        self.cfg = cfg = EasyDict(deep_merge(self.default_config(), dict(config)))
        check_fusion(cfg, 'RndRewardModel')
        self.device = torch.device(device)
        self.tb_logger = tb_logger
        self.reward_model = RndNetwork(cfg.obs_shape, cfg.hidden_size_list).to(self.device)
        self.opt = torch.optim.Adam(self.reward_model.predictor.parameters(), lr=cfg.learning_rate)
        self._obs_stats = _ObsStats()
        self._kept = KeptColumns(KEPT_OBS)
        self.train_cnt = 0
        self.estimate_cnt = 0
        self.last_stats: Dict[str, float] = {}

    def collect_data(self, data: Any) -> None:
        obs = np.asarray(batch_of(data)['obs'], dtype=np.float32)
        if len(obs):
            self._kept.add(obs=obs)
            self._obs_stats.update(obs.reshape(len(obs), -1).astype(np.float64))

    def clear_data(self) -> None:
        self._kept.clear()

    def train(self) -> None:
        """`update_per_collect` predictor updates on batches of the kept observations."""
        if len(self._kept) == 0:
            return
        for _ in range(self.cfg.update_per_collect):
            loss = self.reward_model(self._normalise(self._kept.sample(self.cfg.batch_size)['obs'])).mean()
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.train_cnt += 1
        self.last_stats['rnd_loss'] = loss.item()
        self._log('rnd_reward/loss', loss.item(), self.train_cnt)

    def _normalise(self, obs: np.ndarray) -> torch.Tensor:
        x = torch.as_tensor(np.asarray(obs, dtype=np.float32), device=self.device)
        if not self.cfg.obs_norm:
            return x
        flat = x.reshape(x.shape[0], -1)
        mean = torch.tensor(np.broadcast_to(self._obs_stats.mean, flat.shape[1:]), dtype=torch.float32,
                            device=self.device)
        std = torch.tensor(np.sqrt(np.broadcast_to(self._obs_stats.var, flat.shape[1:])) + 1e-8,
                           dtype=torch.float32, device=self.device)
        flat = ((flat - mean) / std).clamp(self.cfg.obs_norm_clamp_min, self.cfg.obs_norm_clamp_max)
        return flat.reshape(x.shape)

    def intrinsic_reward(self, obs: Any) -> np.ndarray:
        """The novelty of each observation, min-max scaled to [0, 1] within the batch: [B]."""
        with torch.no_grad():
            return minmax(self.reward_model(self._normalise(obs)).cpu().numpy())

    def estimate(self, data: Any) -> Batch:
        """A new Batch of `data`'s transitions with the bonus fused into the reward; the input's
        columns are not modified."""
        batch = batch_of(data)
        if len(batch) == 0:
            return batch
        bonus = self.intrinsic_reward(batch['obs'])
        out = fuse_bonus(batch, bonus, self.cfg)
        self.estimate_cnt += 1
        self.last_stats.update(intrinsic_reward_mean=float(bonus.mean()), reward_mean=float(out['reward'].mean()))
        self._log('rnd_reward/intrinsic_reward_mean', self.last_stats['intrinsic_reward_mean'], self.estimate_cnt)
        return out

    def state_dict(self) -> Dict[str, Any]:
        return {'model': self.reward_model.state_dict(), 'optimizer': self.opt.state_dict(),
                'obs_stats': dict(vars(self._obs_stats))}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.reward_model.load_state_dict(state['model'] if 'model' in state else state)  # or the weights alone
        if 'optimizer' in state:
            self.opt.load_state_dict(state['optimizer'])
        for k, v in state.get('obs_stats', {}).items():
            setattr(self._obs_stats, k, v)

    def _log(self, name: str, value: float, step: int) -> None:
        if self.tb_logger is not None:
            self.tb_logger.add_scalar(name, value, step)
