"""dizoo/minigrid: DoorKey-5x5 with flat (DI-engine's 2835-vector) and image ([3, 7, 7])
observations; both DQN configs compile and their models take what the env hands out."""
import importlib

import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.config import compile_config


@pytest.mark.slow
def test_flat_and_image_observations_feed_the_config_models():
    pytest.importorskip('minigrid')
    from ding.model import DQN
    from dizoo.minigrid.envs import MiniGridEnv
    for name, shape in (('dqn', (2835, )), ('image_dqn', (3, 7, 7))):
        mod = importlib.import_module(f'dizoo.minigrid.config.minigrid_doorkey5x5_{name}_config')
        cfg = compile_config(EasyDict(mod.main_config), create_cfg=EasyDict(mod.create_config), auto=True,
                             save_cfg=False)
        env = MiniGridEnv(cfg.env)
        env.seed(0)
        obs = env.reset()
        assert obs.shape == shape and obs.dtype == np.float32 and env.action_space.n == 7
        model = DQN(**cfg.policy.model)
        assert model(torch.from_numpy(obs)[None])['logit'].shape == (1, 7)
    image = obs  # the image config's first observation, seed 0
    flat = MiniGridEnv({'flat_obs': True})
    flat.seed(0)
    # the flat vector starts with the same 7x7x3 view, row-major (H, W, C)
    np.testing.assert_array_equal(flat.reset()[:147], np.moveaxis(image, 0, -1).ravel())


@pytest.mark.slow
def test_max_step_truncates_and_bad_ids_fail():
    pytest.importorskip('minigrid')
    from dizoo.minigrid.envs import MiniGridEnv
    env = MiniGridEnv({'flat_obs': False, 'max_step': 10})
    env.seed(1)
    env.reset()
    steps = [env.step(np.array([2 if t % 2 else 0])) for t in range(10)]  # forward / turn left: no goal
    assert [s.done for s in steps] == [False] * 9 + [True]
    assert steps[-1].info['truncated'] and not steps[-1].info['terminated']
    with pytest.raises(ValueError, match='unknown MiniGrid env_id'):
        MiniGridEnv({'env_id': 'DoorKey-5x5'})


@pytest.mark.slow
def test_onppo_config_compiles_and_its_model_acts_on_the_flat_obs():
    pytest.importorskip('minigrid')
    from ding.policy import PPOPolicy
    from dizoo.minigrid.envs import MiniGridEnv
    mod = importlib.import_module('dizoo.minigrid.config.minigrid_doorkey5x5_onppo_config')
    cfg = compile_config(EasyDict(mod.main_config), create_cfg=EasyDict(mod.create_config), auto=True,
                         save_cfg=False)
    assert cfg.policy.type == 'ppo' and cfg.env.env_id == 'MiniGrid-DoorKey-5x5-v0'
    env = MiniGridEnv(cfg.env)
    env.seed(0)
    obs = env.reset()
    out = PPOPolicy(cfg.policy).collect_mode.forward_batch(obs[None])
    assert out['action'].shape == (1, ) and 0 <= int(out['action'][0]) < 7
