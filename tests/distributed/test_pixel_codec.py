"""Pixel columns cross the object store as uint8 and come back bit for bit (no Ray needed)."""
import pickle

import numpy as np

from ding.data.batch import Batch
from ding.framework.distributed import pixel_codec


def _atari_batch(rows: int = 8) -> Batch:
    frames = np.random.default_rng(0).integers(0, 256, (rows, 4, 84, 84)).astype(np.uint8)
    scaled = (frames / 255).astype(np.float32)  # what ScaledFloatFrameWrapper hands out
    return Batch(obs=scaled, next_obs=np.roll(scaled, 1, axis=0), action=np.arange(rows), reward=np.ones(rows))


def test_scaled_frames_travel_as_uint8_and_come_back_bit_for_bit():
    batch = _atari_batch()
    packed = pixel_codec.pack(batch)
    assert isinstance(packed, pixel_codec.PackedBatch)
    assert packed.columns['obs'].coded.dtype == np.uint8
    assert packed.columns['action'] is batch['action']  # other columns travel as they are
    assert len(pickle.dumps(packed)) < len(pickle.dumps(batch)) / 3.5
    back = pixel_codec.unpack(pickle.loads(pickle.dumps(packed)))
    for key in batch.keys():
        assert back[key].dtype == batch[key].dtype
        assert np.array_equal(back[key], batch[key])


def test_a_column_that_is_not_exact_frames_travels_as_it_is():
    batch = _atari_batch()
    batch['obs'][0, 0, 0, 0] = 0.5  # not k / 255
    batch['next_obs'][1, 0, 0, 0] = np.nan
    assert pixel_codec.pack(batch) is batch  # nothing to code: the same object
    images = Batch(obs=np.full((2, 3, 3), 2.0, dtype=np.float32))  # out of [0, 1]
    assert pixel_codec.pack(images) is images


def test_what_is_not_a_batch_of_images_is_left_alone():
    vectors = Batch(obs=np.zeros((4, 4), dtype=np.float32), action=np.zeros(4))  # CartPole: no images
    assert pixel_codec.pack(vectors) is vectors
    episodes = [_atari_batch(2)]
    assert pixel_codec.pack(episodes) is episodes
    assert pixel_codec.unpack(vectors) is vectors
