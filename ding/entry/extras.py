"""Name the pip extra that an ImportError (or gymnasium's DependencyNotInstalled) asks for,
so a missing optional package reads `... pip install "ding[box2d]"` instead of a traceback."""
from typing import Optional

# top-level module -> the `ding[...]` extra (setup.py) that installs it
EXTRA_OF_MODULE = {
    'Box2D': 'box2d',
    'mujoco': 'mujoco',
    'ale_py': 'atari',
    'envpool': 'envpool',
    'ray': 'dist',
    'ditk': 'compat',
    'matplotlib': 'plot',
    'imageio': 'video',
    'PIL': 'video',
    'pygame': 'video',
    'imageio_ffmpeg': 'video',
    'onnx': 'export',
    'onnxruntime': 'export',
    'h5py': 'offline',
    'optuna': 'tune',
    'minatar': 'minatar',
    'minigrid': 'minigrid',
    'wandb': 'wandb',
    'pettingzoo': 'petting_zoo',
    'mpe2': 'petting_zoo',
}


class MissingExtraError(Exception):
    """An optional package is missing; the message names the extra that installs it."""


def missing_extra(err: BaseException) -> Optional[MissingExtraError]:
    """The MissingExtraError for `err` (or an exception it was raised from), else None."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        module = _missing_module(err)
        if module in EXTRA_OF_MODULE:
            extra = EXTRA_OF_MODULE[module]
            return MissingExtraError(f'{module} is not installed; install it with: pip install "ding[{extra}]"')
        err = err.__cause__ or err.__context__
    return None


def _missing_module(err: BaseException) -> Optional[str]:
    if isinstance(err, ImportError) and err.name:
        return err.name.split('.')[0]
    if type(err).__name__ == 'DependencyNotInstalled':  # gymnasium's; its message names the package
        text = str(err)
        return next((m for m in EXTRA_OF_MODULE if m.lower() in text.lower()), None)
    return None
