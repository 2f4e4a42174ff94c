"""Wrapper chains from config: `env.env_wrapper`.

`env_wrapper` is either the name of a default chain ('default', 'mujoco_default',
'atari_default', 'gym_hybrid_default') or a list whose items are wrapper specs
`{'type': name, 'kwargs': {...}, 'import_names': [...]}`, bare wrapper names, or callables
`env -> wrapped env` (e.g. `lambda env: FrameStackWrapper(env, 4)`). A name that is
not registered fails naming the valid ones.
"""
import copy
import importlib
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from easydict import EasyDict

from ding.utils.keys import closest
from ding.utils.registry import ENV_WRAPPER_REGISTRY

WRAPPER_MODULES = ('ding.envs.env_wrappers.frame_wrappers', 'ding.envs.env_wrappers.step_wrappers',
                   'ding.envs.env_wrappers.norm_wrappers', 'ding.envs.env_wrappers.grid_wrappers')
DEFAULT_CHAINS = ('default', 'mujoco_default', 'atari_default', 'gym_hybrid_default')
# Atari games that wait for FIRE after a reset.
FIRE_GAMES = ('Pong', 'Qbert', 'SpaceInvader', 'Montezuma')


def wrapper_names() -> List[str]:
    """Every registered wrapper type name."""
    for module in WRAPPER_MODULES:
        importlib.import_module(module)
    return sorted(ENV_WRAPPER_REGISTRY)


def get_default_wrappers(env_wrapper_name: str, env_id: Optional[str] = None,
                         caller: str = 'collector') -> List[EasyDict]:
    """The wrapper specs of a named default chain (reward clipping only for the collector)."""
    if caller not in ('collector', 'evaluator'):
        raise ValueError(f"caller must be 'collector' or 'evaluator', got {caller!r}")
    episode_return = EasyDict(type='eval_episode_return')
    if env_wrapper_name in ('default', 'mujoco_default'):
        return [episode_return]
    if env_wrapper_name == 'gym_hybrid_default':
        return [EasyDict(type='gym_hybrid_dict_action'), episode_return]
    if env_wrapper_name == 'atari_default':
        chain = [EasyDict(type='noop_reset', kwargs=dict(noop_max=30)),
                 EasyDict(type='max_and_skip', kwargs=dict(skip=4)),
                 EasyDict(type='episodic_life')]
        if env_id is not None and any(game in env_id for game in FIRE_GAMES):
            chain.append(EasyDict(type='fire_reset'))
        chain += [EasyDict(type='warp_frame'), EasyDict(type='scaled_float_frame')]
        if caller == 'collector':
            chain.append(EasyDict(type='clip_reward'))
        return chain + [EasyDict(type='frame_stack', kwargs=dict(n_frames=4)), episode_return]
    raise ValueError(f'unknown env_wrapper {env_wrapper_name!r}{closest(str(env_wrapper_name), DEFAULT_CHAINS)}; '
                     f'a default chain is one of {list(DEFAULT_CHAINS)}, or give a list of wrapper specs '
                     f'(wrapper types: {wrapper_names()})')


def create_env_wrapper(env: Any, env_wrapper_cfg: Union[str, Mapping]) -> Any:
    """`env` wrapped by one spec: `{'type': name, 'kwargs': {...}, 'import_names': [...]}` or a name."""
    spec = {'type': env_wrapper_cfg} if isinstance(env_wrapper_cfg, str) else dict(copy.deepcopy(env_wrapper_cfg))
    for module in spec.pop('import_names', None) or ():
        importlib.import_module(module)
    if 'type' not in spec:
        raise ValueError(f'an env wrapper spec needs a "type"; got {env_wrapper_cfg!r}')
    name = spec.pop('type')
    known = wrapper_names()
    if name not in known:
        raise ValueError(f'unknown env wrapper type {name!r}{closest(str(name), known)}; valid types: {known}')
    kwargs = dict(spec.pop('kwargs', None) or {})
    if spec:  # e.g. dict(type='obs_norm', clip_range=...): the argument would be dropped unseen
        raise ValueError(f'env wrapper spec {name!r} has keys {sorted(spec)} beside type / kwargs / import_names; '
                         f'the wrapper\'s arguments go under kwargs: dict(type={name!r}, kwargs={spec!r})')
    return ENV_WRAPPER_REGISTRY.lookup(name)(env, **kwargs)


def wrapper_specs(env_wrapper: Any, env_id: Optional[str] = None, caller: str = 'collector') -> List[Any]:
    """`cfg.env_wrapper` as a list of specs / callables (a named chain expanded)."""
    if env_wrapper is None:
        return []
    if isinstance(env_wrapper, str):
        return get_default_wrappers(env_wrapper, env_id, caller)
    if callable(env_wrapper) or isinstance(env_wrapper, Mapping):
        return [env_wrapper]
    if isinstance(env_wrapper, Sequence):
        return list(env_wrapper)
    raise TypeError(f'env_wrapper must be a default chain name, a list of wrapper specs or callables; '
                    f'got {type(env_wrapper).__name__}')


def apply_wrappers(env: Any, specs: Sequence[Any]) -> Any:
    """`env` wrapped by each spec in turn (the first is innermost)."""
    for spec in specs:
        if isinstance(spec, (str, Mapping)):
            env = create_env_wrapper(env, spec)
        elif callable(spec):
            env = spec(env)
        else:
            raise TypeError(f'an env wrapper is a spec dict, a name or a callable; got {spec!r}')
    return env


# --- shapes -------------------------------------------------------------------------------------
def _spec_name_kwargs(spec: Any) -> Tuple[Optional[str], dict]:
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, Mapping):
        return spec.get('type'), dict(spec.get('kwargs') or {})
    return None, {}


_NEW_SHAPE: dict = {
    'frame_stack': lambda s, kw: (int(kw.get('n_frames', 4)), ) + tuple(s),
    'warp_frame': lambda s, kw: (int(kw.get('size', 84)), ) * 2,
    'obs_transpose': lambda s, kw: (s[-1], *s[:-1]) if len(s) == 3 else s,
    'ram': lambda s, kw: tuple(s) + (1, 1),
}


_CLASS_NAMES = {'FrameStackWrapper': 'frame_stack', 'WarpFrameWrapper': 'warp_frame',
                'ObsTransposeWrapper': 'obs_transpose', 'RamWrapper': 'ram'}


def update_shape(obs_shape: Any, act_shape: Any, rew_shape: Any, wrapper_names: List[Any]) -> Tuple[Any, Any, Any]:
    """(obs, action, reward) shapes after the named wrappers (names or specs); wrappers that
    keep shapes, and shapes that are not tuples, pass through."""
    for spec in wrapper_names or ():
        name, kwargs = _spec_name_kwargs(spec)
        change = _NEW_SHAPE.get(_CLASS_NAMES.get(name, name))  # registry or class names (as dizoo configs give them)
        if change is not None and isinstance(obs_shape, (tuple, list)):
            obs_shape = change(tuple(obs_shape), kwargs)
    return obs_shape, act_shape, rew_shape


def is_episode_return_spec(spec: Any) -> bool:
    return _spec_name_kwargs(spec)[0] == 'eval_episode_return'
