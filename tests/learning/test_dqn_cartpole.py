"""DQN learns CartPole through the spec's off-policy middleware pipeline (seed 0: the newcomer's check of
the whole run directory); its learning on held-out seeds is tests/learning/test_tuned_pairs.py's."""
import json

import pytest

from dizoo.classic_control.cartpole.entry.cartpole_dqn_main import main


def test_dqn_reaches_195_on_cartpole_v0_seed0(tmp_path):
    exp = tmp_path / 'cartpole_dqn_seed0'
    ctx = main(seed=0, config='v0', max_env_step=100_000, exp_name=str(exp))
    assert ctx.last_eval_value >= 195
    assert ctx.env_step <= 100_000
    counters = json.loads((exp / 'final_ctx.json').read_text())
    assert counters['env_step'] == ctx.env_step and counters['last_eval_value'] == ctx.last_eval_value
    assert {'final.pth.tar', 'eval.pth.tar'} <= {p.name for p in (exp / 'ckpt').iterdir()}
    assert (exp / 'config.yaml').exists() and any((exp / 'log').iterdir())


@pytest.mark.slow
def test_dqn_same_seed_same_evaluations(tmp_path):
    first = main(seed=1, config='v0', max_env_step=3000, exp_name=str(tmp_path / 'a'))
    second = main(seed=1, config='v0', max_env_step=3000, exp_name=str(tmp_path / 'b'))
    assert (first.env_step, first.train_iter, first.last_eval_value) == \
        (second.env_step, second.train_iter, second.last_eval_value)
