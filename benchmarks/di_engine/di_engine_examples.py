"""Census: which of DI-engine 0.5.3's 37 `ding/example/*.py` programs run against this package.

Each example is copied into one scratch folder (so `sac.py` leaves the expert `collect_demo_data.py`
loads, that one the dataset `cql.py` reads, and `dqn.py` the checkpoint `dqn_eval.py` loads), with
only `import gym` / `from gym import` changed to gymnasium (and LunarLander-v2 to -v3), and run as
`python EXAMPLE.py` with a time limit. Status per example:
  finished    exit 0 within the limit
  running     still training at the limit, with no error printed (it starts and learns)
  error       a non-zero exit; the last line of its traceback is recorded
`stop_reached`: the evaluator logged that the config's stop value was reached (the examples
that run one step, dqn_eval and collect_demo_data, have none to reach).

    python benchmarks/di_engine/di_engine_examples.py [--timeout 90] [--only dqn,ppo | --acceptance] [--merge]
        [--dt-dataset PATH] [--log-dir DIR]
writes benchmarks/results/di_engine_examples.json (`--merge`: replaces only the rows run now).
`--acceptance` runs issue 13's 15 examples, plus cql.py after collect_demo_data.py and the
ppo_with_complex_obs variant below. A VARIANTS
name (e.g. `ppo_with_complex_obs@stop_value=1`) runs an example with one stated text change.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
# collect_demo_data loads the expert sac.py trains; the offline examples read the data it writes
FIRST = ['sac', 'collect_demo_data']
ACCEPTANCE = ['sac', 'collect_demo_data', 'cql', 'ddpg', 'dqn', 'dqn_eval', 'dqn_frozen_lake', 'dqn_new_env',
              'dqn_nstep', 'dqn_nstep_gymnasium', 'dqn_per', 'ppo', 'ppo_lunarlander', 'ppo_offpolicy',
              'ppo_with_complex_obs', 'ppo_with_complex_obs@stop_value=1', 'td3']
# name@change: (example, text replaced, replacement). ppo_with_complex_obs's own stop value (195)
# cannot be reached by its env (random rewards in [0, 1), 30% chance to end each step): with a
# reachable one it shows that the same program ends at its stop value.
_EDAC_CFG = '    cfg = compile_config(main_config, create_cfg=create_config, auto=True)'
VARIANTS = {
    'ppo_with_complex_obs@stop_value=1': ('ppo_with_complex_obs', 'stop_value=195,', 'stop_value=1,'),
    # edac.py with more critics than its config's ten (the EDAC paper's range is 10 to 50)
    **{f'edac@ensemble_num={n}': ('edac', _EDAC_CFG, f'    main_config.policy.model.ensemble_num = {n}\n{_EDAC_CFG}')
       for n in (20, 50)},
    # edac.py with each update run eagerly (its config replays them as CUDA graphs on a GPU)
    'edac@cuda_graph=False': ('edac', _EDAC_CFG, f'    main_config.policy.learn.cuda_graph = False\n{_EDAC_CFG}'),
}
STOP_REACHED = re.compile(r'stop_value \S+ reached')
EVALUATION = re.compile(r'evaluation: env_step=(\d+) train_iter=(\d+) return mean=(\S+)')
# Runs that cannot end (their stop value is out of reach): enough time to show they train and evaluate.
TIME_CAP = {'ppo_with_complex_obs': 150.0}
THREADS = 1
# dt.py reads its dataset at a path relative to the working folder (lunarlander_dt_config.DATA_PATH):
# `--dt-dataset` (made by `python -m dizoo.box2d.lunarlander.entry.lunarlander_dt_make_dataset`) is
# linked there. bcq.py and edac.py read ~/.d4rl/datasets (dizoo.d4rl.entry.d4rl_make_dataset).


def example_names() -> list:
    import zipfile
    from tests.di_engine_wheel import wheel_path
    with zipfile.ZipFile(wheel_path()) as z:
        names = [n for n in z.namelist() if re.fullmatch(r'ding/example/[a-z0-9_]+\.py', n)]
    names = sorted(os.path.basename(n)[:-3] for n in names if not n.endswith('__init__.py'))
    return FIRST + [n for n in names if n not in FIRST]


def gymnasium_source(name: str) -> str:
    from tests.di_engine_wheel import di_engine_file
    text = di_engine_file(f'ding/example/{name}.py')
    text = re.sub(r'^import gym$', 'import gymnasium as gym', text, flags=re.M)
    text = re.sub(r'^from gym(\.\w+)* import', lambda m: m.group(0).replace('gym', 'gymnasium', 1), text, flags=re.M)
    return text.replace('LunarLander-v2', 'LunarLander-v3')  # v2 is gone from gymnasium 1.x


def example_source(name: str) -> str:
    if name not in VARIANTS:
        return gymnasium_source(name)
    example, old, new = VARIANTS[name]
    text = gymnasium_source(example)
    if text.count(old) != 1:
        raise ValueError(f'variant {name}: {old!r} is not in {example}.py exactly once')
    return text.replace(old, new)


def run_one(name: str, folder: str, timeout: float, log_dir: str = '') -> dict:
    path = os.path.join(folder, f'{name.replace("@", "_").replace("=", "_")}.py')
    with open(path, 'w') as f:
        f.write(example_source(name))
    start = time.time()
    # One torch thread, as the tests run: on a shared machine torch's thread pool makes these tiny
    # updates many times slower. The example's source is untouched.
    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS))
    log_path = os.path.join(log_dir or folder, f'{os.path.basename(path)[:-3]}.log')  # followable while it runs
    with open(log_path, 'w') as log:
        proc = subprocess.Popen([sys.executable, path], cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=env)
        try:
            proc.wait(timeout=timeout)
            status = 'finished' if proc.returncode == 0 else 'error'
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            status = None
    with open(log_path) as log:
        out = log.read()
    if status is None:
        status = 'running' if 'Traceback (most recent call last)' not in out else 'error'
    lines = [line for line in out.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r'^\w+(\.\w+)*(Error|Exception|Exit)\b', line)]
    row = {'example': name, 'status': status, 'seconds': round(time.time() - start, 1), 'timeout_s': timeout,
           'stop_reached': bool(STOP_REACHED.search(out))}
    evals = [(int(a), int(b), float(c)) for a, b, c in EVALUATION.findall(out)]
    if evals:
        row['evaluations'] = len(evals)
        row['last_eval'] = {'env_step': evals[-1][0], 'train_iter': evals[-1][1], 'return_mean': evals[-1][2]}
        row['best_eval_return_mean'] = max(e[2] for e in evals)
        row['eval_curve'] = [[it, ret] for _, it, ret in evals]  # [train_iter, return mean]
    if status == 'error':
        row['error'] = (errors[-1] if errors else (lines[-1] if lines else ''))[:300]
    return row


def link_dt_dataset(path: str, folder: str) -> None:
    from dizoo.box2d.lunarlander.config.lunarlander_dt_config import DATA_PATH
    if not os.path.isfile(path):
        raise SystemExit(f'dt.py needs --dt-dataset (got {path!r}): make it with '
                         'python -m dizoo.box2d.lunarlander.entry.lunarlander_dt_make_dataset --out PATH')
    target = os.path.join(folder, DATA_PATH)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    os.symlink(os.path.abspath(path), target)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--timeout', type=float, default=90.0)
    p.add_argument('--only', default='')
    p.add_argument('--acceptance', action='store_true')
    p.add_argument('--merge', action='store_true')
    p.add_argument('--note', default='')
    p.add_argument('--log-dir', default='', help="keep each example's output there as NAME.log")
    p.add_argument('--dt-dataset', default='', help="dt.py's LunarLander episodes (a DI-engine-layout pickle)")
    p.add_argument('--out', default=os.path.join(ROOT, 'benchmarks', 'results', 'di_engine_examples.json'))
    args = p.parse_args()
    names = example_names() + list(VARIANTS)
    if args.acceptance or args.only:
        wanted = ACCEPTANCE if args.acceptance else args.only.split(',')
        names = [n for n in names if n in wanted]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        if 'dt' in names:
            link_dt_dataset(args.dt_dataset, folder)
        for name in names:
            row = run_one(name, folder, min(args.timeout, TIME_CAP.get(name, args.timeout)), args.log_dir)
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.merge and os.path.isfile(args.out):
        with open(args.out) as f:
            kept = [r for r in json.load(f)['rows'] if r['example'] not in {r['example'] for r in rows}]
        rows = sorted(kept + rows, key=lambda r: r['example'])
    counts = {s: sum(r['status'] == s for r in rows) for s in ('finished', 'running', 'error')}
    result = {'note': args.note, 'omp_num_threads': THREADS, 'examples': len(rows), 'counts': counts, 'rows': rows}
    from ding.utils.fileio import atomic_write_text
    atomic_write_text(args.out, json.dumps(result, indent=1) + '\n')
    print(counts)


if __name__ == '__main__':
    main()
