"""`ding train`'s off-policy buffer is prioritized exactly when the policy returns priorities
(`policy.priority`), with importance weights when it asks for them (`priority_IS_weight`)."""
import pytest

from ding.config import compile_config
from ding.data import PriorityExperienceReplay
from ding.entry.pipeline import build_parts
from ding.entry.train import resolve_config


@pytest.mark.parametrize('algo, per, is_weight', [('dqn', False, None), ('c51', True, False),
                                                  ('rainbow', True, True)])
def test_buffer_is_prioritized_when_the_policy_returns_priorities(tmp_path, algo, per, is_weight):
    main, create, _ = resolve_config(algo, 'CartPole-v0', None)
    main.exp_name = str(tmp_path / algo)
    cfg = compile_config(main, create_cfg=create, auto=True, seed=0, save_cfg=False)
    parts = build_parts(cfg)
    try:
        found = [m for m in parts.buffer.middleware if isinstance(m, PriorityExperienceReplay)]
        assert bool(found) == per
        if per:
            assert found[0].IS_weight is is_weight and found[0].alpha == 0.6
    finally:
        parts.close()
