"""`ding export RUN_DIR --format torchscript|onnx [--ckpt eval|final] [-o OUT] [--outputs action,logit]`:
the run's greedy actor as a file that runs without ding (see `ding.policy.export`).

The policy is rebuilt the way `ding eval` does it (the run's config, then the checkpoint's
weights); RUN_DIR may also be a checkpoint file inside a run's ckpt/. The default output is
`RUN_DIR/export/actor_<ckpt>.pt` (TorchScript) or `.onnx`. A checkpoint that carries
observation-normalisation statistics (`env_normalizer`, written by `CkptSaver(..., normalizer=...)`)
has them exported in front of the model, so the file takes raw observations.
"""
import argparse
import os
from typing import Any, Dict, Optional, Sequence

from ding.entry.arguments import UsageError
from ding.entry.evaluate import load_policy, run_config
from ding.utils.run_dir import RunDir, policy_checkpoint, run_dir_of

# = ding.policy.export.EXPORT_FORMATS (a test checks); importing that would load every policy for `--help`
FORMATS = ('torchscript', 'onnx')
CKPT_NAMES = ('eval', 'final')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('path', help='a run directory or a checkpoint file inside one (ckpt/*.pth.tar)')
    parser.add_argument('--format', required=True, choices=FORMATS, help='file format of the exported actor')
    parser.add_argument('--ckpt', choices=CKPT_NAMES, default=None,
                        help='which checkpoint of the run (default: eval, else final, else the newest iteration)')
    parser.add_argument('-o', '--output', default=None, metavar='OUT',
                        help='file to write (default: RUN_DIR/export/actor_<ckpt>.pt|.onnx)')
    parser.add_argument('--outputs', default='action', metavar='NAMES',
                        help='comma-separated outputs of the eval forward to export, e.g. action,logit')


def checkpoint_of(path: str, ckpt: Optional[str]) -> str:
    """The checkpoint file to export: `path` itself when it is one, else the run's `ckpt`."""
    if ckpt is None:
        return policy_checkpoint(path)
    if os.path.isfile(path):
        raise UsageError(f'--ckpt {ckpt} names a checkpoint of a run directory, but {path} is already a file')
    chosen = RunDir(path).path('ckpt', f'{ckpt}.pth.tar')
    if not os.path.isfile(chosen):
        ckpt_dir = RunDir(path).ckpt_dir
        found = sorted(os.listdir(ckpt_dir)) if os.path.isdir(ckpt_dir) else 'no ckpt/ directory'
        raise FileNotFoundError(f'no {ckpt} checkpoint in {path} ({chosen} is missing); found: {found}')
    return chosen


def default_output(run_dir: str, ckpt_path: str, format: str) -> str:
    from ding.policy.export import FILE_SUFFIX
    stem = os.path.basename(ckpt_path).split('.')[0]
    return RunDir(run_dir).path('export', f'actor_{stem}{FILE_SUFFIX[format]}')


def export_run(path: str, format: str, ckpt: Optional[str] = None, output: Optional[str] = None,
               outputs: Sequence[str] = ('action', )) -> Dict[str, Any]:
    """Export a run's actor; returns the file's metadata with `path` and `checkpoint` added."""
    if not os.path.exists(path):
        raise FileNotFoundError(f'{path} does not exist: expected a run directory or a checkpoint inside one')
    run_dir = run_dir_of(path)
    if run_dir is None:
        raise FileNotFoundError(f'{path} is not a run directory or a checkpoint inside one')
    ckpt_path = checkpoint_of(path, ckpt)
    cfg = run_config(run_dir)
    cfg.policy.cuda = False  # a file for deployment: traced on CPU, it runs anywhere
    policy = load_policy(cfg, ckpt_path)
    target = output or default_output(run_dir, ckpt_path, format)
    from ding.policy.export import ExportError, export_policy
    try:
        meta = export_policy(policy, target, format, outputs=outputs, obs_module=obs_normalizer_of(ckpt_path))
    except ExportError as err:
        raise UsageError(str(err)) from err
    return dict(meta, path=target, checkpoint=ckpt_path)


def obs_normalizer_of(ckpt_path: str) -> Optional[Any]:
    """The observation normaliser a checkpoint carries (NormalizedEnvManager's statistics), as a
    torch module; None when it carries none."""
    from ding.utils.checkpoint_io import load_checkpoint
    state = load_checkpoint(ckpt_path)
    stats = state.get('env_normalizer') if isinstance(state, dict) else None
    if not stats or stats.get('obs') is None:
        return None
    from ding.envs.env_wrappers.running_stats import RunningMeanStd
    obs = RunningMeanStd(shape=tuple(stats['obs']['shape']))
    obs.load_state_dict(stats['obs'])
    return obs.as_module(stats.get('clip_range'))


def main(args: argparse.Namespace) -> int:
    outputs = [name.strip() for name in args.outputs.split(',') if name.strip()]
    meta = export_run(args.path, args.format, args.ckpt, args.output, outputs)
    shape = 'x'.join(str(d) for d in meta['obs_shape'])
    print(f'exported {meta["policy"]} [{os.path.relpath(meta["checkpoint"])}] as {args.format}: {meta["path"]}')
    inputs = f'obs float32 [B, {shape}]' + (' (raw: normalised inside)' if meta['obs_normalization'] else '')
    if 'state_shape' in meta:
        inputs += ', state float32 [B, ' + 'x'.join(str(d) for d in meta['state_shape']) + ']'
    print(f'  input {inputs} -> ' + ', '.join(f'{k} {meta["output_dtypes"][k]}' for k in meta['outputs'])
          + f'; max |diff| vs eval forward {meta["parity_max_abs_diff"]:.2g}')
    return 0
