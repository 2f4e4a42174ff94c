"""The layout of a run directory `<exp_name>/`, in one place so the CLI, the middleware and
the agents agree on it:

    config.yaml        resolved config (written by compile_config)
    run.json           how the run was started (what `ding resume` needs to rebuild it)
    progress.csv       one row per log interval (evaluations and the end of the run)
    result.json        the same rows, one JSON object per line
    log/               tensorboard events (ding_init)
    ckpt/              policy checkpoints (CkptSaver), run_state.pt (exact resume) and
                       run_state.prev.pt (the one before, if the latest is unreadable)
    videos/            renders written by `ding eval --render`

Every file is written atomically (`ding.utils.fileio`); a crash leaves `.<name>.*.tmp`
litter at worst, which `remove_stale_tmp` clears at a resume (all but the evaluator's, which
another node may be writing then).
"""
import glob
import json
import os
from typing import Any, Dict, Optional

from ding.utils.fileio import atomic_write_json

RUN_STATE_NAME = 'run_state.pt'
RUN_STATE_PREV_NAME = 'run_state.prev.pt'  # the checkpoint before the latest (resume falls back to it)
# the best evaluation's policy, written by the evaluator: in a distributed run another node, which at a
# resume may be writing it while the learner restores (so its temporaries are not the learner's to clear)
EVAL_CKPT_NAME = 'eval.pth.tar'


class RunDir:
    """Paths inside one run directory (nothing is created until written)."""

    def __init__(self, root: str) -> None:
        self.root = os.fspath(root)

    def path(self, *parts: str) -> str:
        return os.path.join(self.root, *parts)

    @property
    def config_yaml(self) -> str:
        return self.path('config.yaml')

    @property
    def run_json(self) -> str:
        return self.path('run.json')

    @property
    def progress_csv(self) -> str:
        return self.path('progress.csv')

    @property
    def result_json(self) -> str:
        return self.path('result.json')

    @property
    def log_dir(self) -> str:
        return self.path('log')

    @property
    def ckpt_dir(self) -> str:
        return self.path('ckpt')

    @property
    def videos_dir(self) -> str:
        return self.path('videos')

    @property
    def run_state(self) -> str:
        return self.path('ckpt', RUN_STATE_NAME)

    @property
    def run_state_prev(self) -> str:
        return self.path('ckpt', RUN_STATE_PREV_NAME)

    def read_meta(self) -> Dict[str, Any]:
        """run.json, or a clear error saying this is not a run directory made by `ding train`."""
        if not os.path.isfile(self.run_json):
            if not os.path.exists(self.root):
                raise FileNotFoundError(f'{self.root} does not exist')
            inside = runs_inside(self.root)  # a parent of runs: name them, not its other files
            hint = f'; run directories inside it: {", ".join(inside[:3])}{", ..." if len(inside) > 3 else ""}' \
                if inside else ''
            raise FileNotFoundError(f'{self.root} is not a run directory started by `ding train` (no run.json){hint}')
        with open(self.run_json) as f:
            return json.load(f)

    def write_meta(self, meta: Dict[str, Any]) -> None:
        atomic_write_json(self.run_json, meta)


def runs_inside(directory: str) -> list:
    """The run directories (holding run.json) directly inside `directory`, sorted."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if os.path.isfile(os.path.join(directory, n, 'run.json'))]


def policy_checkpoint(path: str) -> str:
    """The checkpoint file to evaluate for `path`: the file itself, or in a run directory the
    best evaluation (`eval.pth.tar`), else `final.pth.tar`, else the newest `iteration_*`."""
    if os.path.isfile(path):
        return path
    ckpt = os.path.join(path, 'ckpt')
    for name in (EVAL_CKPT_NAME, 'final.pth.tar'):
        if os.path.isfile(os.path.join(ckpt, name)):
            return os.path.join(ckpt, name)
    iterations = glob.glob(os.path.join(ckpt, 'iteration_*.pth.tar'))
    if iterations:
        return max(iterations, key=lambda p: int(os.path.basename(p).split('_')[1].split('.')[0]))
    raise FileNotFoundError(f'no checkpoint in {path}: expected a .pth.tar file or a run directory with ckpt/')


def run_dir_of(path: str) -> Optional[str]:
    """The run directory holding `path` (a run directory or a file in its ckpt/), if any."""
    candidate = path if os.path.isdir(path) else os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return candidate if os.path.isfile(os.path.join(candidate, 'run.json')) or \
        os.path.isfile(os.path.join(candidate, 'config.yaml')) else None


def remove_stale_tmp(directory: str, spare: tuple = (EVAL_CKPT_NAME, )) -> int:
    """Delete temporary files an interrupted atomic write left behind, except those of the files
    named in `spare` (another node may be writing them now); returns how many."""
    stale = [p for p in glob.glob(os.path.join(directory, '.*.tmp'))
             if not any(os.path.basename(p).startswith(f'.{name}.') for name in spare)]
    for p in stale:
        try:
            os.unlink(p)
        except FileNotFoundError:  # its writer finished (or cleared it) meanwhile
            pass
    return len(stale)
