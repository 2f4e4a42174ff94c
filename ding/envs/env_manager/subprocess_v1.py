"""DI-engine's V1 subprocess managers, `SyncSubprocessEnvManager` and `AsyncSubprocessEnvManager`.

They are our `SubprocessEnvManagerV2` (each env in a worker process) with DI-engine V1's `step`:
`step({env_id: action})` steps those envs and returns `{env_id: timestep}`, as `BaseEnvManager`
does over `BaseEnvManagerV2`. Config type names stay ours ('subprocess' is the V2 manager that
pipelines build); these classes are for code that names them.
"""
from typing import Any, Dict, Mapping, Sequence, Union

from ding.envs.env_manager.step_batch import EnvTimestep
from ding.envs.env_manager.subprocess_env_manager import SubprocessEnvManagerV2


class SyncSubprocessEnvManager(SubprocessEnvManagerV2):
    """Steps every env named in `step`'s actions together and returns when all have answered."""

    def step(self, actions: Union[Mapping[int, Any], Sequence[Any]]) -> Dict[int, EnvTimestep]:
        return {ts.env_id: ts for ts in super().step(actions)}


class AsyncSubprocessEnvManager(SyncSubprocessEnvManager):
    """DI-engine's asynchronous variant returns the timesteps of whichever envs answer first
    (at least one). This one waits for every env it stepped, one of the outcomes DI-engine's
    allows, so code written for it (which handles any subset) runs unchanged."""
