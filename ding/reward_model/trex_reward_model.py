"""`TrexRewardModel`: a reward learnt from ranked demonstrations (T-REX, type `trex`).

`ding.entry.trex_collecting_data` plays one episode with each of an expert run's checkpoints
(`<expert_model_path>/ckpt/iteration_{checkpoint_min..checkpoint_max step checkpoint_step}.pth.tar`)
and writes them under `<exp_name>/`. Later checkpoints count as better demonstrations: the model
draws pairs of snippets from two of them and learns r(s) so that the better one's summed reward is
larger (ding/rl_utils/trex.py). `estimate` then replaces each sampled transition's reward by r(obs).

Unlike the other reward models it takes the whole config: its keys are under `reward_model`,
and it reads `exp_name` (where the demonstrations are) and `policy.model.obs_shape`. Training
happens in `train()`, once, on the demonstrations; the pipeline's own transitions are not used
(`collect_data` keeps nothing).
"""
import logging
import os
import pickle
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import torch
from easydict import EasyDict

from ding.data.batch import Batch
from ding.model.common import ConvEncoder, FCEncoder
from ding.reward_model.base_reward_model import BaseRewardModel
from ding.reward_model.intrinsic import batch_of, fuse_bonus
from ding.rl_utils.trex import trex_preference_accuracy, trex_ranking_loss
from ding.utils.dicts import deep_merge
from ding.utils.fileio import atomic_torch_save
from ding.utils.registry import REWARD_MODEL_REGISTRY

logger = logging.getLogger(__name__)
ASSIGN = EasyDict(intrinsic_reward_type='assign', extrinsic_reward_norm=False)  # the reward is replaced
L1_REG = 0.0  # fixed weight of the |r| penalty (off)
SnippetPair = Tuple[np.ndarray, np.ndarray]


class TrexModel(torch.nn.Module):
    """r(s) per observation: an MLP (obs -> 512 -> 64 -> 1) for vectors, T-REX's
    convolutions (kernels 7/5/3/3, strides 3/2/1/1, LeakyReLU) for [C, H, W] images."""

    def __init__(self, obs_shape: Any) -> None:
        super().__init__()
        shape = (obs_shape, ) if isinstance(obs_shape, int) else tuple(obs_shape)
        if len(shape) == 1:
            body = FCEncoder(shape[0], [512, 64])
        elif len(shape) == 3:
            body = ConvEncoder(shape, [16, 16, 16, 16, 64], torch.nn.LeakyReLU, (7, 5, 3, 3), (3, 2, 1, 1))
        else:
            raise ValueError(f'TrexModel: obs_shape must be an int, [N] or [C, H, W]; got {obs_shape!r}')
        self.encoder = torch.nn.Sequential(body, torch.nn.Linear(64, 1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """[T, *obs_shape] -> [T] rewards."""
        return self.encoder(obs).squeeze(-1)


def ranked_snippet_pairs(demos: Sequence[Sequence[Sequence[Any]]], num_trajs: int, num_snippets: int,
                         min_snippet_length: int, max_snippet_length: int) -> Tuple[List[SnippetPair], List[int]]:
    """T-REX's training pairs from `demos[rank][episode] = [obs, ...]` (higher rank = better),
    drawn with numpy's global generator. Label 1: the second snippet is from the better rank.

    - `num_trajs` pairs of whole episodes, subsampled from a start in [0, 6) every 3-6 steps;
    - `num_snippets` pairs of snippets of a random length L in [min, max) (max capped by the
      shortest episode), every 2nd step; the better episode's snippet starts no earlier than the
      worse one's (the "progress prior")."""
    if len(demos) < 2:
        raise ValueError(f'T-REX needs demonstrations of at least 2 ranks, got {len(demos)}')
    shortest = min(len(ep) for rank in demos for ep in rank)
    max_len = min(shortest, max_snippet_length)
    if num_snippets and max_len <= min_snippet_length:
        raise ValueError(f'T-REX: snippet lengths must lie in [min_snippet_length={min_snippet_length}, '
                         f'{max_len}) (max_snippet_length capped by the shortest demonstration, {shortest} steps)')
    pairs, labels = [], []

    def two_episodes():
        bi, bj = np.random.choice(len(demos), size=2, replace=False)
        return bi, bj, demos[bi][np.random.choice(len(demos[bi]))], demos[bj][np.random.choice(len(demos[bj]))]

    starts_i, starts_j = np.random.randint(6, size=num_trajs), np.random.randint(6, size=num_trajs)
    steps = np.random.randint(3, 7, size=num_trajs)
    for n in range(num_trajs):
        bi, bj, ep_i, ep_j = two_episodes()
        pairs.append((np.asarray(ep_i[starts_i[n]::steps[n]]), np.asarray(ep_j[starts_j[n]::steps[n]])))
        labels.append(int(bi < bj))
    lengths = np.random.randint(min_snippet_length, max_len, size=num_snippets) if num_snippets else []
    for length in lengths:
        bi, bj, ep_i, ep_j = two_episodes()
        common = min(len(ep_i), len(ep_j))
        if bi < bj:  # j is better: its snippet starts no earlier than i's
            start_i = np.random.randint(common - length + 1)
            start_j = np.random.randint(start_i, len(ep_j) - length + 1)
        else:
            start_j = np.random.randint(common - length + 1)
            start_i = np.random.randint(start_j, len(ep_i) - length + 1)
        pairs.append((np.asarray(ep_i[start_i:start_i + length:2]), np.asarray(ep_j[start_j:start_j + length:2])))
        labels.append(int(bi < bj))
    return pairs, labels


@REWARD_MODEL_REGISTRY.register('trex')
class TrexRewardModel(BaseRewardModel):
    """`TrexRewardModel(whole_config, device='cpu', tb_logger=None)`; its keys under
    `reward_model` (min/max_snippet_length have no default)."""
    takes_whole_config = True  # create_reward_model hands it exp_name and policy.model too
    config = dict(
        type='trex',
        learning_rate=1e-5,
        update_per_collect=100,  # passes over all pairs per train(), one optimiser step per pair
        num_trajs=0,  # pairs of whole (subsampled) episodes
        num_snippets=6000,  # pairs of short snippets
    )
    required = ('min_snippet_length', 'max_snippet_length')

    def __init__(self, config: Any, device: str = 'cpu', tb_logger: Any = None) -> None:
        config = EasyDict(config)
        for key in ('exp_name', 'reward_model'):
            if key not in config:
                raise ValueError(f'TrexRewardModel takes the whole config (with exp_name, reward_model and '
                                 f'policy.model.obs_shape); `{key}` is missing')
        obs_shape = config.get('policy', {}).get('model', {}).get('obs_shape')
        if obs_shape is None:
            raise ValueError('TrexRewardModel: policy.model.obs_shape is required')
        self.cfg = cfg = EasyDict(dict(config))
        cfg.reward_model = deep_merge(self.default_config(), dict(config.reward_model))
        missing = [k for k in self.required if cfg.reward_model.get(k) is None]
        if missing:
            raise ValueError(f'TrexRewardModel: reward_model.{missing[0]} is required (e.g. 5 and 100 on CartPole)')
        self.device = torch.device(device)
        self.tb_logger = tb_logger
        self.reward_model = TrexModel(obs_shape).to(self.device)
        self.opt = torch.optim.Adam(self.reward_model.parameters(), lr=cfg.reward_model.learning_rate)
        self.train_iter = 0
        self.pre_expert_data: List[Any] = []
        self.learning_returns: List[Any] = []
        self.training_obs: List[SnippetPair] = []
        self.training_labels: List[int] = []
        self.last_stats: Dict[str, Any] = {}
        self.load_expert_data()

    def load_expert_data(self, data: Any = None) -> None:
        """`<exp_name>/episodes_data.pkl` and `learning_returns.pkl` (trex_collecting_data's
        files), or `data = (episodes_data, learning_returns)`; then draws the training pairs."""
        if data is None:
            files = [os.path.join(self.cfg.exp_name, f'{n}.pkl') for n in ('episodes_data', 'learning_returns')]
            for path in files:
                if not os.path.isfile(path):
                    raise FileNotFoundError(f'TrexRewardModel: no {path}; run ding.entry.trex_collecting_data first')
            data = []
            for path in files:
                with open(path, 'rb') as f:
                    data.append(pickle.load(f))
        self.pre_expert_data, self.learning_returns = data
        rm = self.cfg.reward_model
        self.training_obs, self.training_labels = ranked_snippet_pairs(
            self.pre_expert_data, rm.num_trajs, rm.num_snippets, rm.min_snippet_length, rm.max_snippet_length)
        logger.info('T-REX: %d training pairs from %d ranks', len(self.training_obs), len(self.pre_expert_data))

    def _tensor(self, obs: Any) -> torch.Tensor:
        return torch.as_tensor(np.asarray(obs), dtype=torch.float32, device=self.device)

    def _pair_returns(self, pairs: Sequence[SnippetPair]) -> Tuple[torch.Tensor, torch.Tensor]:
        """Predicted returns of both snippets of every pair, in one forward pass ([B] each)."""
        snippets = [s for pair in pairs for s in pair]
        owner = torch.repeat_interleave(torch.arange(len(snippets), device=self.device),
                                        torch.as_tensor([len(s) for s in snippets], device=self.device))
        rewards = self.reward_model(self._tensor(np.concatenate(snippets)))
        sums = torch.zeros(len(snippets), device=self.device).index_add_(0, owner, rewards)
        return sums[0::2], sums[1::2]

    def train(self) -> None:
        """`update_per_collect` shuffled passes over the pairs, one Adam step per pair;
        then the pairs' accuracy and the demonstrations' predicted returns in last_stats,
        and the weights in `<exp_name>/ckpt_reward_model/latest.pth.tar`."""
        if not self.training_obs:
            raise RuntimeError('TrexRewardModel.train: no training pairs (cleared by clear_data?)')
        for _ in range(self.cfg.reward_model.update_per_collect):
            for n in np.random.permutation(len(self.training_obs)):
                ret_i, ret_j = self._pair_returns([self.training_obs[n]])
                label = torch.tensor([self.training_labels[n]], device=self.device)
                loss = trex_ranking_loss(ret_i, ret_j, label)  # L1_REG, the l1 weight, is 0
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
                self.train_iter += 1
        with torch.no_grad():
            ret_i, ret_j = self._pair_returns(self.training_obs)
            labels = torch.as_tensor(self.training_labels, device=self.device)
            self.last_stats = {
                'trex_loss': trex_ranking_loss(ret_i, ret_j, labels).item(),
                'accuracy': trex_preference_accuracy(ret_i, ret_j, labels),
                'predicted_returns': [[self.predict_traj_return(ep) for ep in rank] for rank in self.pre_expert_data],
            }
        logger.info('T-REX trained: pair accuracy %.3f, predicted returns by rank %s, true returns %s',
                    self.last_stats['accuracy'], self.last_stats['predicted_returns'], self.learning_returns)
        if self.tb_logger is not None:
            for key in ('trex_loss', 'accuracy'):
                self.tb_logger.add_scalar(f'reward_model/{key}', self.last_stats[key], self.train_iter)
        atomic_torch_save(self.reward_model.state_dict(),
                          os.path.join(self.cfg.exp_name, 'ckpt_reward_model', 'latest.pth.tar'))

    def predict_traj_return(self, traj: Sequence[Any]) -> float:
        """Sum of r(s) over an episode's observations."""
        with torch.no_grad():
            return self.reward_model(self._tensor(traj)).sum().item()

    def estimate(self, data: Any) -> Batch:
        """A new Batch of `data`'s transitions with reward r(obs); the input is not modified."""
        batch = batch_of(data)
        if len(batch) == 0:
            return batch
        with torch.no_grad():
            reward = self.reward_model(self._tensor(batch['obs'])).cpu().numpy().astype(np.float32)
        return fuse_bonus(batch, reward, ASSIGN)

    def collect_data(self, data: Any) -> None:
        """T-REX learns from the demonstrations alone (a no-op)."""

    def clear_data(self) -> None:
        self.training_obs, self.training_labels = [], []

    def state_dict(self) -> Dict[str, Any]:
        return {'model': self.reward_model.state_dict(), 'optimizer': self.opt.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.reward_model.load_state_dict(state['model'] if 'model' in state else state)  # or the weights alone
        if 'optimizer' in state:
            self.opt.load_state_dict(state['optimizer'])
