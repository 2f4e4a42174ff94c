"""The Atari page's "Learning on this CPU" tables come from benchmarks/results/atari_cpu_*.json
(benchmarks/learning/atari_cpu.py): every evaluation of every run, its best, and the command."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / 'docs' / 'gen'))

import atari_page  # noqa: E402


def test_every_cpu_run_is_rendered_with_each_evaluation():
    runs = sorted((ROOT / 'benchmarks' / 'results').glob('atari_cpu_*.json'))
    assert runs, 'benchmarks/results/atari_cpu_*.json: the Pong run on this CPU is published'
    page = '\n'.join(atari_page.learning_section())
    for path in runs:
        run = json.loads(path.read_text())
        assert f'`benchmarks/results/{path.name}`' in page and run['command'] in page
        assert f"Best {run['best']['eval_mean']:.1f} at {run['best']['env_step']:,} env steps" in page
        for e in run['evals']:
            assert f"| {e['env_step']:,} | {e['frames']:,} | " in page
            assert f"{e['eval_mean']:.1f} +- {e['eval_std']:.1f}" in page
