"""Which dataset an offline run trained on: its path, size and sha256, recorded in the run's
`run.json` so that `ding resume` refuses to continue on a file that is gone or has changed
(a resumed run would silently train on other data, and the fetcher's saved epoch order
would index other rows)."""
import hashlib
import os
from typing import Any, Dict, List, Optional


class DatasetChanged(RuntimeError):
    """The dataset of a run being resumed is not the one it started on."""


def dataset_path_of(cfg: Any) -> Optional[str]:
    """The file (or Minari dataset directory) an offline config reads: `policy.collect.data_path`,
    else for 'd4rl' the local file of `env.env_id`; None when the config names neither."""
    collect = (cfg.get('policy') or {}).get('collect') or {}
    if collect.get('data_path') and collect.get('data_type') == 'minari':  # a directory, or a local dataset id
        from ding.data.minari_dataset import minari_data_dir
        return os.path.abspath(minari_data_dir(collect['data_path']))
    if collect.get('data_path'):
        return os.path.abspath(os.fspath(collect['data_path']))
    env_id = (cfg.get('env') or {}).get('env_id')
    if collect.get('data_type') == 'd4rl' and env_id:
        from ding.data.offline_dataset import d4rl_dataset_path
        return os.path.abspath(d4rl_dataset_path(env_id))
    return None


def _files(path: str) -> List[str]:
    if os.path.isfile(path):
        return [path]
    return sorted(os.path.join(root, name) for root, _, names in os.walk(path) for name in names)


def dataset_fingerprint(path: str) -> Dict[str, Any]:
    """{'path', 'size', 'sha256'} of a dataset file, or of every file under a dataset directory
    (in sorted order, each hashed with its relative name)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f'dataset {path}: no such file or directory')
    digest, size = hashlib.sha256(), 0
    for name in _files(path):
        if os.path.isdir(path):
            digest.update(os.path.relpath(name, path).encode() + b'\0')
        with open(name, 'rb') as f:
            for block in iter(lambda: f.read(1 << 20), b''):
                digest.update(block)
                size += len(block)
    return {'path': os.path.abspath(path), 'size': size, 'sha256': digest.hexdigest()}


def check_dataset_fingerprint(recorded: Dict[str, Any]) -> None:
    """Raise when the recorded dataset is missing or differs (size first: cheap and telling)."""
    path = recorded['path']
    if not os.path.exists(path):
        raise FileNotFoundError(f'cannot resume: the run trained on {path}, which is gone; put the same dataset back '
                                f'there (sha256 {recorded["sha256"]}, {recorded["size"]} bytes)')
    now = dataset_fingerprint(path)
    if now['size'] != recorded['size']:
        raise DatasetChanged(f'cannot resume: the dataset {path} has changed since the run started: it is now '
                             f'{now["size"]} bytes, the run trained on {recorded["size"]} bytes')
    if now['sha256'] != recorded['sha256']:
        raise DatasetChanged(f'cannot resume: the dataset {path} has changed since the run started (same size, '
                             f'sha256 {now["sha256"]} instead of {recorded["sha256"]})')
