"""DI-engine's module path `ding.envs.env_wrappers.env_wrappers`: the same names as the package."""
from ding.envs.env_wrappers import *  # noqa: F401,F403
from ding.envs.env_wrappers import __all__  # noqa: F401
