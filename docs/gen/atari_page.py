"""The "Atari at real cost" page, generated from `benchmarks/results/atari_split*.json`
(benchmarks/throughput/atari_split.py): the guide's text here, every figure from the JSON."""
import glob
import json
import os
from typing import Any, Dict, List

from docgen_common import ROOT
from performance_tables import _load_benchmark_module

INTRO = """# Atari at real cost: where the time goes, and when async and Ray pay

Pong (`PongNoFrameskip-v4`, DeepMind's wrappers), a Nature CNN and uint8 frame-once replay: an
env that burns CPU, a network that costs real time to update. Nothing sleeps. The tables below
come from `benchmarks/results/atari_split*.json`; regenerate them with

    python benchmarks/throughput/atari_split.py --part split runs --workload dqn_balanced impala

(one sitting on this machine; `benchmarks/gpu/gpu_atari_split.sh` runs the GPU sittings).

## Reading the split

Each role is first timed alone, in one process with one torch thread, per env step:

- **env step**: the ALE and the wrappers, 8 envs stepped in turn;
- **acting forward**: the Nature CNN on a batch of 8 observations;
- **learner**: one update (sampling included) times the updates per env step;
- **object-store hop**: a collected batch put by one process and read by another (Ray).

From these, a simple model predicts env steps/s: sync pays collection and training one after
the other; async pays the slower of the two, as long as both fit in the cores; N Ray collectors
pay N times the collection rate, bounded by the learner and by the cores. The "predicted"
column checks the model against the measured run of the same sitting.

## What it means for you

- **Async pays when collection and training cost about the same.** At the standard DQN replay
  ratio (one update of 32 per 4 env steps) a CPU learner costs many times what collecting does:
  nothing is left to overlap, and async cannot help. With the learner on a GPU, or with fewer
  updates per env step, the two sides come close and `async_mode=True` overlaps them.
- **A learner that trains now and then needs a longer lag.** `max_lag` counts steps: IMPALA
  trains on every 4th step here, so with `max_lag=1` the collector waits out most of each update.
  `atari_split_impala.json` runs async at lags 1 to 8 beside sync. Collecting one update's
  windows per step (`impala_batch`, `collect.n_sample` = `learn.batch_size`) lets the default lag
  overlap a whole update with a whole collection.
- **Ray collectors pay when the learner and collection each cost about a core.** The learner
  process trains while the collector processes step and act, with no GIL between them; sync
  does one after the other. On two cores IMPALA's learner and 2 collectors beat one process
  (`atari_split_uint8.json`); more collectors than cores add nothing.
- **Keep frames as bytes.** With `env.scale=False` the Atari env hands out its uint8 pixels and
  the models' conv encoder divides them by 255: the network sees exactly the floats DI-engine's
  `ScaledFloatFrameWrapper` would have made (a test trains the same weights bit for bit), while
  env workers, the replay and Ray's object store move a quarter of the bytes. Runs ending in
  `_uint8` (splits marked "(uint8 frames)") measure it beside float frames, on 2 CPU cores in
  `atari_split_uint8.json` and with an H200 learner in `atari_split_h200_cuda_*`. An exported
  policy still takes float32 frames in [0, 1].
- **Every run keeps the same updates per env step**: `updates per env step` in the tables is
  measured, not configured, so a faster run did not buy its speed by training less.
"""


LEARNING = """## Learning on this CPU

A game trained end to end through `ding train` on the 2-core machine, its greedy evaluation
against random play (Mnih et al. 2015's random-play score). Regenerate a row with the command
under its table; a run that spans sittings is resumed by the same command."""


def learning_section() -> List[str]:
    """One table per `benchmarks/results/atari_cpu_*.json` (benchmarks/learning/atari_cpu.py)."""
    lines = ['', LEARNING]
    for path in sorted(glob.glob(os.path.join(ROOT, 'benchmarks', 'results', 'atari_cpu_*.json'))):
        with open(path) as f:
            run: Dict[str, Any] = json.load(f)
        name = os.path.basename(path)
        status = (f"{run['env_steps']:,} env steps = {run['frames']:,} frames in {run['seconds'] / 3600:.2f} h"
                  + ('' if run['finished'] else f", stopped short of {run['max_env_step']:,}"))
        lines += ['', f"### {run['env_id']}, {run['algo'].upper()}, seed {run['seed']}: {status}", '',
                  f"`{run['config']}`, {run['torch_threads']} torch threads, {run['env_steps_per_s']:,} env steps/s "
                  f"over the run; random play {run['random_play']}. `benchmarks/results/{name}`:", '',
                  '| env steps | frames | hours | greedy return (mean +- std) |', '|---|---|---|---|']
        lines += [f"| {e['env_step']:,} | {e['frames']:,} | {e['seconds'] / 3600:.2f} | "
                  f"{e['eval_mean']:.1f} +- {e['eval_std']:.1f} ({e['episodes']} episodes) |" for e in run['evals']]
        lines += ['', f"Best {run['best']['eval_mean']:.1f} at {run['best']['env_step']:,} env steps. "
                  + (run['note'] + ' ' if run['note'] else '') + f"Command: `{run['command']}`"]
    return lines if len(lines) > 2 else []


def render() -> str:
    split = _load_benchmark_module(os.path.join(ROOT, 'benchmarks', 'throughput', 'atari_split.py'),
                                   'benchmarks_atari_split')
    lines = [INTRO] + learning_section()
    for path in sorted(glob.glob(os.path.join(ROOT, 'benchmarks', 'results', 'atari_split*.json'))):
        with open(path) as f:
            data: Dict[str, Any] = json.load(f)
        name = os.path.splitext(os.path.basename(path))[0]
        lines += ['', f'## {_title(data)}', '', f'`benchmarks/results/{name}.json`', '', split.markdown(data)]
    return '\n'.join(lines) + '\n'


def _title(data: Dict[str, Any]) -> str:
    learner = 'learner on the GPU' if data['cuda'] else 'all on the CPU'
    return f"{data['cores']} cores, {learner}: {data.get('host', 'machine not recorded')}"
