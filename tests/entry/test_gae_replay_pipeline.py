"""`ding train` for the policies that replay GAE-annotated transitions (PPOOffPolicy, PPGOffPolicy):
collector -> gae_estimator pushing into the buffer -> OffPolicyLearner; PPG's two phases sample two
views of one buffer, each over its newest `replay_buffer_size` items."""
import pytest
from easydict import EasyDict

from ding.config import compile_config
from ding.entry.catalog import find_tuned
from ding.entry.cli import main
from ding.entry.pipeline import learner_buffers, make_replay_buffer, pipeline_kind


def compiled(algo):
    main_cfg, create = find_tuned(algo, 'CartPole-v0').load()
    return compile_config(main_cfg, create_cfg=create, auto=True, seed=0, save_cfg=False)


@pytest.mark.parametrize('algo', ['ppo_offpolicy', 'ppg_offpolicy'])
def test_gae_replay_policies_get_their_pipeline(algo):
    assert pipeline_kind(compiled(algo)) == 'gae_replay'


def test_ppg_phases_sample_their_own_newest_items():
    cfg = compiled('ppg_offpolicy')
    buffer_ = make_replay_buffer(cfg)
    assert buffer_.size == 2048  # the larger view's
    views = learner_buffers(cfg, buffer_)
    assert sorted(views) == ['policy', 'value']
    for i in range(2048):
        buffer_.push(EasyDict(i=i))
    assert min(d.data.i for d in views['policy'].sample(64)) >= 2048 - 256
    assert min(d.data.i for d in views['value'].sample(512)) < 2048 - 256
    assert learner_buffers(compiled('ppo_offpolicy'), buffer_) is buffer_  # one buffer, no views


# PPG's policy phase samples the last slots of the storage: nothing until the value view's buffer
# is nearly full (DI-engine's sample_range_view), so its views are shrunk to fit a short run
SMALL_VIEWS = ', "policy": {"collect": {"n_sample": 128}, "other": {"replay_buffer": {"policy": ' \
              '{"replay_buffer_size": 128}, "value": {"replay_buffer_size": 384}}}}'


@pytest.mark.parametrize('algo, extra', [('ppo_offpolicy', ''), ('ppg_offpolicy', SMALL_VIEWS)])
def test_ding_train_runs_them(tmp_path, monkeypatch, capsys, algo, extra):
    monkeypatch.chdir(tmp_path)
    assert main(['train', '--algo', algo, '--env', 'CartPole-v0', '--max-env-step', '600', '--no-progress',
                 '--config', '{"env": {"n_evaluator_episode": 1}' + extra + '}', '--exp-name', 'run']) == 0
    out = capsys.readouterr().out
    iters = int(out.split('train_iter=')[1].split()[0])
    assert iters > 0, out
