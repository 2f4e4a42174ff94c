"""`ding eval RUN_DIR_OR_CKPT [--episodes N] [--render OUT.gif|OUT.mp4]`: greedy episodes with
a trained policy, one line per episode and the mean; optionally a video of them all.

The config comes from the run directory (`run.json`, or `total_config.py`); the
weights from the checkpoint given, or the run's best (`ckpt/eval.pth.tar`), else the final.
"""
import argparse
import os
from contextlib import closing
from typing import Any, List, Mapping, Optional, Tuple

import numpy as np
from easydict import EasyDict

from ding.entry.arguments import UsageError, positive_int, seed_value
from ding.utils.checkpoint_io import CheckpointError, load_checkpoint
from ding.utils.run_dir import RunDir, policy_checkpoint, run_dir_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('path', help='a run directory or a checkpoint file inside one (ckpt/*.pth.tar)')
    parser.add_argument('--episodes', type=positive_int, default=5)
    parser.add_argument('--render', default=None, metavar='OUT', help='write a .gif or .mp4 of the episodes')
    parser.add_argument('--seed', type=seed_value, default=None, help='env seed (default: the run\'s seed)')
    parser.add_argument('--fps', type=positive_int, default=25, help='frames per second (GIF stores 1/100 s steps)')


def run_config(run_dir: str) -> EasyDict:
    """The compiled config of a run directory (nothing is written)."""
    from ding.config import compile_config, read_config
    rd = RunDir(run_dir)
    if os.path.isfile(rd.run_json):
        meta = rd.read_meta()
        main, create, seed = EasyDict(meta['main_config']), EasyDict(meta['create_config']), meta['seed']
    elif os.path.isfile(rd.path('total_config.py')):
        main, create = read_config(rd.path('total_config.py'))
        seed = main.get('seed', 0)
    else:
        raise FileNotFoundError(f'{run_dir}: neither run.json nor total_config.py; cannot tell which policy and env')
    main.exp_name = rd.root
    return compile_config(main, create_cfg=create, auto=True, seed=seed, save_cfg=False)


def load_policy(cfg: Any, ckpt_path: str) -> Any:
    """An eval-only policy with the checkpoint's weights (a policy checkpoint or run_state.pt);
    CheckpointError for a file that is unreadable or does not fit the run's model."""
    from ding.entry.pipeline import make_policy
    policy = make_policy(cfg, enable_field=['eval'])
    state = load_checkpoint(ckpt_path)
    if isinstance(state, Mapping) and 'format' in state and 'policy' in state:  # a run-state checkpoint
        state = state['policy']
    if not isinstance(state, Mapping) or 'model' not in state:
        raise CheckpointError(f'{ckpt_path} is not a policy checkpoint (no model weights in it)')
    try:
        policy.learn_mode.load_state_dict(state)
    except (RuntimeError, KeyError, ValueError) as err:
        raise CheckpointError(f'{ckpt_path} does not fit this run\'s model: {err}') from err
    return policy


def make_eval_env(cfg: Any, render: bool) -> Any:
    from ding.envs import get_vec_env_setting
    env_cls, _, evaluator_cfgs = get_vec_env_setting(cfg.env, collect=False)
    env = env_cls(evaluator_cfgs[0])
    if render:
        from ding.envs.env_manager.env_frames import enable_rendering
        unwrapped = getattr(getattr(env, 'env', None), 'unwrapped', None)
        if unwrapped is None or not hasattr(unwrapped, 'render_mode'):
            raise ValueError(f'{env!r} cannot render frames (no gymnasium env inside)')
        enable_rendering(env)
    return env


def play(policy: Any, env: Any, episodes: int, seed: int, render: bool) -> Tuple[List[float], List[np.ndarray]]:
    """Greedy episodes; returns their returns and, when rendering, every frame (first included)."""
    frames: List[np.ndarray] = []
    returns: List[float] = []
    env.seed(seed, dynamic_seed=True)
    grab = (lambda: frames.append(np.asarray(env.env.unwrapped.render()))) if render else (lambda: None)
    for _ in range(episodes):
        obs = env.reset()
        policy.eval_mode.reset()
        grab()
        total, done = 0.0, False
        while not done:
            action = policy.eval_mode.forward_batch(obs[None])['action'][0]
            timestep = env.step(action)
            obs, done = timestep.obs, timestep.done
            total += float(np.asarray(timestep.reward).sum())
            grab()
        returns.append(total)
    return returns, frames


VIDEO_ENCODER = {'.gif': 'PIL', '.mp4': 'imageio_ffmpeg'}  # video suffix -> the module that encodes it


def check_render_target(path: str) -> None:
    """Before any episode is played: the video type is known and its packages are installed
    (pygame draws the frames, imageio writes them, pillow encodes a GIF, imageio-ffmpeg's own
    ffmpeg binary an MP4)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in VIDEO_ENCODER:
        raise UsageError(f'--render must end in .gif or .mp4, got {path!r}')
    import importlib
    os.environ.setdefault('PYGAME_HIDE_SUPPORT_PROMPT', '1')  # set before pygame's first import prints it
    for module in ('pygame', 'imageio', VIDEO_ENCODER[ext]):
        importlib.import_module(module)  # an ImportError names the extra (ding.entry.extras)
    if ext == '.mp4':
        import imageio_ffmpeg
        try:
            imageio_ffmpeg.get_ffmpeg_exe()  # the binary its wheel carries (or IMAGEIO_FFMPEG_EXE)
        except RuntimeError as err:
            raise UsageError(f'no ffmpeg binary to write an .mp4 ({err}); install it with: '
                             f'pip install "ding[video]"') from err


def write_video(frames: List[np.ndarray], path: str, fps: int) -> None:
    """A .gif (pillow) or .mp4 (imageio-ffmpeg), written beside the target then renamed.
    A GIF merges identical consecutive frames into one longer frame: its total duration,
    not its frame count, is `len(frames) / fps`."""
    import imageio.v2 as imageio
    check_render_target(path)
    ext = os.path.splitext(path)[1].lower()
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f'.{os.path.basename(path)}.{os.getpid()}.tmp{ext}')
    try:
        if ext == '.gif':
            imageio.mimsave(tmp, frames, duration=1000.0 / fps, loop=0)
        else:  # H.264 in yuv420p needs even sides only, not imageio's default multiple of 16
            imageio.mimsave(tmp, frames, fps=fps, macro_block_size=2)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def evaluate(path: str, episodes: int = 5, render: Optional[str] = None, seed: Optional[int] = None,
             fps: int = 25) -> List[float]:
    run_dir = run_dir_of(path)
    if run_dir is None:
        raise FileNotFoundError(f'{path} is not a run directory or a checkpoint inside one')
    if render is not None:
        check_render_target(render)
    cfg = run_config(run_dir)
    ckpt = policy_checkpoint(path)
    policy = load_policy(cfg, ckpt)
    with closing(make_eval_env(cfg, render is not None)) as env:
        returns, frames = play(policy, env, episodes, cfg.seed if seed is None else seed, render is not None)
    for i, r in enumerate(returns):
        print(f'Episode #{i}: reward: {r:.1f}')
    print(f'Mean reward: {np.mean(returns):.2f} (std {np.std(returns):.2f}) over {len(returns)} episodes '
          f'[{os.path.relpath(ckpt)}]')
    if render is not None:
        write_video(frames, render, fps)
        print(f'video: {render} ({len(frames)} frames)')
    return returns


def main(args: argparse.Namespace) -> int:
    evaluate(args.path, args.episodes, args.render, args.seed, args.fps)
    return 0
