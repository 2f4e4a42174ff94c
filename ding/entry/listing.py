"""`ding list`: the algorithms, envs and tuned configs `ding train` accepts."""
import argparse
import os

from ding.entry.catalog import CONFIG_DIR, algorithms, envs, tuned_configs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def render_listing() -> str:
    table = tuned_configs()
    width = max([6] + [len(t.algo) for t in table])  # the algo column fits the longest name
    env_width = max([16] + [len(t.env) for t in table])
    file_width = max(len(os.path.basename(t.path)) for t in table)
    lines = [f'algorithms: {", ".join(algorithms())}', f'envs:       {", ".join(envs())}', '',
             f'tuned configs in {CONFIG_DIR}',
             '(ding train --algo ALGO --env ENV, or -f FILE with the file name or any path):',
             f'  {"algo":<{width}} {"env":<{env_width}} {"threshold":>9} {"budget":>10}  file']
    for t in table:
        if not t.offline and t.demonstrations is None:
            lines.append(f'  {t.algo:<{width}} {t.env:<{env_width}} {t.threshold:>9g} {t.budget_env_steps:>10,}  '
                         f'{os.path.basename(t.path)}')
    imitation = [(t, t.budget_env_steps, t.demonstrations) for t in table if t.demonstrations is not None]
    offline = [(t, t.budget_train_iter, t.dataset) for t in table if t.offline]
    sections = [('imitation (ding train --algo ALGO --env ENV --dataset DEMOS; online, budget in env steps; the '
                 'demonstrations: ding collect EXPERT_RUN --episodes N --eps E):',
                 'budget', 'demonstrations', imitation),
                ('offline (ding train --algo ALGO --env ENV --dataset PATH; budget in updates; the dataset: ding '
                 'collect EXPERT_RUN --episodes N --eps E, EXPERT_RUN a run of the expert pair):',
                 'updates', 'dataset', offline)]
    for title, budget, recipe, rows in sections:  # pairs whose data comes from a run of an expert pair
        if rows:
            lines += ['', title, f'  {"algo":<{width}} {"env":<{env_width}} {"threshold":>9} {budget:>10}  '
                      f'{"file":<{file_width}} {recipe}']
            lines += [f'  {t.algo:<{width}} {t.env:<{env_width}} {t.threshold:>9g} {n:>10,}  '
                      f'{os.path.basename(t.path):<{file_width}} {_recipe(r)}' for t, n, r in rows]
    return '\n'.join(lines)


def _recipe(recipe: dict) -> str:
    return f'{recipe["expert"]} --episodes {recipe["episodes"]} --eps {recipe["eps"]}'


def main(args: argparse.Namespace) -> int:
    print(render_listing())
    return 0
