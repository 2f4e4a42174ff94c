"""The quickstart page: the README's first shell block (its two commands), copied at build time
so the site and the README cannot disagree."""
import os
import re

from docgen_common import ROOT


def readme_commands() -> str:
    with open(os.path.join(ROOT, 'README.md')) as f:
        match = re.search(r'^```bash\n(.*?)^```', f.read(), re.S | re.M)
    if match is None:
        raise RuntimeError('quickstart: README.md has no ```bash block to take the commands from')
    return match.group(1)


def render() -> str:
    return f'''# Quickstart

On a machine with Python 3.10+ and nothing activated, from a clone of the repository:

```bash
{readme_commands().rstrip()}
```

`make` creates `./.venv` (set `PYTHON=/path/to/python` to use another interpreter), installs the CPU
build of torch first, then `ding` with its test extra. These two commands are the README's own,
copied here when the site is built.

Next:

- `ding list` shows the tuned (algorithm, env) pairs, `ding train --algo dqn --env CartPole-v1` trains one,
  `ding eval RUN_DIR` replays it, `ding resume RUN_DIR` continues a stopped run
  ([CLI reference](reference/cli.md)).
- [Pipelines](pipelines.md) shows the same runs as Python programs built from middleware.
- [Migrating from DI-engine](migrating.md) lists what carries over unchanged.
'''
