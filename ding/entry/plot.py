"""`ding plot RUN_DIR... -o curve.png`: evaluation return against env steps.

Runs that differ only by seed (`..._seed0`, `..._seed1`) form one group: one line (the mean
over seeds) with a band (min to max over seeds), each seed's curve held constant between its
evaluations (a step function) so seeds evaluated at different steps combine.

Without `-o` the figure goes to `curve.png`, or, when that file exists, to the first free
`curve-N.png` (said in the output line): a plot never overwrites a file it was not told to.
An `-o` whose extension matplotlib cannot write is one `ding: error:` line, before any run is read.
"""
import argparse
import io
import os
import re
from typing import Dict, List, Tuple

import numpy as np

from ding.entry.arguments import UsageError
from ding.framework.middleware.progress import read_rows
from ding.utils.fileio import atomic_write_bytes
from ding.utils.run_dir import RunDir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('run_dirs', nargs='+', help='run directories (holding result.json)')
    parser.add_argument('-o', '--output', default=None,
                        help=f'image file to write (png, pdf, svg, ...); default {DEFAULT_OUTPUT}, or the first free '
                             f'curve-N.png when it exists')
    parser.add_argument('--title', default=None)


DEFAULT_OUTPUT = 'curve.png'


def free_output(default: str = DEFAULT_OUTPUT) -> str:
    """`default`, or `curve-2.png`, `curve-3.png`, ... when it exists: the first free name."""
    stem, ext = os.path.splitext(default)
    name, n = default, 1
    while os.path.exists(name):
        n += 1
        name = f'{stem}-{n}{ext}'
    return name


def _pyplot():
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError('ding plot needs matplotlib: pip install "ding[plot]"') from err
    return plt


def image_format(output: str) -> str:
    """The format matplotlib writes `output` in (from its extension; none: png); UsageError
    naming the formats it can write otherwise."""
    fmt = os.path.splitext(output)[1].lstrip('.').lower() or 'png'
    plt = _pyplot()
    fig = plt.figure()
    supported = fig.canvas.get_supported_filetypes()
    plt.close(fig)
    if fmt not in supported:
        raise UsageError(f"-o {output}: matplotlib cannot write '.{fmt}' images; use one of "
                         f"{', '.join('.' + f for f in sorted(supported))}")
    return fmt


def group_name(run_dir: str) -> str:
    """The run's name without its seed suffix: `dqn_cartpole-v1_seed2` -> `dqn_cartpole-v1`."""
    name = os.path.basename(os.path.normpath(run_dir))
    return re.sub(r'[_-]?seed\d+', '', name) or name


def is_offline(run_dir: str) -> bool:
    """An offline run (run.json says so) takes no env steps: its curve is against updates."""
    rd = RunDir(run_dir)
    return os.path.isfile(rd.run_json) and bool(rd.read_meta().get('offline', False))


def eval_curve(run_dir: str) -> Tuple[np.ndarray, np.ndarray]:
    rows = [r for r in read_rows(RunDir(run_dir).result_json) if r.get('eval_return_mean') is not None]
    if not rows:
        raise FileNotFoundError(f'{run_dir}: no evaluations in {RunDir(run_dir).result_json}')
    x = 'train_iter' if is_offline(run_dir) else 'env_step'
    return (np.array([r[x] for r in rows], dtype=np.float64),
            np.array([r['eval_return_mean'] for r in rows], dtype=np.float64))


def combine(curves: List[Tuple[np.ndarray, np.ndarray]]) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(steps, mean, low, high) over seeds, on the union of their evaluation steps up to the
    last step every seed reached; each seed's value is its latest evaluation at that step."""
    end = min(x[-1] for x, _ in curves)
    grid = np.unique(np.concatenate([x[x <= end] for x, _ in curves]))
    grid = grid[grid >= max(x[0] for x, _ in curves)]
    values = np.stack([y[np.searchsorted(x, grid, side='right') - 1] for x, y in curves])
    return grid, values.mean(0), values.min(0), values.max(0)


def plot(run_dirs: List[str], output: str, title: str = None) -> Dict[str, int]:
    """Write the figure; returns {group: number of runs}."""
    fmt = image_format(output)
    offline = {is_offline(d) for d in run_dirs}
    if len(offline) > 1:
        raise UsageError('ding plot: these runs mix online runs (against env steps) and offline runs (against '
                         'updates); plot each kind on its own')
    x_label = 'updates' if offline == {True} else 'env steps'
    plt = _pyplot()
    groups: Dict[str, List[Tuple[np.ndarray, np.ndarray]]] = {}
    for run_dir in run_dirs:
        groups.setdefault(group_name(run_dir), []).append(eval_curve(run_dir))
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for name, curves in groups.items():
        steps, mean, low, high = combine(curves)
        label = f'{name} ({len(curves)} seed{"s" if len(curves) > 1 else ""})'
        line, = ax.plot(steps, mean, label=label, linewidth=2)
        if len(curves) > 1:
            ax.fill_between(steps, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel(x_label)
    ax.set_ylabel('evaluation return (mean over episodes)')
    ax.set_title(title or f'evaluation return vs {x_label} (line: mean over seeds, band: min-max)')
    ax.grid(alpha=0.3)
    ax.legend(loc='best')
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    plt.close(fig)
    atomic_write_bytes(output, buf.getvalue())
    return {name: len(curves) for name, curves in groups.items()}


def main(args: argparse.Namespace) -> int:
    output = args.output
    kept = ''
    if output is None:
        output = free_output()
        if output != DEFAULT_OUTPUT:
            kept = f' ({DEFAULT_OUTPUT} exists and is kept; -o {DEFAULT_OUTPUT} overwrites it)'
    groups = plot(args.run_dirs, output, args.title)
    print(f'wrote {output}{kept}: ' + ', '.join(f'{g} ({n} run{"s" if n > 1 else ""})' for g, n in groups.items()))
    return 0
