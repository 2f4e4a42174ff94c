"""One dizoo config trained through the `ding -m serial -c <config>` pipeline with its evaluation
curve recorded: the runner behind minatar_configs.py and atari_configs.py.

The config's stop value is lifted so that the whole budget is seen. The run ends at `max_env_step`,
at the wall cap, or at SIGTERM (at its next step, its curve kept)."""
import os
import signal
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional


def train_with_curve(main: Any, create: Any, algo: str, env_id: str, seed: int, max_env_step: int,
                     wall_cap_s: float, progress: Optional[Callable[[List[List[float]]], None]] = None,
                     progress_every: int = 25) -> Dict[str, Any]:
    """Train; returns env_step, seconds, evals ([seconds, env_step, return] per evaluation) and best.
    `progress(evals)` is called every `progress_every` evaluations (a long run can be looked at, or
    stopped, before it ends)."""
    from ding.entry.pipeline import RunOptions
    from ding.entry.train import start_run
    from ding.framework import task
    from ding.framework.contract import contract
    main.env.stop_value = float('inf')
    evals: List[List[float]] = []
    started = time.perf_counter()
    seen = [None]
    stop_asked = []
    signal.signal(signal.SIGTERM, lambda *_: stop_asked.append(True))

    def recorder(ctx: Any) -> None:
        if ctx.last_eval_iter == ctx.train_iter and seen[0] != ctx.train_iter:
            seen[0] = ctx.train_iter
            evals.append([round(time.perf_counter() - started, 2), int(ctx.env_step), float(ctx.eval_value)])
            if progress is not None and len(evals) % progress_every == 0:
                progress(evals)
        if time.perf_counter() - started > wall_cap_s or stop_asked:
            task.finish = True

    options = RunOptions(max_env_step=max_env_step, checkpoint_freq=10 * max_env_step, progress=False,
                         after_eval=(contract(recorder, reads=('last_eval_iter', 'train_iter', 'env_step',
                                                               'eval_value'), name='curve_recorder'), ))
    with tempfile.TemporaryDirectory(prefix='config_curve_') as tmp:
        _, ctx = start_run(main, create, {'algo': algo, 'env': env_id}, seed, options,
                           exp_name=os.path.join(tmp, 'run'))
    return dict(env_step=int(ctx.env_step), seconds=round(time.perf_counter() - started, 1), evals=evals,
                best=max((e[2] for e in evals), default=None))
