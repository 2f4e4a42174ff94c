"""PPO to 475 on CartPole-v1 through the on-policy middleware pipeline (seed 0: the newcomer's check);
PPO, A2C, PG and continuous PPO on held-out seeds are tests/learning/test_tuned_pairs.py's."""
from dizoo.classic_control.cartpole.entry.cartpole_ppo_main import main as ppo_main


def test_ppo_reaches_475_on_cartpole_v1_seed0(tmp_path):
    ctx = ppo_main(seed=0, max_env_step=60_000, exp_name=str(tmp_path / 'ppo'))
    assert ctx.last_eval_value >= 475
    assert ctx.env_step <= 60_000
    assert {'final.pth.tar', 'eval.pth.tar'} <= {p.name for p in (tmp_path / 'ppo' / 'ckpt').iterdir()}
