"""On-policy learning through the middleware pipelines: PPO to 475 on CartPole-v1 (CI),
A2C and PG to 195, PPO on every seed, continuous PPO on Pendulum and PPO from a buffer."""
import pytest

from dizoo.classic_control.cartpole.entry.cartpole_ppo_main import main as ppo_main


def test_ppo_reaches_475_on_cartpole_v1_seed0(tmp_path):
    ctx = ppo_main(seed=0, max_env_step=60_000, exp_name=str(tmp_path / 'ppo'))
    assert ctx.last_eval_value >= 475
    assert ctx.env_step <= 60_000
    assert {'final.pth.tar', 'eval.pth.tar'} <= {p.name for p in (tmp_path / 'ppo' / 'ckpt').iterdir()}


@pytest.mark.slow
@pytest.mark.parametrize('seed', [1, 2])
def test_ppo_reaches_475_on_cartpole_v1_other_seeds(tmp_path, seed):
    ctx = ppo_main(seed=seed, max_env_step=200_000, exp_name=str(tmp_path / 'ppo'))
    assert ctx.last_eval_value >= 475 and ctx.env_step <= 200_000


@pytest.mark.slow
@pytest.mark.parametrize('algo', ['a2c', 'pg'])
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_a2c_and_pg_reach_195_on_cartpole_v1(tmp_path, algo, seed):
    module = __import__(f'dizoo.classic_control.cartpole.entry.cartpole_{algo}_main', fromlist=['main'])
    ctx = module.main(seed=seed, max_env_step=200_000, exp_name=str(tmp_path / algo))
    assert ctx.last_eval_value >= 195 and ctx.env_step <= 200_000


@pytest.mark.slow
def test_continuous_ppo_reaches_minus_250_on_pendulum(tmp_path):
    from dizoo.classic_control.pendulum.entry.pendulum_ppo_main import main
    ctx = main(seed=0, max_env_step=300_000, exp_name=str(tmp_path / 'pendulum'))
    assert ctx.last_eval_value >= -250 and ctx.env_step <= 300_000
