"""C51, QR-DQN, IQN, Rainbow and FQF learn CartPole-v0 through `ding train`'s pipeline (the tuned
configs in ding/config/tuned/, StepCollector -> nstep_reward_enhancer -> data_pusher ->
OffPolicyLearner; Rainbow's buffer is prioritized). Rainbow on seed 0 in `make test`; the
family on held-out seeds in tests/learning/test_tuned_pairs.py."""
from ding.entry.pipeline import RunOptions
from ding.entry.train import resolve_config, start_run

MAX_ENV_STEP = 20_000  # the tuned configs reach 195 within ~3.5k env steps on seeds 0-2


def _train(algo: str, seed: int, run_dir: str):
    main, create, info = resolve_config(algo, 'CartPole-v0', None)
    options = RunOptions(max_env_step=MAX_ENV_STEP, progress=False, checkpoint_freq=10 ** 9)
    return start_run(main, create, info, seed, options, exp_name=run_dir)


# Rainbow (the family's full combination) runs in `make test`; the family on held-out seeds is
# tests/learning/test_tuned_pairs.py's.
def test_rainbow_reaches_195_on_cartpole_v0_seed0(tmp_path):
    algo = 'rainbow'
    cfg, ctx = _train(algo, 0, str(tmp_path / algo))
    assert cfg.policy.type == algo
    assert ctx.last_eval_value >= 195 and ctx.env_step <= MAX_ENV_STEP
