"""Census: which of DI-engine 0.5.3's 37 `ding/example/*.py` programs run against this package.

Each example is copied into one scratch folder (so `sac.py` leaves the expert `collect_demo_data.py`
loads, and that one the dataset the offline ones read), with only `import gym` / `from gym import` changed to gymnasium (and LunarLander-v2 to -v3), and run as
`python EXAMPLE.py` with a time limit. Status per example:
  finished    exit 0 within the limit
  running     still training at the limit, with no error printed (it starts and learns)
  error       a non-zero exit; the last line of its traceback is recorded

    python benchmarks/di_engine_examples.py [--timeout 90] [--only dqn,ppo]
writes benchmarks/results/di_engine_examples.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# collect_demo_data loads the expert sac.py trains; the offline examples read the data it writes
FIRST = ['sac', 'collect_demo_data']


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


def run_one(name: str, folder: str, timeout: float) -> dict:
    path = os.path.join(folder, f'{name}.py')
    with open(path, 'w') as f:
        f.write(gymnasium_source(name))
    start = time.time()
    proc = subprocess.Popen([sys.executable, path], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        status = 'finished' if proc.returncode == 0 else 'error'
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        status = 'running' if 'Traceback (most recent call last)' not in out else 'error'
    lines = [line for line in out.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r'^\w+(\.\w+)*(Error|Exception|Exit)\b', line)]
    row = {'example': name, 'status': status, 'seconds': round(time.time() - start, 1)}
    if status == 'error':
        row['error'] = (errors[-1] if errors else (lines[-1] if lines else ''))[:300]
    return row


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument('--timeout', type=float, default=90.0)
    p.add_argument('--only', default='')
    p.add_argument('--out', default=os.path.join(ROOT, 'benchmarks', 'results', 'di_engine_examples.json'))
    args = p.parse_args()
    names = example_names()
    if args.only:
        wanted = args.only.split(',')
        names = [n for n in names if n in wanted]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            row = run_one(name, folder, args.timeout)
            rows.append(row)
            print(json.dumps(row), flush=True)
    counts = {s: sum(r['status'] == s for r in rows) for s in ('finished', 'running', 'error')}
    result = {'timeout_s': args.timeout, 'examples': len(rows), 'counts': counts, 'rows': rows}
    from ding.utils.fileio import atomic_write_text
    atomic_write_text(args.out, json.dumps(result, indent=1) + '\n')
    print(counts)


if __name__ == '__main__':
    main()
