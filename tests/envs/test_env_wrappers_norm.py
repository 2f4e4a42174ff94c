"""Normalisation with running statistics: one float64 `RunningMeanStd`, updated by the
collector's manager, read frozen by the evaluator's, saved in run-state checkpoints and
restored bit for bit (serial and subprocess managers), exported as a torch module."""
import gymnasium
import numpy as np
import pytest
import torch

from ding.envs import BaseEnvManagerV2, DingEnvWrapper, SubprocessEnvManagerV2
from ding.envs.env_manager.snapshot import EnvSnapshotError
from ding.envs.env_wrappers import NormalizedEnvManager, RunningMeanStd
from ding.framework.middleware.run_state import env_manager_state, load_env_manager_state
from ding.framework.middleware.run_state_file import read_run_state, write_run_state


def cartpole(wrappers=None):
    return DingEnvWrapper(gymnasium.make('CartPole-v1'), cfg={'env_wrapper': wrappers or 'default'})


def rollout(env, actions):
    """(normalised next_obs, rewards) of each step, as arrays."""
    out = []
    for a in actions:
        r = env.step_batch(a)
        out.append((r.next_obs.copy(), r.reward.copy(), env.ready_obs.copy()))
    return out


def actions_for(n_env, steps, seed):
    return np.random.default_rng(seed).integers(0, 2, size=(steps, n_env))


def test_running_mean_std_matches_numpy_and_round_trips():
    rng = np.random.default_rng(0)
    data = rng.normal(3.0, 2.0, size=(300, 4))
    stats, left, right = RunningMeanStd(shape=(4, )), RunningMeanStd(shape=(4, )), RunningMeanStd(shape=(4, ))
    for chunk in np.array_split(data, 7):
        stats.update(chunk)
    left.update(data[:100])
    right.update(data[100:])
    left.merge(right)
    for s in (stats, left):
        np.testing.assert_allclose(s.mean, data.mean(0), rtol=1e-5)
        np.testing.assert_allclose(s.var, data.var(0), rtol=1e-5)
    one_by_one = RunningMeanStd(shape=(4, ))  # single rows take a shortcut: the same moments
    for row in data:
        one_by_one.update(row[None])
    np.testing.assert_allclose(one_by_one.mean, data.mean(0), rtol=1e-5)  # the epsilon count weighs in
    np.testing.assert_allclose(one_by_one.var, data.var(0), rtol=1e-5)
    copy = RunningMeanStd(shape=(4, ))
    copy.load_state_dict(stats.state_dict())
    assert copy.mean.dtype == np.float64 and (copy.mean == stats.mean).all() and (copy.var == stats.var).all()
    with pytest.raises(ValueError, match=r'shape \(4,\) got a batch of shape \(3, 5\)'):
        stats.update(np.zeros((3, 5)))
    module = stats.as_module(clip=(-5, 5))
    x = torch.as_tensor(data[:3], dtype=torch.float32)
    np.testing.assert_allclose(module(x).numpy(), stats.normalize(data[:3], (-5, 5)), rtol=1e-5, atol=1e-6)


def _collector(manager_cls=BaseEnvManagerV2, wrappers=None, **cfg):
    m = manager_cls([lambda: cartpole(wrappers)] * 4, cfg)
    m.seed(7)
    return m


def _resume_is_exact(manager_cls, tmp_path, **cfg):
    """Run A: 30 steps, checkpoint to a file, 30 more. Run B: fresh objects, load the
    checkpoint, the same 30 more steps. Everything must be equal bit for bit."""
    acts = actions_for(4, 60, seed=1)
    a = NormalizedEnvManager(_collector(manager_cls, **cfg), obs_norm=True, reward_norm=True)
    a.launch()
    rollout(a, acts[:30])
    path = str(tmp_path / 'ckpt' / 'run_state.pt')
    write_run_state({'format': 2, 'env': env_manager_state(a)}, path)
    after_a = rollout(a, acts[30:])
    state_a = a.normalizer_state()
    a.close()

    b = NormalizedEnvManager(_collector(manager_cls, **cfg), obs_norm=True, reward_norm=True)
    saved, _, _ = read_run_state(path)
    assert load_env_manager_state(b, saved['env']) is None  # exact: no fresh episodes
    after_b = rollout(b, acts[30:])
    state_b = b.normalizer_state()
    b.close()
    for (oa, ra, ya), (ob, rb, yb) in zip(after_a, after_b):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ya, yb)
    for key in ('obs', 'reward'):
        assert state_a[key]['count'] == state_b[key]['count']
        assert np.array_equal(state_a[key]['mean'], state_b[key]['mean'])
        assert np.array_equal(state_a[key]['var'], state_b[key]['var'])
    assert np.array_equal(state_a['returns'], state_b['returns'])
    return after_a


def test_serial_manager_stats_survive_save_and_resume_bit_exactly(tmp_path):
    after = _resume_is_exact(BaseEnvManagerV2, tmp_path)
    obs = np.concatenate([o for o, _, _ in after])
    assert obs.dtype == np.float32 and abs(obs.mean()) < 1.0  # normalised


@pytest.mark.slow
def test_subprocess_manager_stats_survive_save_and_resume_bit_exactly(tmp_path):
    _resume_is_exact(SubprocessEnvManagerV2, tmp_path, worker_num=2)


@pytest.mark.slow
def test_in_env_stats_ride_in_the_subprocess_env_snapshot(tmp_path):
    """obs_norm inside each env: the workers' env pickles carry the statistics."""
    wrappers = [{'type': 'obs_norm', 'kwargs': {'warmup': 5}}]
    acts = actions_for(4, 40, seed=2)
    a = _collector(SubprocessEnvManagerV2, wrappers, worker_num=2)
    a.launch()
    rollout(a, acts[:20])
    snap = a.state_dict()
    after_a = rollout(a, acts[20:])
    a.close()
    b = _collector(SubprocessEnvManagerV2, wrappers, worker_num=2)
    b.load_state_dict(snap)
    after_b = rollout(b, acts[20:])
    # the statistics come out of the workers (through the envs' snapshot) to an evaluator's envs
    from ding.envs.env_wrappers.norm_sync import gather_env_normalizers, stats_wrappers, sync_env_normalizers
    evaluator = _collector(BaseEnvManagerV2, wrappers)
    evaluator.launch()
    assert sync_env_normalizers(b, evaluator)['normalizers'] == 1
    merged = gather_env_normalizers(b)[0]
    assert merged.count == pytest.approx(4 * 40 + 1e-4)  # every step of the 4 envs, both runs' halves
    for env in evaluator._envs:
        rms = stats_wrappers(env)[0].rms
        assert rms.frozen and rms.count == merged.count and np.array_equal(rms.mean, merged.mean)
    evaluator.close()
    b.close()
    for (oa, ra, _), (ob, rb, _) in zip(after_a, after_b):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb)
    assert np.abs(np.concatenate([o for o, _, _ in after_a])).max() <= 3.0  # normalised and clipped


def test_evaluator_reads_the_collector_stats_frozen():
    collector = NormalizedEnvManager(_collector(), obs_norm=True, reward_norm=True)
    evaluator = collector.frozen_for(BaseEnvManagerV2([cartpole] * 2, {}))
    assert evaluator.obs_stats is collector.obs_stats and evaluator.reward_stats is None and not evaluator.update
    collector.launch()
    rollout(collector, actions_for(4, 20, seed=3))
    before = collector.obs_stats.state_dict()
    evaluator.seed(0, dynamic_seed=False)
    evaluator.launch()
    raw = evaluator.env_manager.ready_obs
    np.testing.assert_array_equal(evaluator.ready_obs, collector.obs_stats.normalize(raw, (-10, 10)).astype(np.float32))
    for a in actions_for(2, 30, seed=4):
        result = evaluator.step_batch(a)
        assert result.reward.dtype == np.float32 and set(result.reward.tolist()) <= {0.0, 1.0}  # raw rewards
    after = collector.obs_stats.state_dict()
    assert after['count'] == before['count'] and np.array_equal(after['mean'], before['mean'])
    stale = evaluator.ready_obs
    rollout(collector, actions_for(4, 5, seed=5))  # the collector moves on; the evaluator follows
    assert not np.array_equal(evaluator.ready_obs, stale)
    np.testing.assert_array_equal(evaluator.ready_obs, collector.obs_stats.normalize(
        evaluator.env_manager.ready_obs, (-10, 10)).astype(np.float32))
    collector.close()
    evaluator.close()


def test_stats_restored_even_when_the_envs_cannot_be():
    class Unpicklable(gymnasium.Wrapper):

        def __reduce__(self):
            raise TypeError('holds a socket')

    manager = BaseEnvManagerV2([lambda: DingEnvWrapper(Unpicklable(gymnasium.make('CartPole-v1')))] * 2, {})
    a = NormalizedEnvManager(manager)
    a.launch()
    rollout(a, actions_for(2, 10, seed=6))
    state = env_manager_state(a)
    assert 'snapshot' in state and 'socket' in state['snapshot']['manager_error']
    b = NormalizedEnvManager(BaseEnvManagerV2([lambda: DingEnvWrapper(gymnasium.make('CartPole-v1'))] * 2, {}))
    message = load_env_manager_state(b, state, env_step=20)
    assert 'fresh episodes' in message
    assert b.obs_stats.count == a.obs_stats.count and np.array_equal(b.obs_stats.mean, a.obs_stats.mean)
    with pytest.raises(EnvSnapshotError, match='cannot load a snapshot'):
        b.load_state_dict({'format': 'per_env_pickles'})  # a plain manager's snapshot
    a.close()
    b.close()


def test_checkpoint_files_carry_the_statistics_the_evaluation_used(tmp_path):
    from ding.framework.middleware import CkptSaver

    class Weights:

        def state_dict(self):
            return {'model': {'w': torch.ones(1)}}

    collector = NormalizedEnvManager(_collector(), reward_norm=True)
    evaluator = collector.frozen_for(BaseEnvManagerV2([cartpole] * 2, {}))
    collector.launch()
    rollout(collector, actions_for(4, 20, seed=7))
    evaluator.launch()  # an evaluation round starts with these statistics
    used = collector.obs_stats.copy()
    rollout(collector, actions_for(4, 5, seed=8))  # the collector moves on before the step's checkpoint
    path = CkptSaver(Weights(), str(tmp_path), normalizer=evaluator).save('eval.pth.tar')
    ckpt = torch.load(path, weights_only=False)
    assert torch.equal(ckpt['model']['w'], torch.ones(1))
    saved = ckpt['env_normalizer']['obs']
    assert saved['count'] == used.count != collector.obs_stats.count and np.array_equal(saved['mean'], used.mean)
    deployed = NormalizedEnvManager(BaseEnvManagerV2([cartpole] * 3, {}), update=False)
    deployed.load_normalizer_state(ckpt['env_normalizer'])
    assert np.array_equal(deployed.obs_stats.var, used.var) and deployed.obs_stats.mean.dtype == np.float64
    collector.close()
    evaluator.close()


def test_di_engine_style_step_is_normalised_too():
    collector = NormalizedEnvManager(BaseEnvManagerV2([cartpole] * 2, {}), obs_norm=True)
    collector.seed(0)
    collector.launch()
    for _ in range(5):
        timesteps = collector.step({0: np.array([1]), 1: np.array([0])})
    assert [t.env_id for t in timesteps] == [0, 1]
    raw = collector.env_manager.ready_obs
    for t in timesteps:
        if not t.done:
            np.testing.assert_array_equal(t.obs, collector.obs_stats.normalize(raw[t.env_id], (-10, 10)).astype(
                np.float32))
    with pytest.raises(TypeError, match='wraps an env manager'):
        NormalizedEnvManager(cartpole())
    collector.close()


def _in_env_norm(manager_cls, n, caller='collector', **cfg):
    spec = [{'type': 'obs_norm', 'kwargs': {'warmup': 5}}, {'type': 'reward_norm', 'kwargs': {'warmup': 5}}]
    m = manager_cls([lambda: DingEnvWrapper(gymnasium.make('CartPole-v1'), cfg={'env_wrapper': spec},
                                            caller=caller)] * n, cfg)
    m.seed(11)
    return m


def test_evaluator_envs_get_the_merged_collector_stats_frozen():
    from ding.envs.env_wrappers import env_normalizer_sync
    from ding.envs.env_wrappers.norm_sync import stats_wrappers
    collector, evaluator = _in_env_norm(BaseEnvManagerV2, 3), _in_env_norm(BaseEnvManagerV2, 2, 'evaluator')
    collector.launch()
    evaluator.launch()
    for a in actions_for(3, 40, seed=12):
        collector.step_batch(a)
    sync = env_normalizer_sync(collector, evaluator)
    sync(type('Ctx', (), {'total_step': 0})())
    obs_stats = [stats_wrappers(e)[1].rms for e in evaluator._envs]  # outermost first: reward_norm, obs_norm
    per_env = [stats_wrappers(e)[1].rms for e in collector._envs]
    assert all(s.frozen for s in obs_stats) and obs_stats[0] is not obs_stats[1]
    assert obs_stats[0].count == pytest.approx(sum(s.count for s in per_env) - 2e-4)
    weights = np.array([s.count - 1e-4 for s in per_env])  # each env's data, pooled
    np.testing.assert_allclose(obs_stats[0].mean, (weights[:, None] * [s.mean for s in per_env]).sum(0) / weights.sum(),
                               rtol=1e-6, atol=1e-9)
    before = obs_stats[0].state_dict()
    for a in actions_for(2, 10, seed=13):
        evaluator.step_batch(a)
    assert obs_stats[0].count == before['count']  # frozen
    collector.close()
    evaluator.close()


def _ppo_run(save_dir, max_env_step, resume=False):
    """A PPO CartPole pipeline with normalised observations and rewards and run-state
    checkpoints; returns (final model weights, the normaliser's state)."""
    import copy as copy_

    from ding.config import compile_config
    from ding.framework import ding_init, task
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import RunStateSaver, StepCollector, gae_estimator, multistep_trainer, \
        termination_checker
    from ding.model import VAC
    from ding.policy import PPOPolicy
    from ding.utils import set_pkg_seed
    from dizoo.classic_control.cartpole.config.cartpole_ppo_config import create_config, main_config
    main = copy_.deepcopy(main_config)
    main.env.collector_env_num = 4
    main.policy.collect.n_sample = 64
    main.policy.learn.update(epoch_per_collect=2, batch_size=32)
    cfg = compile_config(main, create_cfg=copy_.deepcopy(create_config), auto=True, save_cfg=False)
    ding_init(cfg)
    with task.start(async_mode=False, ctx=OnlineRLContext()):
        env = NormalizedEnvManager(_collector(), reward_norm=True)
        set_pkg_seed(5, use_cuda=False)
        policy = PPOPolicy(cfg.policy, model=VAC(**cfg.policy.model))
        task.use(RunStateSaver(str(save_dir), policy, env=env, every_env_step=256, resume=resume))
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(gae_estimator(cfg, policy.collect_mode))
        task.use(multistep_trainer(policy.learn_mode, log_freq=10_000))
        task.use(termination_checker(max_env_step=max_env_step))
        task.run()
        weights = {k: v.clone() for k, v in policy.learn_mode.state_dict()['model'].items()}
        state = env.normalizer_state()
        env.close()
    return weights, state


@pytest.mark.slow
def test_a_resumed_pipeline_ends_with_the_same_weights_and_statistics(tmp_path):
    import shutil
    full, full_state = _ppo_run(tmp_path / 'full', 640)
    # the checkpoint before the final one, taken mid-run, is where a killed run would resume from
    (tmp_path / 'resumed' / 'ckpt').mkdir(parents=True)
    shutil.copy(tmp_path / 'full' / 'ckpt' / 'run_state.prev.pt', tmp_path / 'resumed' / 'ckpt' / 'run_state.pt')
    midway = torch.load(tmp_path / 'resumed' / 'ckpt' / 'run_state.pt', weights_only=False)['ctx']['env_step']
    assert 0 < midway < 640
    resumed, resumed_state = _ppo_run(tmp_path / 'resumed', 640, resume=True)
    assert all(torch.equal(full[k], resumed[k]) for k in full)
    for key in ('obs', 'reward'):
        assert full_state[key]['count'] == resumed_state[key]['count']
        assert np.array_equal(full_state[key]['mean'], resumed_state[key]['mean'])
        assert np.array_equal(full_state[key]['var'], resumed_state[key]['var'])
