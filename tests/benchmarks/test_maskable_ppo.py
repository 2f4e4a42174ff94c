"""The pure parts of benchmarks/compare/maskable_ppo.py (ours against sb3-contrib's MaskablePPO):
the shared evaluation counts forbidden actions, the summary and table read the curves, the seed
guard refuses tuning seeds before anything runs, and docs/action_masking.md's marker becomes the
table. No peer framework is needed."""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPARE = ROOT / 'benchmarks' / 'compare'
sys.path += [str(COMPARE), str(ROOT / 'docs' / 'gen')]  # appended: never shadows another test's modules

import maskable_ppo  # noqa: E402
import marked_tables  # noqa: E402
from maskable_ppo_sb3c import EVAL_EPISODES, evaluate, load_env_module  # noqa: E402

ENV = load_env_module()


def test_the_evaluation_counts_forbidden_actions_and_scores_the_target():
    best = evaluate(lambda obs, mask: int(obs.argmax()), seed=1000, env_module=ENV)
    assert best == dict(mean_return=float(ENV.EPISODE_STEPS), invalid_actions=0)
    # always action 0, mask ignored: the episodes where 0 is forbidden end at -10, one count each
    blind = evaluate(lambda obs, mask: 0, seed=1000, env_module=ENV)
    assert 0 < blind['invalid_actions'] <= EVAL_EPISODES and blind['mean_return'] < 0


def run(key, seed, returns, invalid=0):
    curve = [dict(env_step=2048 * i, mean_return=r, invalid_actions=invalid if i == 1 else 0)
             for i, r in enumerate(returns)]
    return dict(key=key, framework=f'{key} framework', version='1.0', torch='2.13.0+cpu', seed=seed, curve=curve,
                wall_s=8.0, cpu_s=4.0, eval_s=0.5, env_steps=curve[-1]['env_step'], n_params=9000,
                invalid_actions_in_training=3, load_avg_1min=[1.0, 2.0])


def small_results():
    return dict(seeds=[1000], max_env_step=6144, solved=9.5, eval_episodes=10, recipe=dict(n_steps=2048),
                network='2 x 64', runs=[run('ours', 1000, [0.5, 9.6, 8.0, 9.0]),
                                        run('sb3c', 1000, [2.0, 5.0, 7.0, 9.0], invalid=2)])


def test_summary_takes_the_first_evaluation_at_the_threshold():
    ours, peer = (maskable_ppo.summarise(r) for r in small_results()['runs'])
    assert (ours['untrained_return'], ours['final_return'], ours['best_return']) == (0.5, 9.0, 9.6)
    assert ours['steps_to_solved'] == 2048 and peer['steps_to_solved'] is None
    assert (peer['eval_invalid_actions'], peer['train_invalid_actions']) == (2, 3)
    assert ours['env_steps_per_s'] == pytest.approx(6144 / 8.0)


def test_table_rows_say_not_reached_rather_than_a_number():
    table = maskable_ppo.markdown(small_results())
    assert '| ours framework | 1000 | 0.50 | 9.00 | 9.60 | 2,048 | 0 / 3 | 8.0 | 4.0 | 768 | 1.0 / 2.0 |' in table
    assert '| sb3c framework | 1000 | 2.00 | 9.00 | 9.00 | not reached in 6,144 | 2 / 3 |' in table
    assert 'n_steps 2048' in table and '2 x 64; parameters: ours framework 9,000, sb3c framework 9,000' in table


def test_tuning_seeds_are_refused_before_anything_runs(monkeypatch, capsys):
    monkeypatch.setattr(maskable_ppo, 'run_ours', lambda *a: pytest.fail('ran a refused seed'))
    assert maskable_ppo.main(['--seeds', '999', '1000', '--frameworks', 'ours']) == 2
    assert 'seed 999' in capsys.readouterr().err


def test_the_page_marker_becomes_the_table(tmp_path):
    results = tmp_path / 'maskable_ppo.json'
    results.write_text(json.dumps(small_results()))
    page = (ROOT / 'docs' / 'action_masking.md').read_text()
    named = 'benchmarks/results/maskable_ppo.json'
    filled = marked_tables.fill('action_masking.md', page, {named: str(results)})
    assert marked_tables.marker(named) not in filled and 'not reached in 6,144' in filled
    with pytest.raises(RuntimeError, match='exactly once'):
        marked_tables.fill('action_masking.md', page.replace(marked_tables.marker(named), ''), {named: str(results)})
