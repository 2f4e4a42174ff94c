"""The pipeline as a table (middleware, reads, writes) and the wiring check run at start.

The check catches the typical wiring mistake: a middleware reads a ctx field that nothing
before it writes (a learner registered before its data fetcher, a forgotten pusher). Kept
fields are exempt (they carry over from earlier steps), so are fields whose default is a
usable value rather than None (`collect_kwargs = {}` is an optional input), and so is
everything after a middleware without a declared contract, since it may write anything.

Custom ctx names (not fields of the Context class) that a contract names are part of the
pipeline: the table lists them, the check treats them like fields (a read of one that nothing
writes before is reported), and the task declares them on the ctx. A strict ctx takes no
custom names, so there a contract naming one is reported.
"""
import dataclasses
import warnings
from typing import Callable, List, Optional, Sequence

from ding.framework.context import Context, field_names, near_miss
from ding.framework.contract import has_contract, middleware_name


class PipelineWiringWarning(UserWarning):
    """A middleware reads a ctx field that no earlier middleware writes."""


def contract_names(middlewares: Sequence[Callable]) -> List[str]:
    """Every ctx name the middlewares' contracts read or write, in order of first mention."""
    names: dict = {}
    for fn in middlewares:
        if has_contract(fn):
            names.update(dict.fromkeys((*fn.reads, *fn.writes)))
    return list(names)


def custom_contract_names(middlewares: Sequence[Callable], ctx_cls: type) -> List[str]:
    """The names the contracts use that `ctx_cls` does not declare as fields."""
    declared = field_names(ctx_cls)
    return [n for n in contract_names(middlewares) if n not in declared]


def pipeline_table(middlewares: Sequence[Callable], ctx: Optional[Context] = None) -> str:
    """One row per middleware: position, name, reads, writes ('?' when undeclared); with `ctx`,
    a last line names the custom ctx names the contracts introduce."""
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
    custom = custom_contract_names(middlewares, type(ctx)) if ctx is not None else []
    if custom:
        lines.append(f'custom ctx names (not fields of {type(ctx).__name__}): {", ".join(custom)}')
    return '\n'.join(lines)


def wiring_problems(middlewares: Sequence[Callable], ctx: Context) -> List[str]:
    """Messages for reads that nothing earlier writes, and (strict ctx) for names `ctx` does not declare."""
    declared = field_names(type(ctx)) if ctx.strict else ctx.declared_names | set(contract_names(middlewares))
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
                problems.append(f'middleware #{i} {name} uses ctx.{field}, which the strict '
                                f'{type(ctx).__name__} does not declare')
        for field in fn.reads:
            if field in declared and field not in kept | optional and field not in written:
                typo_of = near_miss(type(ctx), field) if field not in field_names(type(ctx)) else None
                hint = f' (did you mean ctx.{typo_of}?)' if typo_of else ''
                problems.append(f'middleware #{i} {name} reads ctx.{field} but no middleware before it writes it{hint}')
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
