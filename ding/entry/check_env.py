"""`ding check-env MODULE:FACTORY`: check a custom env before training on it.

FACTORY is a callable in MODULE (a function or an Env class) that takes no arguments and
returns a gymnasium env; a registered gymnasium id (`CartPole-v1`, no colon) is built with
`gymnasium.make`. The checks are `ding.entry.env_checks.check_env`; each problem prints as one
line and the exit status is 1 when there is any, 0 when the env is clean.
"""
import argparse
import importlib
import sys
from typing import Any, Callable

from ding.entry.arguments import UsageError, positive_int, seed_value
from ding.entry.env_checks import check_env


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('target', metavar='MODULE:FACTORY',
                        help='the env factory, e.g. my_envs:make_env, or a registered gymnasium id')
    parser.add_argument('--seed', type=seed_value, default=0, help='the seed of the determinism check')
    parser.add_argument('--steps', type=positive_int, default=1000, help='steps timed for the step cost')


def load_factory(target: str) -> Callable[[], Any]:
    """The callable `target` names; a user's mistake raises UsageError (one line, exit 2)."""
    if ':' not in target:
        import gymnasium
        if target not in gymnasium.registry:
            raise UsageError(f'{target!r} is neither MODULE:FACTORY nor a registered gymnasium id')
        return lambda: gymnasium.make(target)
    module_name, _, factory_name = target.partition(':')
    if '' not in sys.path:  # `python -m` adds the working directory, a console script does not
        sys.path.insert(0, '')
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise UsageError(f'cannot import {module_name!r}: {err}') from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise UsageError(f'{module_name} has no callable {factory_name!r}')
    return factory


def main(args: argparse.Namespace) -> int:
    report = check_env(load_factory(args.target), seed=args.seed, timed_steps=args.steps)
    for problem in report.problems:
        print(f'problem: {problem}')
    speed = (f'{report.steps_per_second:,.0f} steps/s over {report.timed_steps} steps'
             if report.steps_per_second is not None else 'step cost not measured')
    if report.problems:
        print(f'{args.target}: {len(report.problems)} problem(s); {speed}')
        return 1
    print(f'{args.target}: ok; {speed}')
    return 0
