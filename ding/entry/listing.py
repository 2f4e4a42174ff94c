"""`ding list`: the algorithms, envs and tuned configs `ding train` accepts."""
import argparse
import os

from ding.entry.catalog import CONFIG_DIR, algorithms, envs, tuned_configs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def render_listing() -> str:
    table = tuned_configs()
    width = max([6] + [len(t.algo) for t in table])  # the algo column fits the longest name
    lines = [f'algorithms: {", ".join(algorithms())}', f'envs:       {", ".join(envs())}', '',
             f'tuned configs in {CONFIG_DIR}',
             '(ding train --algo ALGO --env ENV, or -f FILE with the file name or any path):',
             f'  {"algo":<{width}} {"env":<16} {"threshold":>9} {"budget":>9}  file']
    for t in table:
        lines.append(f'  {t.algo:<{width}} {t.env:<16} {t.threshold:>9g} {t.budget_env_steps:>9,}  '
                     f'{os.path.basename(t.path)}')
    return '\n'.join(lines)


def main(args: argparse.Namespace) -> int:
    print(render_listing())
    return 0
