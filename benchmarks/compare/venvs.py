"""One virtual environment per peer framework, so each runs with its own dependency pins.

torch is installed first and pinned again in the peer's own install command: pip then keeps
the local CPU wheel and never resolves a multi-GB CUDA build as a peer dependency.
"""
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

TORCH_PIN = 'torch==2.13.0'

# The peers and what goes into their venvs. gymnasium is listed so the version is visible here;
# each peer's own pins decide which 1.x release pip picks.
PEER_PACKAGES: Dict[str, List[str]] = {
    # sb3-contrib and MinAtar: the MinAtar peers; MuJoCo: ppo_hopper
    'sb3': ['stable-baselines3==2.*', 'sb3-contrib==2.*', 'gymnasium[mujoco]>=1.0', 'minatar>=1.0.15'],
    'tianshou': ['tianshou==2.0.1', 'gymnasium>=1.0'],
    # benchmarks/throughput/pong_collection.py: SB3's Atari wrappers need ale-py and OpenCV; EnvPool is the ceiling
    'sb3_atari': ['stable-baselines3==2.*', 'gymnasium>=1.0', 'ale-py', 'opencv-python-headless'],
    'envpool': ['envpool==1.2.5'],
    # benchmarks/compare/d3rlpy_offline.py: the offline peer (TD3+BC, CQL, IQL)
    'd3rlpy': ['d3rlpy==2.8.1', 'gymnasium>=1.0'],
    # mappo_vs_benchmarl.py: BenchMARL's MAPPO (benchmarl_mappo.py) on mpe2's simple_spread, the env dizoo wraps;
    # benchmarl 1.5.2 takes torchrl < 0.12, which resolves with the local torch 2.13 wheel
    'benchmarl': ['benchmarl==1.5.2', 'pettingzoo>=1.24.3', 'mpe2'],
    # runners/di_engine_runner.py: DI-engine 0.5.3 at its dizoo configs, with its own pins (gym 0.25.1,
    # numpy < 2, ...) but for `setuptools<=66.1.1`, which torch 2.13 (setuptools >= 77) cannot meet: the
    # package goes in without its dependencies (PEER_NO_DEPS) and these are its requirements less that pin
    'di_engine': ['gym==0.25.1', 'gymnasium', 'numpy<2,>=1.18.0', 'yapf==0.29.0', 'DI-treetensor>=0.4.0',
                  'DI-toolkit>=0.1.0', 'trueskill', 'tensorboardX>=2.2', 'wandb<=0.19.0', 'matplotlib',
                  'easydict>=1.9', 'pyyaml', 'enum-tools', 'cloudpickle', 'hickle', 'tabulate', 'click>=7.0.0',
                  'flask<=2.0.3', 'werkzeug<=2.0.3', 'requests', 'responses', 'URLObject', 'pynng', 'sniffio',
                  'redis', 'mpire>=2.3.5', 'einops',
                  # edac_di_engine_runner.py evaluates on gymnasium's MuJoCo envs, as our side does
                  'gymnasium[mujoco]'],
}
# Installed with --no-deps after the peer's packages (see 'di_engine' above).
PEER_NO_DEPS: Dict[str, List[str]] = {'di_engine': ['DI-engine==0.5.3']}

DEFAULT_VENV_ROOT = Path(__file__).resolve().parent / '.venvs'


def venv_python(root: Path, peer: str) -> Path:
    return Path(root) / peer / 'bin' / 'python'


def install_commands(py: Path, peer: str) -> List[List[str]]:
    """The pip commands that fill a peer's venv, in order (torch alone first)."""
    if peer not in PEER_PACKAGES:
        raise KeyError(f'unknown peer {peer!r}; known: {sorted(PEER_PACKAGES)}')
    pip = [str(py), '-m', 'pip', 'install', '-q']
    no_deps = [pip + ['--no-deps'] + PEER_NO_DEPS[peer]] if peer in PEER_NO_DEPS else []
    return [pip + [TORCH_PIN], pip + [TORCH_PIN] + PEER_PACKAGES[peer]] + no_deps


def ensure_venv(root: Path, peer: str, log=print) -> Path:
    """Create (once) and return the python of `peer`'s venv under `root`.

    A venv counts as ready only after all its installs succeeded (a marker file naming them), so
    an interrupted install is redone rather than run half-installed, and a venv made before its
    peer's package list changed gets the new packages.
    """
    py = venv_python(root, peer)
    marker = Path(root) / peer / '.installed'
    wanted = '\n'.join(' '.join(c) for c in install_commands(py, peer)) + '\n'
    if marker.exists() and py.exists() and marker.read_text() == wanted:
        return py
    if not py.exists():
        log(f'[venv] creating {peer} venv in {py.parent.parent}')
        subprocess.run([sys.executable, '-m', 'venv', str(py.parent.parent)], check=True)
    marker.unlink(missing_ok=True)
    for cmd in install_commands(py, peer):
        log('[venv] ' + ' '.join(cmd))
        subprocess.run(cmd, check=True, env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK='1'))
    marker.write_text(wanted)
    return py


if __name__ == '__main__':
    for name in sys.argv[1:] or sorted(PEER_PACKAGES):
        print(ensure_venv(DEFAULT_VENV_ROOT, name))
