"""C51, QR-DQN, IQN, Rainbow and FQF learn CartPole-v0 through `ding train`'s pipeline (the tuned
configs in ding/config/tuned/, StepCollector -> nstep_reward_enhancer -> data_pusher ->
OffPolicyLearner; Rainbow's buffer is prioritized). Seed 0 of each runs by default, seeds 1
and 2 are slow."""
import pytest

from ding.entry.pipeline import RunOptions
from ding.entry.train import resolve_config, start_run

ALGOS = ['c51', 'qrdqn', 'iqn', 'rainbow', 'fqf']
MAX_ENV_STEP = 20_000  # the tuned configs reach 195 within ~3.5k env steps on seeds 0-2


def _train(algo: str, seed: int, run_dir: str):
    main, create, info = resolve_config(algo, 'CartPole-v0', None)
    options = RunOptions(max_env_step=MAX_ENV_STEP, progress=False, checkpoint_freq=10 ** 9)
    return start_run(main, create, info, seed, options, exp_name=run_dir)


# Rainbow (the family's full combination) runs in `make test`; the others with the learning tests.
@pytest.mark.parametrize('algo', [a if a == 'rainbow' else pytest.param(a, marks=pytest.mark.slow) for a in ALGOS])
def test_reaches_195_on_cartpole_v0_seed0(tmp_path, algo):
    cfg, ctx = _train(algo, 0, str(tmp_path / algo))
    assert cfg.policy.type == algo
    assert ctx.last_eval_value >= 195 and ctx.env_step <= MAX_ENV_STEP


@pytest.mark.slow
@pytest.mark.parametrize('seed', [1, 2])
@pytest.mark.parametrize('algo', ALGOS)
def test_reaches_195_on_cartpole_v0_other_seeds(tmp_path, algo, seed):
    _, ctx = _train(algo, seed, str(tmp_path / f'{algo}_seed{seed}'))
    assert ctx.last_eval_value >= 195 and ctx.env_step <= MAX_ENV_STEP
