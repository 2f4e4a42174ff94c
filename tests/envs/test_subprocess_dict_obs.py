"""Dict observations through the subprocess manager's shared memory (one shared array per
leaf): the same batches as the serial manager, episode ends and exact resume included."""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from ding.data.batch import Batch
from ding.envs import BaseEnvManagerV2, SubprocessEnvManagerV2


class RandomDictEnv(gymnasium.Env):
    """Seeded random dict observations with float64, uint8, int (Discrete) and MultiBinary
    leaves, one nested; episodes of random length."""
    observation_space = spaces.Dict({
        'vec': spaces.Box(-np.inf, np.inf, shape=(3, ), dtype=np.float64),
        'image': spaces.Box(0, 255, shape=(4, 4, 3), dtype=np.uint8),
        'nested': spaces.Dict({'count': spaces.Discrete(50), 'bits': spaces.MultiBinary(2)}),
    })
    action_space = spaces.Discrete(2)

    def _obs(self):
        r = self.np_random
        return {'vec': r.normal(size=3), 'image': r.integers(0, 256, size=(4, 4, 3), dtype=np.uint8),
                'nested': {'count': self.t, 'bits': r.integers(0, 2, size=2).astype(np.int8)}}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), float(action) + self.t, bool(self.np_random.random() < 0.2), False, {}


def run(manager, actions):
    out = [manager.ready_obs.copy()]
    for a in actions:
        r = manager.step_batch(a)
        out.append((r.next_obs, r.reward, r.terminated, r.episode_return, manager.ready_obs.copy()))
    return out


def same(a, b):
    if isinstance(a, Batch):
        return sorted(a.keys()) == sorted(b.keys()) and all(same(a[k], b[k]) for k in a.keys())
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == 'f')


def manager(cls, **cfg):
    m = cls([RandomDictEnv] * 4, cfg)
    m.seed(3)
    m.launch()
    return m


@pytest.mark.slow
def test_subprocess_dict_obs_match_serial_and_resume_exactly():
    actions = np.random.default_rng(0).integers(0, 2, size=(30, 4))
    serial, sub = manager(BaseEnvManagerV2), manager(SubprocessEnvManagerV2, worker_num=2)
    a, b = run(serial, actions[:15]), run(sub, actions[:15])
    assert all(same(x, y) for x, y in zip(a, b))
    obs = b[-1][0]
    assert obs.vec.dtype == np.float32 and obs.image.dtype == np.uint8 and obs.nested.count.shape == (4, )
    assert obs.nested.bits.dtype == np.int8 and np.isfinite(np.concatenate([x[3] for x in b[1:]])).any()
    snap = sub.state_dict()
    rest = run(sub, actions[15:])
    sub.close()
    resumed = SubprocessEnvManagerV2([RandomDictEnv] * 4, dict(worker_num=3))
    resumed.load_state_dict(snap)
    again = run(resumed, actions[15:])
    assert all(same(x, y) for x, y in zip(rest, again))
    assert all(same(x, y) for x, y in zip(run(serial, actions[15:]), rest))
    resumed.close()
    serial.close()


def test_unsupported_dict_leaves_are_named():
    from ding.envs.env_manager.subprocess_layout import array_spec
    space = spaces.Dict({'ok': spaces.Discrete(3), 'text': spaces.Text(5)})
    with pytest.raises(ValueError, match=r"'text' is Text.*use the base_v2 manager"):
        array_spec(2, space, spaces.Discrete(2))
