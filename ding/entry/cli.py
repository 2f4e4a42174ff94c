"""The `ding` command (console script `ding = ding.entry.cli:main`).

    ding train  --algo dqn --env CartPole-v1 [...]     start a run        (ding.entry.train)
    ding resume RUN_DIR                                continue a run     (ding.entry.resume)
    ding eval   RUN_DIR_OR_CKPT [--render OUT.gif]     evaluate / render  (ding.entry.evaluate)
    ding plot   RUN_DIR... -o curve.png                learning curves    (ding.entry.plot)
    ding export RUN_DIR --format torchscript|onnx      deployable actor   (ding.entry.export)
    ding tune   --algo dqn --env CartPole-v1 --trials N  hyperparameter search (ding.entry.tune)
    ding list                                          what is available  (ding.entry.listing)
    ding collect RUN_DIR --episodes N --eps E --out F  offline dataset    (ding.entry.collect)
    ding check-env MODULE:FACTORY                      check a custom env (ding.entry.check_env)
    ding -m serial|serial_onpolicy|serial_offline|eval -c CONFIG.py -s SEED   config-file run (ding.entry.serial)

A full disk, a read-only location or a missing permission while writing a run directory print
one line `ding: error: cannot write PATH: no space left on the device (ENOSPC)` and exit 1.
Mistakes a user can fix (an unknown algorithm, env or config key, a bad number, a misspelt
model argument, a missing or corrupt file, a missing optional package) print one line
`ding: error: <cause>` (with the valid choices, or the extra to install) and exit with status
2, without a traceback and without leaving a run directory. SIGINT / SIGTERM during a run
checkpoint it and exit 130 / 143 (see `ding.entry.interrupt`).
"""
import argparse
import errno
import importlib
import logging
import signal
import sys
from typing import Any, List, Optional

from ding.envs.env_manager.env_faults import EnvFaultError
from ding.entry.extras import missing_extra
from ding.entry.interrupt import RunInterrupted, signals_interrupt
from ding.utils.nonfinite import NonFiniteError

SUBCOMMANDS = {
    'train': ('ding.entry.train', 'start a training run'),
    'resume': ('ding.entry.resume', 'continue a run from its last checkpoint'),
    'eval': ('ding.entry.evaluate', 'evaluate a run or checkpoint, optionally rendering a video'),
    'plot': ('ding.entry.plot', 'plot evaluation return against env steps'),
    'export': ('ding.entry.export', 'export a run\'s greedy actor as TorchScript or ONNX'),
    'tune': ('ding.entry.tune', 'search hyperparameters with Optuna (pruned, parallel, resumable)'),
    'list': ('ding.entry.listing', 'list algorithms, envs and tuned configs'),
    'collect': ('ding.entry.collect', 'make an offline dataset with a trained run\'s policy'),
    'check-env': ('ding.entry.check_env', 'check a custom env (spaces, API, seeding, finite values, step cost)'),
}


def build_parser() -> argparse.ArgumentParser:
    from ding.entry.arguments import Parser
    parser = Parser(prog='ding', description='Train, resume, evaluate and plot ding runs.')
    parser.add_argument('-v', '--verbose', action='store_true', help='log at INFO level')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND')
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        importlib.import_module(module).add_arguments(sub_parser)
    return parser


def _user_errors() -> tuple:
    from ding.config.io import ConfigFileError
    from ding.config.schema import ConfigValueError
    from ding.config.validate import ConfigKeyError
    from ding.data.dataset_fingerprint import DatasetChanged
    from ding.entry.arguments import UsageError
    from ding.entry.catalog import ChoiceError
    from ding.framework.middleware.run_state_file import RunStateUnreadable
    from ding.utils.checkpoint_io import CheckpointError
    return (ChoiceError, ConfigKeyError, ConfigValueError, ConfigFileError, FileNotFoundError, UsageError, CheckpointError, RunStateUnreadable,
            DatasetChanged)


def _distributed_run_error() -> type:
    from ding.framework.distributed.launcher import DistributedRunError  # imports no ray
    return DistributedRunError


def _disk_error(err: BaseException) -> Optional[str]:
    """One line for an error caused by a full disk, a read-only file system or a permission
    (anywhere in its chain), else None."""
    from ding.utils.fileio import USER_FIXABLE, FileWriteError, user_fixable_cause
    if isinstance(err, FileWriteError):
        return str(err)
    cause = user_fixable_cause(err)
    if cause is None:
        return None
    code = errno.errorcode.get(cause.errno, cause.errno)
    return f'{cause.filename or "a file"}: {USER_FIXABLE[cause.errno]} ({code})'


def _error(message: Any, status: int = 2) -> int:
    print(f'ding: error: {message}', file=sys.stderr)
    return status


def _run(argv: List[str]) -> int:
    if argv and (argv[0] == '-m' or argv[0].startswith('--mode')):
        from ding.entry import serial
        return serial.main(argv)
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help()
        return 2
    return importlib.import_module(SUBCOMMANDS[args.command][0]).main(args)


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    verbose = '-v' in argv or '--verbose' in argv
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    try:
        with signals_interrupt():
            return _run(argv)
    except _user_errors() as err:
        return _error(err)
    # an env kept failing, a NaN, a node failed (the launcher ended every node): its own error, no traceback of ours
    except (EnvFaultError, NonFiniteError, _distributed_run_error()) as err:
        return _error(err, 1)
    except RunInterrupted as stop:  # SIGINT / SIGTERM: checkpointed at the end of the step
        print(stop, file=sys.stderr)
        return stop.exit_code
    except KeyboardInterrupt as err:  # a signal while no pipeline ran: no step to checkpoint
        signum = getattr(err, 'signum', signal.SIGINT)
        print(f'ding: interrupted ({signal.Signals(signum).name}) while no step was running', file=sys.stderr)
        return 128 + int(signum)
    except Exception as err:
        disk = _disk_error(err)  # a full disk, a read-only location, no permission: the path and the cause
        if disk is not None:
            return _error(disk, 1)
        extra = missing_extra(err)  # an optional package: name the extra that installs it
        if extra is None:
            raise
        return _error(extra)


if __name__ == '__main__':
    sys.exit(main())
