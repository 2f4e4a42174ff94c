"""Argument checking for the `ding` command: numbers that must be positive, seeds numpy and
torch accept, and a parser whose errors end as `ding: error: <cause>` (exit status 2)."""
import argparse
import json
from typing import Any, Dict, Optional

MAX_SEED = 2**32 - 1  # numpy's seeding range


class UsageError(Exception):
    """A bad command line; `ding.entry.cli.main` prints it and exits with status 2."""


class Parser(argparse.ArgumentParser):
    """Raises UsageError instead of printing usage and exiting, so every user mistake is
    reported the same way (and a test can run the CLI in-process)."""

    def error(self, message: str) -> None:
        raise UsageError(f'{message} (see `{self.prog} --help`)')


def positive_int(text: str) -> int:
    value = _int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f'must be a positive integer, got {value}')
    return value


def seed_value(text: str) -> int:
    value = _int(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f'must be an integer from 0 to {MAX_SEED}, got {value}')
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'must be an integer, got {text!r}') from None


def non_negative_int(text: str) -> int:
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f'must be an integer >= 0, got {value}')
    return value


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'must be a number, got {text!r}') from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f'must be a number >= 0, got {text}')
    return value


def parse_overrides(text: Optional[str]) -> Dict[str, Any]:
    """`--config`'s JSON object of config overrides ({} when not given)."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(f'--config must be a JSON object: {err}') from err
    if not isinstance(value, dict):
        raise UsageError(f'--config must be a JSON object, got {type(value).__name__}')
    return value
