"""interaction_evaluator(render=True): the worst, median and best episodes as a replay video,
frames lined up with the returns, from the serial and the subprocess env managers."""
import gymnasium as gym
import numpy as np
import pytest
import torch
from easydict import EasyDict

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.envs.env_manager.env_frames import EpisodeFrames, replay_video
from ding.framework.context import OnlineRLContext
from ding.framework.middleware import interaction_evaluator
from ding.policy.base_policy import Policy


class AlwaysLeft(Policy):
    """CartPole falls over in ~10 steps when pushed one way: short, varied episodes."""

    def _forward_eval(self, obs, **kwargs):
        return {'action': torch.zeros(len(obs), dtype=torch.long)}


def make_env():
    return DingEnvWrapper(gym.make('CartPole-v1'))


def test_replay_video_picks_worst_medians_best_and_pads_with_the_last_frame():
    frame = lambda v: np.full((2, 3, 3), v, dtype=np.uint8)  # noqa: E731
    episodes = [[frame(1)] * 4, [frame(2)] * 2, [frame(3)] * 3, [frame(4)] * 5, [frame(5)] * 1]
    video = replay_video(episodes, returns=[4.0, 2.0, 3.0, 5.0, 1.0])
    assert video.shape == (4, 5, 3, 2, 3) and video.dtype == np.uint8  # [N, T, C, H, W]
    assert [int(v[0, 0, 0, 0]) for v in video] == [5, 2, 3, 4]  # worst, the two medians, best
    assert (video[0, 1:] == 5).all()  # the 1-frame episode padded with its last frame
    assert [int(v[0, 0, 0, 0]) for v in replay_video(episodes[:3], [4.0, 2.0, 3.0])] == [2, 3, 1]
    assert [int(v[0, 0, 0, 0]) for v in replay_video(episodes[:2], [4.0, 2.0])] == [2, 1]


def test_dropped_episodes_leave_no_frames():
    frames = EpisodeFrames(2)
    frames.add({0: 'a0', 1: 'b0'}, [0, 1])
    frames.add({0: 'a1', 1: 'b1'}, [0, 1])
    frames.end(0, counted=False)  # an env restart dropped it
    frames.end(1, counted=True)
    frames.add({0: 'c0', 1: 'x'}, [0])
    frames.end(0, counted=True)
    assert frames.episodes() == [['c0'], ['b0', 'b1']]


@pytest.mark.slow  # pygame's first frame costs a second
@pytest.mark.parametrize('manager', [BaseEnvManagerV2, SubprocessEnvManagerV2])
def test_render_true_puts_the_episodes_frames_in_eval_output(manager):
    cfg = EasyDict(seed=0, env=dict(n_evaluator_episode=4, stop_value=500),
                   policy=dict(eval=dict(evaluator=dict(eval_freq=1))))
    env = manager([make_env] * 2, cfg=manager.default_config())
    policy = AlwaysLeft(EasyDict(), model=torch.nn.Linear(4, 2), enable_field=['eval'])
    ctx = OnlineRLContext()
    try:
        interaction_evaluator(cfg, policy.eval_mode, env, render=True)(ctx)
    finally:
        env.close()
    returns = ctx.eval_output['episode_return']
    video = ctx.eval_output['replay_video']
    assert len(returns) == 4
    assert video.ndim == 5 and video.shape[0] == 4  # worst, two medians, best
    assert video.shape[2] == 3 and video.shape[3:] == (400, 600)  # CartPole's rgb frame, channels first
    # one frame per step: the longest episode (CartPole gives 1 per step) sets T
    assert video.shape[1] == int(max(returns))
    assert video.std() > 0  # real drawings, not blank frames
    # the same episodes' per-step outputs (the wandb action_logger's data): AlwaysLeft pushes left
    outputs = ctx.eval_output['output']
    # worst, medians, best as in the video; one output per step (CartPole's return is its length)
    assert [len(episode) for episode in outputs] == sorted(int(r) for r in returns)
    assert all(int(step['action']) == 0 for episode in outputs for step in episode)


def test_render_true_with_a_manager_that_cannot_render_fails_at_construction():
    class NoFrames:
        env_num = 1

        def step_batch(self, actions):
            raise AssertionError

    cfg = EasyDict(seed=0, env=dict(n_evaluator_episode=1, stop_value=1),
                   policy=dict(eval=dict(evaluator=dict(eval_freq=1))))
    with pytest.raises(ValueError, match='ready_imgs'):
        interaction_evaluator(cfg, AlwaysLeft(EasyDict(), model=torch.nn.Linear(4, 2), enable_field=['eval']).eval_mode, NoFrames(),
                              render=True)


def test_wandb_video_logger_takes_the_evaluators_channels_first_video(tmp_path):
    import imageio.v3 as iio
    from types import SimpleNamespace

    from ding.framework.middleware.wandb_logger import _Videos

    class FakeWandb:
        @staticmethod
        def Video(path, format):  # noqa: N802 - wandb's name
            return (path, format)

    video = np.zeros((2, 3, 3, 16, 32), dtype=np.uint8)  # [N, T, C, H, W]
    video[:, :, 0] = 200  # red
    path, fmt = _Videos(FakeWandb, str(tmp_path)).of_step(SimpleNamespace(eval_output={'replay_video': video}), 7)
    frames = iio.imread(path)
    assert fmt == 'mp4' and frames.shape == (6, 16, 32, 3)  # N x T frames, channels last
    assert frames[..., 0].mean() > 150 and frames[..., 1].mean() < 50
