"""Install `ding` (the RL framework) and `dizoo` (its environments, configs and entry scripts)."""
from setuptools import find_packages, setup

EXTRAS = {
    'box2d': ['gymnasium[box2d]>=1.0'],
    'mujoco': ['gymnasium[mujoco]>=1.0'],
    'atari': ['ale-py>=0.9'],
    'dist': ['ray>=2.9'],
    'envpool': ['envpool'],
    'compat': ['DI-toolkit'],
    'plot': ['matplotlib>=3.7'],
    'video': ['imageio>=2.30', 'pillow>=10'],
    'test': ['pytest>=7', 'pytest-timeout>=2'],
}
# envpool has no wheel for every Python; it stays out of 'all'.
EXTRAS['all'] = sorted({req for name, reqs in EXTRAS.items() if name != 'envpool' for req in reqs})

setup(
    name='ding',
    version='0.1.0',
    description='A fast, resumable DI-engine-style reinforcement-learning framework',
    python_requires='>=3.10',
    packages=find_packages(include=['ding', 'ding.*', 'dizoo', 'dizoo.*']),
    package_data={'ding.config': ['tuned/*.yaml']},  # the tuned configs `ding train` / `ding list` read
    install_requires=[
        'torch>=2.1',
        'numpy>=2',
        'gymnasium>=1.0',
        'easydict>=1.10',
        'tensorboardX>=2.6',
        'tqdm>=4.60',
        'pyyaml>=6',
    ],
    extras_require=EXTRAS,
    entry_points={'console_scripts': ['ding=ding.entry.cli:main']},
)
