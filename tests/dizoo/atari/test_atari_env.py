"""dizoo/atari on the real ALE (ale-py ships the ROMs): DI-engine's wrapper stack by name, the
observation it hands out, max-and-skip, frame stacking, episodic life, noop-reset seeding and
sticky actions."""
import numpy as np
import pytest

pytest.importorskip('ale_py')

from dizoo.atari.envs import AtariEnv, deepmind_wrapper_specs  # noqa: E402


def chain(env) -> list:
    names, layer = [], env.env
    while type(layer).__name__.endswith('Wrapper') and hasattr(layer, 'env'):
        names.append(type(layer).__name__)
        layer = layer.env
    return names[::-1]


@pytest.mark.slow
def test_deepmind_chain_for_training_and_evaluation():
    train = AtariEnv({'env_id': 'PongNoFrameskip-v4'})
    evaluate = AtariEnv({'env_id': 'PongNoFrameskip-v4', 'is_train': False})
    assert chain(train) == ['NoopResetWrapper', 'MaxAndSkipWrapper', 'EpisodicLifeWrapper', 'FireResetWrapper',
                            'WarpFrameWrapper', 'ScaledFloatFrameWrapper', 'ClipRewardWrapper', 'FrameStackWrapper']
    assert chain(evaluate) == ['NoopResetWrapper', 'MaxAndSkipWrapper', 'FireResetWrapper', 'WarpFrameWrapper',
                               'ScaledFloatFrameWrapper', 'FrameStackWrapper']
    assert chain(train.clone('evaluator')) == chain(evaluate)
    assert [s.type for s in deepmind_wrapper_specs(['NOOP', 'UP'], episode_life=False, clip_rewards=False)] == \
        ['noop_reset', 'max_and_skip', 'warp_frame', 'scaled_float_frame', 'frame_stack']  # no FIRE: no fire_reset
    assert train.env.unwrapped.ale.getFloat('repeat_action_probability') == 0.0
    sticky = AtariEnv({'env_id': 'PongNoFrameskip-v4', 'repeat_action_probability': 0.25})
    assert sticky.env.unwrapped.ale.getFloat('repeat_action_probability') == pytest.approx(0.25)
    with pytest.raises(ValueError, match='NoFrameskip-v4'):
        AtariEnv({'env_id': 'Pong-v4'})


@pytest.mark.slow
def test_observations_skip_stack_and_seeding_on_real_pong():
    env = AtariEnv({'env_id': 'PongNoFrameskip-v4', 'frame_stack': 4})
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (4, 84, 84) and obs.dtype == np.float32 and env.action_space.n == 6
    coded = np.rint(obs * 255)
    assert coded.min() >= 0 and coded.max() <= 255 and np.array_equal(coded.astype(np.float32) / 255, obs)
    assert all(np.array_equal(obs[0], obs[j]) for j in range(4))  # a reset stack repeats its first frame
    ale = env.env.unwrapped.ale
    start = ale.getEpisodeFrameNumber()
    assert start >= 2  # noop reset (>= 1 no-op) and FIRE, each a 4-frame step
    for _ in range(3):
        prev, obs = obs, env.step(np.array([0])).obs
        np.testing.assert_array_equal(obs[:-1], prev[1:])  # one new frame per step, the oldest dropped
    assert ale.getEpisodeFrameNumber() - start == 12  # max_and_skip: 4 emulator frames per step
    twin = AtariEnv({'env_id': 'PongNoFrameskip-v4'})
    twin.seed(3)
    twin.reset()
    assert twin.env.unwrapped.ale.getEpisodeFrameNumber() == start  # the same seed, the same no-ops


@pytest.mark.slow
def test_episodic_life_on_real_breakout():
    env = AtariEnv({'env_id': 'BreakoutNoFrameskip-v4'})
    env.seed(0)
    env.reset()
    ale = env.env.unwrapped.ale
    lives = ale.lives()
    for _ in range(500):
        ts = env.step(np.array([env.action_space.sample()]))
        if ts.done:
            break
    assert ts.done and ts.info['terminated'] and 0 < ale.lives() == lives - 1  # a lost life ends the episode
    frames = ale.getFrameNumber()
    env.reset()  # ... but not the game: it goes on from where it was
    assert ale.lives() == lives - 1 and ale.getFrameNumber() > frames and ale.getEpisodeFrameNumber() > 0
    evaluate = AtariEnv({'env_id': 'BreakoutNoFrameskip-v4', 'is_train': False})
    evaluate.seed(0)
    evaluate.reset()
    for _ in range(500):
        ts = evaluate.step(np.array([evaluate.action_space.sample()]))
        if evaluate.env.unwrapped.ale.lives() < lives:
            break
    assert evaluate.env.unwrapped.ale.lives() == lives - 1 and not ts.done  # the evaluator plays the whole game


def test_warped_pong_frames_equal_the_float_luma_then_box_resize():
    """The PIL grayscale of WarpFrameWrapper gives, on Pong's palette, exactly the float luma
    rounded (what it computed before, and the pixels DI-engine's configs were tuned on)."""
    from PIL import Image

    from ding.envs.env_wrappers import WarpFrameWrapper
    from dizoo.atari.envs.atari_wrappers import make_ale
    env = make_ale('PongNoFrameskip-v4')
    warp = WarpFrameWrapper(env)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(120):
        rgb = env.step(int(rng.integers(0, 6)))[0]
        gray = np.rint(rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114).astype(np.uint8)
        expected = np.asarray(Image.fromarray(gray).resize((84, 84), Image.BOX))
        np.testing.assert_array_equal(warp.observation(rgb), expected)
