"""uint8 observations stay uint8 from the env to the policy (pixel frames at a quarter of
float32's bytes: Atari's `scale=False`); every other dtype still becomes float32."""
import gymnasium
import numpy as np
import pytest
import torch
from easydict import EasyDict
from gymnasium import spaces

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.model.common import ConvEncoder

STACK = [EasyDict(type='frame_stack', kwargs=dict(n_frames=2))]


class PixelCounter(gymnasium.Env):
    """A 4x4 one-channel image whose pixels all equal the step count (mod 256)."""

    def __init__(self, dtype=np.uint8) -> None:
        self.observation_space = spaces.Box(0, 255, shape=(4, 4), dtype=dtype)
        self.action_space = spaces.Discrete(2)
        self.dtype, self.t = dtype, 0

    def _obs(self) -> np.ndarray:
        return np.full((4, 4), self.t % 256, dtype=self.dtype)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1 + int(action)
        return self._obs(), 1.0, self.t >= 300, False, {}


def pixel_env(dtype=np.uint8):
    return DingEnvWrapper(PixelCounter(dtype), cfg=dict(env_wrapper=STACK))


def test_the_env_wrapper_keeps_uint8_and_makes_other_dtypes_float32():
    env = pixel_env()
    assert env.reset().dtype == np.uint8 and env.step(1).obs.dtype == np.uint8
    assert pixel_env(np.int64).reset().dtype == np.float32


@pytest.mark.parametrize('manager', [BaseEnvManagerV2, SubprocessEnvManagerV2])
def test_env_managers_hand_uint8_frames_to_the_policy_as_uint8(manager):
    env = manager([pixel_env for _ in range(3)], dict(worker_num=2) if manager is SubprocessEnvManagerV2 else {})
    try:
        env.seed(0)
        env.launch()
        assert env.ready_obs.dtype == np.uint8 and env.ready_obs.shape == (3, 2, 4, 4)
        for _ in range(150):  # to t = 300, where the episode ends: a terminal frame stays uint8 too
            out = env.step_batch(np.ones(3, dtype=np.int64))
        assert out.next_obs.dtype == np.uint8
        np.testing.assert_array_equal(out.next_obs[:, -1], np.full((3, 4, 4), 300 % 256))
    finally:
        env.close()


def test_the_conv_encoder_sees_uint8_pixels_as_exactly_the_scaled_floats():
    torch.manual_seed(0)
    encoder = ConvEncoder((4, 84, 84), [8, 8, 8, 16])
    pixels = torch.randint(0, 256, (3, 4, 84, 84), dtype=torch.uint8)
    pixels[0, 0, :16, :16] = torch.arange(256, dtype=torch.uint8).view(16, 16)  # every value once
    # what ScaledFloatFrameWrapper hands out for the same frames
    scaled = torch.from_numpy((pixels.numpy() / np.max(np.uint8(255))).astype(np.float32))
    assert torch.equal(encoder(pixels), encoder(scaled))


def test_the_vector_encoder_takes_uint8_values_as_they_are():
    from ding.model.common import FCEncoder
    torch.manual_seed(0)
    encoder = FCEncoder(8, [16, 16])
    values = torch.arange(16, dtype=torch.uint8).view(2, 8)
    assert torch.equal(encoder(values), encoder(values.float()))
