"""Install `ding` (the RL framework) and `dizoo` (its environments, configs and entry scripts)."""
from setuptools import find_packages, setup

EXTRAS = {
    'box2d': ['gymnasium[box2d]>=1.0'],
    'mujoco': ['gymnasium[mujoco]>=1.0'],
    'atari': ['ale-py>=0.9', 'pillow>=10'],  # pillow: WarpFrameWrapper's resize
    'minatar': ['minatar>=1.0.15'],  # dizoo/minatar (pulls matplotlib, seaborn, pandas; not torch)
    'minigrid': ['minigrid>=2.3'],  # dizoo/minigrid
    'dist': ['ray>=2.9'],
    'envpool': ['envpool'],
    'compat': ['DI-toolkit'],
    'plot': ['matplotlib>=3.7'],
    # GIF (pillow) and MP4 (imageio-ffmpeg, whose wheel carries the ffmpeg binary); pygame renders classic control
    'video': ['imageio>=2.30', 'imageio-ffmpeg>=0.4.9', 'pillow>=10', 'pygame-ce>=2.1.3'],
    'export': ['onnx>=1.16', 'onnxruntime>=1.18'],  # `ding export --format onnx`
    'offline': ['h5py>=3'],  # hdf5 datasets for offline RL
    'minari': ['minari>=0.5', 'h5py>=3'],  # Minari datasets (its hdf5 storage) for offline RL
    'tune': ['optuna>=3.4', 'matplotlib>=3.7'],  # `ding tune`
    'wandb': ['wandb>=0.20'],  # wandb_online_logger / wandb_offline_logger
    'docs': ['mkdocs>=1.6', 'mkdocs-material>=9.5', 'mkdocstrings[python]>=0.24'],  # `make docs`
    'petting_zoo': ['pettingzoo>=1.24', 'mpe2>=1.0'],  # multi-agent envs (dizoo/petting_zoo)
    # Everything the test suite imports or drives, so that a fresh venv passes it (CI makes one).
    'test': [
        'pytest>=7', 'pytest-timeout>=2', 'pytest-xdist>=3.5', 'psutil>=5', 'pygame-ce>=2.1.3', 'pillow>=10', 'imageio>=2.30',
        'matplotlib>=3.7', 'gymnasium[box2d]>=1.0', 'gymnasium[mujoco]>=1.0', 'ray>=2.9', 'DI-toolkit',
        'h5py>=3', 'minari>=0.5',  # tests/offline/test_minari.py
        'imageio-ffmpeg>=0.4.9', 'onnx>=1.16', 'onnxruntime>=1.18', 'optuna>=3.4',
        'wandb>=0.20',  # the wandb loggers' tests, in wandb's offline mode
        'pettingzoo>=1.24', 'mpe2>=1.0',
        'ale-py>=0.9', 'minatar>=1.0.15', 'minigrid>=2.3',  # dizoo/atari, minatar, minigrid on the real envs
    ],
    # pip's default torch wheel on Linux is a multi-GB CUDA build: `ding` does not pull it in on its
    # own (see `ding/__init__.py`); this extra is for those who want exactly that.
    'torch': ['torch>=2.1'],
}
# envpool has no wheel for every Python, and torch is the user's choice: both stay out of 'all'.
EXTRAS['all'] = sorted({req for name, reqs in EXTRAS.items() if name not in ('envpool', 'torch') for req in reqs})

setup(
    name='ding',
    version='0.1.0',
    description='A fast, resumable DI-engine-style reinforcement-learning framework',
    python_requires='>=3.10',
    packages=find_packages(include=['ding', 'ding.*', 'dizoo', 'dizoo.*']),
    package_data={'ding.config': ['tuned/*.yaml']},  # the tuned configs `ding train` / `ding list` read
    # torch is left out on purpose: install the build you want first (README, "Install").
    install_requires=[
        'numpy>=2',
        'gymnasium>=1.0',
        'easydict>=1.10',
        'tensorboardX>=2.6',
        'pyyaml>=6',
    ],
    extras_require=EXTRAS,
    entry_points={'console_scripts': ['ding=ding.entry.cli:main', 'ditask=ding.compat.ditask:main']},
)
