"""SAC (default run), TD3 and DDPG (slow) solve Pendulum-v1 (eval mean >= -250) within 20k env
steps through the spec's continuous-control pipeline."""
import pytest

from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import first_reaching, train


def solve(algo: str, seed: int, tmp_path) -> dict:
    history = train(algo, seed=seed, max_env_step=20000, exp_name=str(tmp_path / f'{algo}_{seed}'), save_cfg=False)
    reached = first_reaching(history, -250)
    assert reached is not None, f'{algo} seed {seed} never reached -250: {history}'
    assert reached['env_step'] <= 20000
    return reached


@pytest.mark.slow  # kept out of `make test` (under 2 min); CI runs it with the learning tests
def test_sac_solves_pendulum(tmp_path):
    reached = solve('sac', 0, tmp_path)
    assert reached['train_iter'] > 0


@pytest.mark.slow
@pytest.mark.parametrize('algo', ['sac', 'td3', 'ddpg'])
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_solves_pendulum_every_seed(algo, seed, tmp_path):
    solve(algo, seed, tmp_path)
