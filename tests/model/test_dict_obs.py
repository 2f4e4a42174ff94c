"""A user encoder over dict observations sees them as DI-engine's collate builds them."""
import numpy as np
import torch
from torch import nn

from ding.data.batch import Batch
from ding.model import VAC
from ding.model.dict_obs import collated_dict_obs


def test_leaves_become_float32_and_single_value_leaves_become_vectors():
    obs = Batch({'a': {'k1': np.ones((4, 1), np.float32)}, 'img': np.zeros((4, 2, 2, 3), np.uint8),
                 'pair': np.zeros((4, 2), np.float64)}).to_torch()
    out = collated_dict_obs(obs)
    assert out['a']['k1'].shape == (4, ) and out['img'].shape == (4, 2, 2, 3) and out['pair'].shape == (4, 2)
    assert {v.dtype for v in (out['a']['k1'], out['img'], out['pair'])} == {torch.float32}
    flat = torch.zeros(4, 1)
    assert collated_dict_obs(flat) is flat  # one array: our models read it as it is


class KeyEncoder(nn.Module):

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 8)

    def forward(self, obs):
        assert obs['k'].dtype == torch.float32 and obs['k'].dim() == 1
        return self.fc(obs['k'].unsqueeze(-1))


def test_vac_feeds_a_user_encoder_the_collated_view_in_every_mode():
    model = VAC(obs_shape={'k': ()}, action_shape=2, encoder=KeyEncoder(), actor_head_hidden_size=8,
                critic_head_hidden_size=8)
    obs = {'k': torch.arange(3, dtype=torch.uint8).reshape(3, 1)}
    assert model(obs, mode='compute_actor')['logit'].shape == (3, 2)
    assert model(obs, mode='compute_critic')['value'].shape == (3, )
    assert model(obs)['value'].shape == (3, )
