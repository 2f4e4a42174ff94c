"""Command lines read off an entry's `main` signature: the keyword argument `max_env_step=200_000`
becomes the flag `--max-env-step` with that default, so the flags and the Python API agree."""
import argparse
import inspect
import logging
from typing import Any, Callable, Optional


def run_from_command_line(main: Callable[..., Any], description: Optional[str] = None) -> Any:
    """Parse `sys.argv` into `main`'s keyword arguments, log to the console, call `main`."""
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s', datefmt='%H:%M:%S')
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, param in inspect.signature(main).parameters.items():
        flag = '--' + name.replace('_', '-')
        if param.annotation is bool or isinstance(param.default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=param.default)
        else:
            parser.add_argument(flag, type=_value_type(param), default=param.default)
    return main(**vars(parser.parse_args()))


def _value_type(param: inspect.Parameter) -> type:
    if param.annotation in (int, float, str):
        return param.annotation
    return str if param.default is None else type(param.default)
