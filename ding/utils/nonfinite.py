"""`NonFiniteError`: a NaN or infinite value that would poison training (an env's observation
or reward, ding/envs/env_manager/nonfinite.py; a loss or gradient norm,
ding/framework/middleware/loss_guard.py). The CLI prints it as one `ding: error:` line."""


class NonFiniteError(RuntimeError):
    """A NaN / infinite observation, reward, loss or gradient norm stopped the run."""
