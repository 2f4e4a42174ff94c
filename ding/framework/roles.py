"""Roles and labels: how a node of a distributed run says what it does.

A single-process run has no role, so `has_role(r)` is True for every role and each
middleware guarded by a role check runs. Labels are strings matched with shell patterns.
"""
import enum
import fnmatch
from typing import Iterable, Union


class Role(str, enum.Enum):
    LEARNER = 'learner'
    COLLECTOR = 'collector'
    EVALUATOR = 'evaluator'
    FETCHER = 'fetcher'


def match_labels(labels: Iterable[str], patterns: Union[str, Iterable[str]]) -> bool:
    """True when any label matches any pattern (`fnmatch` syntax, e.g. 'node.*')."""
    if isinstance(patterns, str):
        patterns = [patterns]
    labels = list(labels)
    return any(fnmatch.filter(labels, pattern) for pattern in patterns)
