"""`GailRewardModel`: generative adversarial imitation learning's reward (type `gail`).

A discriminator D(s, a) (one tanh hidden layer, sigmoid output) learns to tell the agent's
state-action pairs (collected with `collect_data`) from the expert's (loaded once), and
`estimate` replaces each sampled transition's reward by -log D(s, a) (ding/rl_utils/gail.py).
A pair is the flattened observation followed by the action as float(s), so `input_size` is
obs_dim + action_dim (5 on CartPole: 4 + one discrete action).

The expert's transitions come from `<data_path>/expert_data.pkl` (a pickled
list of transitions with `obs` and `action`; a dict of columns or a Batch also do), or are handed
to `load_expert_data(data)`. In a pipeline: `trainer(cfg, reward_model)` after the collector keeps
and trains on the agent's pairs; `OffPolicyLearner(..., reward_model=...)` rewrites each batch.
"""
import os
import pickle
from typing import Any, Dict

import numpy as np
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.reward_model.base_reward_model import BaseRewardModel
from ding.reward_model.intrinsic import KeptColumns, batch_of, fuse_bonus
from ding.rl_utils.gail import gail_discriminator_loss, gail_reward
from ding.utils.dicts import deep_merge
from ding.utils.registry import REWARD_MODEL_REGISTRY

KEPT_PAIRS = 100_000  # agent pairs kept to train on (the newest win)
ASSIGN = EasyDict(intrinsic_reward_type='assign', extrinsic_reward_norm=False)  # the reward is replaced


class GailDiscriminator(torch.nn.Module):
    """P(agent | s, a) for flat state-action pairs: [B, input_size] -> [B]."""

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(input_size, hidden_size), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden_size, 1), torch.nn.Sigmoid())

    def forward(self, pairs: torch.Tensor) -> torch.Tensor:
        return self.net(pairs).squeeze(-1)


@REWARD_MODEL_REGISTRY.register('gail')
class GailRewardModel(BaseRewardModel):
    """`GailRewardModel(config, device='cpu', tb_logger=None)`; `config` holds its keys and defaults."""
    config = dict(
        type='gail',
        learning_rate=1e-3,
        update_per_collect=100,  # discriminator updates per train() call
        batch_size=64,  # agent pairs and as many expert pairs per update
        input_size=4,  # obs_dim + action_dim
        target_new_data_count=64,  # not read by ding: new agent transitions between trainings
        hidden_size=128,
        collect_count=100000,  # not read by ding: expert transitions to collect for expert_data.pkl
        clear_buffer_per_iters=1,  # reward_model_trainer clears the kept data every N train() calls
        data_path=None,  # folder of expert_data.pkl; None: call load_expert_data(data) before train()
    )

    def __init__(self, config: Any, device: str = 'cpu', tb_logger: Any = None) -> None:
        self.cfg = cfg = EasyDict(deep_merge(self.default_config(), dict(config)))
        if isinstance(cfg.input_size, bool) or not isinstance(cfg.input_size, int) or cfg.input_size < 1:
            raise ValueError(f'GailRewardModel: input_size must be obs_dim + action_dim (an int), got '
                             f'{cfg.input_size!r}; image observations are not supported')
        self.device = torch.device(device)
        self.tb_logger = tb_logger
        self.reward_model = GailDiscriminator(cfg.input_size, cfg.hidden_size).to(self.device)
        self.opt = torch.optim.Adam(self.reward_model.parameters(), lr=cfg.learning_rate)
        self._agent = KeptColumns(KEPT_PAIRS)
        self._expert = None
        self.train_iter = 0
        self.last_stats: Dict[str, float] = {}
        if cfg.data_path is not None:
            self.load_expert_data()

    def _pairs(self, data: Any) -> np.ndarray:
        batch = batch_of(data)
        obs = np.asarray(batch['obs'], dtype=np.float32).reshape(len(batch), -1)
        action = np.asarray(batch['action'], dtype=np.float32).reshape(len(batch), -1)
        pairs = np.concatenate([obs, action], axis=1)
        if pairs.shape[1] != self.cfg.input_size:
            raise ValueError(f'GailRewardModel: a state-action pair has {pairs.shape[1]} numbers (obs '
                             f'{obs.shape[1]} + action {action.shape[1]}) but input_size is {self.cfg.input_size}')
        return pairs

    def load_expert_data(self, data: Any = None) -> None:
        """The expert's transitions: `data`, or `<data_path>/expert_data.pkl` when None."""
        if data is None:
            if self.cfg.data_path is None:
                raise ValueError('GailRewardModel.load_expert_data: no data given and reward_model.data_path is None')
            path = os.path.join(self.cfg.data_path, 'expert_data.pkl')
            if not os.path.isfile(path):
                raise FileNotFoundError(f'GailRewardModel: no expert data at {path} (reward_model.data_path)')
            with open(path, 'rb') as f:
                data = pickle.load(f)
        self._expert = torch.as_tensor(self._pairs(data), device=self.device)

    def collect_data(self, data: Any) -> None:
        pairs = self._pairs(data)
        if len(pairs):
            self._agent.add(pairs=pairs)

    def clear_data(self) -> None:
        self._agent.clear()

    def train(self) -> None:
        """`update_per_collect` discriminator updates on `batch_size` agent and expert pairs each."""
        if self._expert is None:
            raise RuntimeError('GailRewardModel.train: no expert data; set reward_model.data_path or call '
                               'load_expert_data(data) first')
        if len(self._agent) == 0:
            return
        n = self.cfg.batch_size
        for _ in range(self.cfg.update_per_collect):
            agent = torch.as_tensor(self._agent.sample(n)['pairs'], device=self.device)
            expert = self._expert[torch.randint(len(self._expert), (n, ), device=self.device)]
            loss = gail_discriminator_loss(self.reward_model(agent), self.reward_model(expert))
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.train_iter += 1
        self.last_stats['gail_loss'] = loss.item()
        if self.tb_logger is not None:
            self.tb_logger.add_scalar('reward_model/gail_loss', loss.item(), self.train_iter)

    def estimate(self, data: Any) -> Batch:
        """A new Batch of `data`'s transitions with reward -log D(s, a); the input is not modified."""
        batch = batch_of(data)
        if len(batch) == 0:
            return batch
        with torch.no_grad():
            d = self.reward_model(torch.as_tensor(self._pairs(batch), device=self.device))
        return fuse_bonus(batch, gail_reward(d).cpu().numpy().astype(np.float32), ASSIGN)

    def state_dict(self) -> Dict[str, Any]:
        return {'model': self.reward_model.state_dict(), 'optimizer': self.opt.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.reward_model.load_state_dict(state['model'])  # a checkpoint may hold 'model' alone
        if 'optimizer' in state:
            self.opt.load_state_dict(state['optimizer'])
