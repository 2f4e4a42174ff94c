"""DI-engine's DeepMind-style Atari stack (`wrap_deepmind`), built from the registered
wrappers of `ding.envs.env_wrappers` on a gymnasium ALE env:

    noop_reset(30) -> max_and_skip(4) -> [episodic_life] -> [fire_reset] -> warp_frame(84)
    -> scaled_float_frame -> [clip_reward] -> frame_stack(k)

Episodic life and reward clipping are for training only (`is_train`); FIRE is pressed after
each reset in every game whose action set has FIRE, as DI-engine does. Observations are
float32 [k, 84, 84] in [0, 1] (each value a multiple of 1/255, so a pixel replay can store
them as uint8 without loss). Sticky actions (Machado et al. 2018) are ALE's own
`repeat_action_probability`, applied to every emulator frame.
"""
from typing import Any, List

import gymnasium
from easydict import EasyDict


def make_ale(env_id: str, repeat_action_probability: float = 0.0, full_action_space: bool = False) -> gymnasium.Env:
    """The raw gymnasium ALE env `env_id` (e.g. 'PongNoFrameskip-v4'; its ROM ships with ale-py)."""
    try:
        import ale_py
    except ImportError as err:
        raise ImportError('Atari envs need ale-py, which is not installed; install it with: '
                          'pip install "ding[atari]"') from err
    gymnasium.register_envs(ale_py)
    if 'NoFrameskip' not in env_id and not env_id.startswith('ALE/'):
        raise ValueError(f'Atari env_id {env_id!r}: use a NoFrameskip-v4 id (e.g. "PongNoFrameskip-v4") or an '
                         f'"ALE/<Game>-v5" id; the frame skip is max_and_skip\'s job')
    kwargs = dict(repeat_action_probability=float(repeat_action_probability), full_action_space=full_action_space)
    if env_id.startswith('ALE/'):
        kwargs['frameskip'] = 1  # v5 skips 4 frames itself; max_and_skip does it here
    return gymnasium.make(env_id, **kwargs)


def deepmind_wrapper_specs(action_meanings: List[str], frame_stack: int = 4, episode_life: bool = True,
                           clip_rewards: bool = True, noop_max: int = 30, frame_skip: int = 4, warp_frame: bool = True,
                           scale: bool = True) -> List[EasyDict]:
    """The wrapper specs of DI-engine's `wrap_deepmind`, innermost first."""
    specs = [EasyDict(type='noop_reset', kwargs=dict(noop_max=noop_max)),
             EasyDict(type='max_and_skip', kwargs=dict(skip=frame_skip))]
    if episode_life:
        specs.append(EasyDict(type='episodic_life'))
    if 'FIRE' in action_meanings:
        specs.append(EasyDict(type='fire_reset'))
    if warp_frame:
        specs.append(EasyDict(type='warp_frame', kwargs=dict(size=84)))
    if scale:
        specs.append(EasyDict(type='scaled_float_frame'))
    if clip_rewards:
        specs.append(EasyDict(type='clip_reward'))
    if frame_stack:
        specs.append(EasyDict(type='frame_stack', kwargs=dict(n_frames=frame_stack)))
    return specs


def wrap_deepmind(env_id: str, episode_life: bool = True, clip_rewards: bool = True, frame_stack: int = 4,
                  scale: bool = True, warp_frame: bool = True, **ale_kwargs: Any) -> gymnasium.Env:
    """DI-engine's `wrap_deepmind(env_id, ...)`: the ALE env wrapped for DQN-style agents."""
    from ding.envs.env_wrappers.build import apply_wrappers
    env = make_ale(env_id, **ale_kwargs)
    specs = deepmind_wrapper_specs(env.unwrapped.get_action_meanings(), frame_stack, episode_life, clip_rewards,
                                   scale=scale, warp_frame=warp_frame)
    return apply_wrappers(env, specs)
