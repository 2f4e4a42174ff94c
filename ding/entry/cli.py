"""The `ding` command (console script `ding = ding.entry.cli:main`).

    ding train  --algo dqn --env CartPole-v1 [...]     start a run        (ding.entry.train)
    ding resume RUN_DIR                                continue a run     (ding.entry.resume)
    ding eval   RUN_DIR_OR_CKPT [--render OUT.gif]     evaluate / render  (ding.entry.evaluate)
    ding plot   RUN_DIR... -o curve.png                learning curves    (ding.entry.plot)
    ding list                                          what is available  (ding.entry.listing)
    ding -m serial|serial_onpolicy|serial_offline|eval -c CONFIG.py -s SEED   (DI-engine's form)

Mistakes a user can fix (an unknown algorithm, env or config key, a missing file) print one
error with the valid choices and exit with status 2, without a traceback.
"""
import argparse
import importlib
import logging
import sys
from typing import List, Optional

SUBCOMMANDS = {
    'train': ('ding.entry.train', 'start a training run'),
    'resume': ('ding.entry.resume', 'continue a run from its last checkpoint'),
    'eval': ('ding.entry.evaluate', 'evaluate a run or checkpoint, optionally rendering a video'),
    'plot': ('ding.entry.plot', 'plot evaluation return against env steps'),
    'list': ('ding.entry.listing', 'list algorithms, envs and tuned configs'),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='ding', description='Train, resume, evaluate and plot ding runs.')
    parser.add_argument('-v', '--verbose', action='store_true', help='log at INFO level')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(sub_parser)
    return parser


def _user_errors() -> tuple:
    from ding.config.validate import ConfigKeyError
    from ding.entry.catalog import ChoiceError
    return ChoiceError, ConfigKeyError, FileNotFoundError


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    verbose = '-v' in argv or '--verbose' in argv
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    try:
        if argv and (argv[0] == '-m' or argv[0].startswith('--mode')):
            from ding.entry import serial
            return serial.main(argv)
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return 2
        return importlib.import_module(SUBCOMMANDS[args.command][0]).main(args)
    except _user_errors() as err:
        print(f'ding: error: {err}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
