"""The pipeline as a table (middleware, reads, writes) and the wiring check run at start.

The check catches the typical wiring mistake: a middleware reads a ctx field that nothing
before it writes (a learner registered before its data fetcher, a forgotten pusher). Kept
fields are exempt (they carry over from earlier steps), so are fields whose default is a
usable value rather than None (`collect_kwargs = {}` is an optional input), and so is
everything after a middleware without a declared contract, since it may write anything.
"""
import dataclasses
import warnings
from typing import Callable, List, Sequence

from ding.framework.context import Context, field_names
from ding.framework.contract import has_contract, middleware_name


class PipelineWiringWarning(UserWarning):
    """A middleware reads a ctx field that no earlier middleware writes."""


def pipeline_table(middlewares: Sequence[Callable]) -> str:
    """One row per middleware: position, name, reads, writes ('?' when undeclared)."""
    rows = [('#', 'middleware', 'reads', 'writes')]
    for i, fn in enumerate(middlewares):
        name = middleware_name(fn) + (' [fresh weights]' if getattr(fn, 'fresh_weights', False) else '')
        if has_contract(fn):
            rows.append((str(i), name, ', '.join(fn.reads) or '-', ', '.join(fn.writes) or '-'))
        else:
            rows.append((str(i), name, '?', '?'))
    widths = [max(len(row[c]) for row in rows) for c in range(4)]
    lines = ['  '.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, '  '.join('-' * w for w in widths))
    return '\n'.join(lines)


def wiring_problems(middlewares: Sequence[Callable], ctx: Context) -> List[str]:
    """Messages for reads that nothing earlier writes, and for fields `ctx` does not declare."""
    declared = field_names(type(ctx))
    kept = ctx.kept_names
    optional = {f.name for f in dataclasses.fields(ctx) if _default_of(f) is not None}
    written = {'total_step'}  # set by the task itself every step
    problems = []
    for i, fn in enumerate(middlewares):
        if not has_contract(fn):
            break
        name = middleware_name(fn)
        for field in (*fn.reads, *fn.writes):
            if field not in declared:
                problems.append(f'middleware #{i} {name} uses ctx.{field}, which {type(ctx).__name__} does not declare')
        for field in fn.reads:
            if field in declared and field not in kept | optional and field not in written:
                problems.append(f'middleware #{i} {name} reads ctx.{field} but no middleware before it writes it')
        written.update(fn.writes)
    return problems


def _default_of(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def warn_wiring(middlewares: Sequence[Callable], ctx: Context) -> List[str]:
    problems = wiring_problems(middlewares, ctx)
    for message in problems:
        warnings.warn(message, PipelineWiringWarning, stacklevel=3)
    return problems
