"""The CLI reference page, read from the argparse parser `ding` itself builds (ding/entry/cli.py):
one section per subcommand with its usage and a table of its arguments."""
import argparse
from typing import List

from docgen_common import md_cell


def _argument_rows(parser: argparse.ArgumentParser) -> List[str]:
    rows = ['| argument | default | meaning |', '|---|---|---|']
    for action in parser._actions:  # argparse keeps no public list of a parser's arguments
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ', '.join(f'`{s}`' for s in action.option_strings) or f'`{action.dest}` (positional)'
        if action.choices is not None:
            name += ' {' + ', '.join(map(str, action.choices)) + '}'
        if action.required and action.option_strings:
            name += ' (required)'
        default = '' if action.default in (None, argparse.SUPPRESS, False) else f'`{action.default}`'
        rows.append(f'| {name} | {default} | {md_cell(action.help or "")} |')
    return rows


def render() -> str:
    from ding.entry.cli import SUBCOMMANDS, build_parser
    parser = build_parser()
    (sub, ) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    lines = ['# CLI reference', '',
             'Generated at build time from the argparse parser of `ding` (`ding/entry/cli.py`); '
             '`ding COMMAND --help` prints the same.', '',
             '```text', parser.format_usage().rstrip(), '```', '',
             '| command | what it does |', '|---|---|']
    lines += [f'| [`ding {name}`](#ding-{name}) | {md_cell(help_text)} |'
              for name, (_, help_text) in SUBCOMMANDS.items()]
    for name in SUBCOMMANDS:
        command = sub.choices[name]
        lines += ['', f'## ding {name}', '', md_cell(command.description or ''), '',
                  '```text', command.format_usage().rstrip(), '```', '']
        lines += _argument_rows(command)
    return '\n'.join(lines) + '\n'
