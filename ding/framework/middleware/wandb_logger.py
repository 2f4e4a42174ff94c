"""Weights & Biases loggers: `wandb_online_logger` (against env steps) and
`wandb_offline_logger` (against train iterations). `pip install "ding[wandb]"`; wandb is
imported when a logger is built, never with the package.

What goes to the run:
- the config: `exp_config` (the compiled config) as the run's config;
- metrics: each key of `metric_list` found in `ctx.train_output` (mean over a step's updates),
  while `cfg.plot_logger`; at each evaluation `episode return mean/min/max/std`, `train iter`
  and `env step` (online) or `train_epoch` (offline), and `ctx.info_for_logging` when a pipeline
  sets it;
- evaluation videos (`cfg.video_logger`): `ctx.eval_output['replay_video']` (uint8 frames
  [T, H, W, C] or [N, T, H, W, C], or channels first as `interaction_evaluator(render=True)`
  writes them), written as an MP4 under `record_path`, or else the newest video file (.mp4,
  .gif) that appeared under `record_path` since the last evaluation;
- actions (`cfg.action_logger`): at each evaluation, for each replayed episode i (worst, median(s),
  best: `ctx.eval_output['output']`, which `interaction_evaluator(render=True)` writes) a line
  chart `actions_of_trajectory_<i>` of each action dimension over the steps, and `action`, a
  histogram of all their actions;
- returns (`cfg.return_logger`): at each evaluation, `return distribution`, a histogram of the
  evaluated episodes' returns;
- gradients (`cfg.gradient_logger`): `wandb.watch(model)`;
- the model: its `state_dict` saved as `<run dir>/files/model.pth.tar` when the task finishes.

Offline mode (`WANDB_MODE=offline`) needs no network: everything lands in the run's local files.
"""
import math
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ding.framework.contract import contract
from ding.framework.middleware import _common
from ding.framework.middleware.logger import mean_scalars

# the switches (the loggers' `cfg` argument); each defaults to False but plot_logger (True).
SWITCHES = ('gradient_logger', 'plot_logger', 'video_logger', 'action_logger', 'return_logger', 'vis_dataset')
DEFAULT_METRICS = ('q_value', 'target q_value', 'loss', 'lr', 'entropy', 'target_q_value', 'td_error')
VIDEO_SUFFIXES = ('.mp4', '.gif')
MODEL_FILE = 'model.pth.tar'


def _switches(cfg: Optional[Dict[str, Any]]) -> Dict[str, bool]:
    """The switches of `cfg`, with their defaults; an unknown key or one we cannot honour is an error."""
    given = dict(cfg or {})
    unknown = sorted(set(given) - set(SWITCHES))
    if unknown:
        raise KeyError(f'wandb logger: unknown cfg keys {unknown}; valid: {list(SWITCHES)}')
    # without cfg only plot_logger is on; a given cfg turns off every switch it does not name
    switches = {key: bool(given.get(key, key == 'plot_logger' and cfg is None)) for key in SWITCHES}
    # vis_dataset (a t-SNE plot of the dataset) is not implemented here.
    if switches['vis_dataset']:
        raise NotImplementedError('wandb logger: vis_dataset is not supported; supported switches: '
                                  'gradient_logger, plot_logger, video_logger, action_logger, return_logger')
    return switches


def _plain(value: Any) -> Any:
    """EasyDict and nested mappings as plain dicts, which wandb's config stores as given."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _import_wandb() -> Any:
    try:
        import wandb
    except ImportError as err:
        raise ImportError('the wandb loggers need wandb: pip install wandb (or pip install "ding[wandb]")') from err
    return wandb


def _start_run(wandb: Any, exp_config: Any, project_name: str, run_name: Optional[str], anonymous: bool,
               wandb_sweep: bool) -> Any:
    kwargs = dict(project=project_name, name=run_name, config=_plain(exp_config) if exp_config else None)
    if anonymous:
        kwargs['anonymous'] = 'must'
    if not wandb_sweep:  # a sweep agent owns the run; otherwise each logger starts its own
        kwargs['reinit'] = 'finish_previous'
    return wandb.init(**kwargs)


def _train_metrics(train_output: Any, metric_list: Sequence[str]) -> Dict[str, float]:
    return {k: v for k, v in mean_scalars(train_output).items() if k in metric_list}


def _eval_metrics(ctx: Any, axis: Dict[str, Any]) -> Dict[str, Any]:
    returns = np.asarray((getattr(ctx, 'eval_output', None) or {}).get('episode_return', []), dtype=np.float64)
    out = {'episode return mean': ctx.eval_value}
    if returns.size:
        out.update({'episode return min': float(returns.min()), 'episode return max': float(returns.max()),
                    'episode return std': float(returns.std())})
    out.update(axis)
    out.update(getattr(ctx, 'info_for_logging', None) or {})
    return out


CHANNELS = (1, 3, 4)


class _Videos:
    """The evaluation video of a step: the evaluator's frames, else a new file under record_path."""

    def __init__(self, wandb: Any, record_path: Optional[str]) -> None:
        if record_path is None:
            raise ValueError('wandb logger: video_logger needs record_path (where evaluation videos are written)')
        os.makedirs(record_path, exist_ok=True)
        self._wandb, self._dir = wandb, record_path
        self._seen = set(self._files())

    def _files(self) -> List[str]:
        return [os.path.join(self._dir, n) for n in os.listdir(self._dir) if n.lower().endswith(VIDEO_SUFFIXES)]

    def of_step(self, ctx: Any, step: int) -> Optional[Any]:
        frames = (getattr(ctx, 'eval_output', None) or {}).get('replay_video')
        if frames is not None:
            path = self._write(np.asarray(frames), step)
        else:
            new = [p for p in self._files() if p not in self._seen]
            if not new:
                return None
            path = max(new, key=os.path.getmtime)
        self._seen.add(path)
        return self._wandb.Video(path, format=os.path.splitext(path)[1][1:])

    def _write(self, frames: np.ndarray, step: int) -> str:
        from ding.entry.evaluate import write_video  # atomic, imageio-ffmpeg (`ding[video]`)
        if frames.ndim == 5:  # several episodes: one after the other
            frames = frames.reshape(-1, *frames.shape[2:])
        if frames.ndim != 4:
            raise ValueError(f'wandb logger: replay_video must be [T, H, W, C] or [N, T, H, W, C] (or channels '
                             f'first, as interaction_evaluator writes it), got {frames.shape}')
        if frames.shape[-1] not in CHANNELS and frames.shape[1] in CHANNELS:  # [T, C, H, W] -> [T, H, W, C]
            frames = frames.transpose(0, 2, 3, 1)
        path = os.path.join(self._dir, f'eval_{step}.mp4')
        write_video(list(frames.astype(np.uint8)), path, fps=30)
        return path


def _action_charts(wandb: Any, eval_output: Dict[str, Any]) -> Dict[str, Any]:
    """`actions_of_trajectory_<i>` line charts and an `action` histogram of the replayed episodes."""
    if 'output' not in eval_output:
        raise ValueError("wandb logger: action_logger needs the evaluated episodes' actions "
                         "(eval_output['output']); build the evaluator with interaction_evaluator(..., render=True)")
    charts, every_action = {}, []
    for i, episode in enumerate(eval_output['output']):
        actions = np.asarray([np.asarray(step['action'], dtype=np.float64).reshape(-1) for step in episode])
        if not len(actions):
            continue
        every_action.append(actions.reshape(-1))
        charts[f'actions_of_trajectory_{i}'] = wandb.plot.line_series(
            xs=list(range(1, len(actions) + 1)), ys=actions.T.tolist(),
            keys=[f'action[{j}]' for j in range(actions.shape[1])], title=f'actions of trajectory {i}', xname='step')
    if every_action:
        charts['action'] = wandb.Histogram(np.concatenate(every_action))
    return charts


def _save_model(wandb: Any, run: Any, model: Any) -> None:
    from ding.utils.fileio import atomic_torch_save
    path = os.path.join(run.dir, MODEL_FILE)
    atomic_torch_save(model.state_dict(), path)
    wandb.save(path, base_path=run.dir, policy='now')


def _wandb_logger(kind: str, record_path: Optional[str], cfg: Any, exp_config: Any, metric_list: Any, env: Any,
                  model: Any, anonymous: bool, project_name: str, run_name: Optional[str], wandb_sweep: bool) -> Any:
    switches = _switches(cfg)
    if switches['gradient_logger'] and model is None:
        raise ValueError('wandb logger: gradient_logger needs model')
    del env  # not used: videos come from the evaluator's frames, not from the env manager
    wandb = _import_wandb()
    metrics = tuple(DEFAULT_METRICS if metric_list is None else metric_list)
    run = _start_run(wandb, exp_config, project_name, run_name, anonymous, wandb_sweep)
    if switches['gradient_logger']:
        wandb.watch(model, log='all', log_freq=100)
    videos = _Videos(wandb, record_path) if switches['video_logger'] else None
    online = kind == 'online'

    url = run.url or ''  # None in offline mode

    def _log(ctx: Any):
        ctx.wandb_url = url
        step = ctx.env_step if online else ctx.train_iter
        info = _train_metrics(ctx.train_output, metrics) if switches['plot_logger'] and ctx.train_output else {}
        if math.isfinite(ctx.eval_value):
            axis = {'train iter': ctx.train_iter}
            axis.update({'env step': ctx.env_step} if online else {'train_epoch': getattr(ctx, 'train_epoch', 0)})
            info.update(_eval_metrics(ctx, axis))
            video = videos.of_step(ctx, step) if videos is not None else None
            if video is not None:
                info['replay_video'] = video
            eval_output = getattr(ctx, 'eval_output', None) or {}
            if switches['action_logger']:
                info.update(_action_charts(wandb, eval_output))
            if switches['return_logger'] and len(eval_output.get('episode_return', [])):
                info['return distribution'] = wandb.Histogram(np.asarray(eval_output['episode_return'],
                                                                         dtype=np.float64).reshape(-1))
        if info:
            wandb.log(info, step=int(step))
        yield
        if _common.current_task().finish:  # the run ends after this step: the model goes with it
            if model is not None:
                _save_model(wandb, run, model)
            run.finish()

    reads = ('env_step', ) if online else ('train_epoch', )
    return contract(_log, reads=reads + ('train_iter', 'eval_value', 'eval_output', 'train_output'),
                    writes=('wandb_url', ), name=f'wandb_{kind}_logger')


@_common.gated('learner')
def wandb_online_logger(record_path: str = None, cfg: Any = None, exp_config: Any = None, metric_list: Any = None,
                        env: Any = None, model: Any = None, anonymous: bool = False,
                        project_name: str = 'default-project', run_name: str = None, wandb_sweep: bool = False) -> Any:
    """Training metrics, evaluations, evaluation videos and the model to a wandb run, against env
    steps. `cfg` holds the switches (`plot_logger`, `video_logger`,
    `gradient_logger`, `action_logger`, `return_logger`), `exp_config` becomes the run's config, `metric_list` names the
    train_output keys to log, `record_path` is where evaluation videos are found or written.
    `env` is accepted for callers that pass it and not used."""
    return _wandb_logger('online', record_path, cfg, exp_config, metric_list, env, model, anonymous, project_name,
                         run_name, wandb_sweep)


@_common.gated('learner')
def wandb_offline_logger(record_path: str = None, cfg: Any = None, exp_config: Any = None, metric_list: Any = None,
                         env: Any = None, model: Any = None, anonymous: bool = False,
                         project_name: str = 'default-project', run_name: str = None,
                         wandb_sweep: bool = False) -> Any:
    """`wandb_online_logger` for offline RL: against train iterations, `train_epoch` at each evaluation."""
    return _wandb_logger('offline', record_path, cfg, exp_config, metric_list, env, model, anonymous, project_name,
                         run_name, wandb_sweep)
