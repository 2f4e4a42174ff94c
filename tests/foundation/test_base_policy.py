import threading

import numpy as np
import torch
from torch import nn

from ding.policy.base_policy import Policy


class Linear(Policy):
    config = dict(learn=dict(learning_rate=0.1), other=dict(extra=1))

    def default_model(self):
        return nn.Linear(2, 1, bias=False)

    def _init_learn(self):
        self._opt = torch.optim.SGD(self._model.parameters(), lr=self._cfg.learn.learning_rate)

    def _forward_learn(self, data):
        loss = ((self._model(data.obs).squeeze(-1) - data.target) ** 2).mean()
        self._opt.zero_grad()
        loss.backward()
        self._opt.step()
        return {'total_loss': loss.item()}

    def _forward_collect(self, obs, scale=1.0):
        return {'action': self._collect_model(obs).squeeze(-1) * scale}

    def _forward_eval(self, obs):
        return {'action': self._eval_model(obs).squeeze(-1)}


def test_default_config_merges_up_the_hierarchy():
    cfg = Linear.default_config()
    assert cfg.learn.learning_rate == 0.1 and cfg.learn.batch_size == 64 and cfg.other.extra == 1
    p = Linear({'learn': {'learning_rate': 0.5}})
    assert p.cfg.learn.learning_rate == 0.5 and p.cfg.learn.batch_size == 64


def test_acting_copies_follow_learner_updates_only_after_an_update():
    p = Linear({})
    with torch.no_grad():
        p._model.weight.fill_(1.0)
    p.publish_weights()
    obs = np.ones((3, 2), dtype=np.float32)
    out = p.collect_mode.forward_batch(obs, scale=2.0)
    np.testing.assert_allclose(out['action'], [4.0, 4.0, 4.0])
    p.learn_mode.forward({'obs': obs, 'target': np.zeros(3, dtype=np.float32)})
    w = p._model.weight.detach().clone()
    np.testing.assert_allclose(p.eval_mode.forward_batch(obs)['action'], (w.sum()).repeat(3).numpy(), rtol=1e-6)
    assert p.acting_model('collect') is not p._model


def test_dict_forward_adapter_splits_by_env_id():
    p = Linear({})
    out = p.collect_mode.forward({3: np.ones(2, dtype=np.float32), 7: np.zeros(2, dtype=np.float32)})
    assert list(out) == [3, 7] and out[7]['action'] == 0.0


def test_actor_never_sees_half_an_update():
    p = Linear({})
    initial = p._model.weight.detach().clone()
    seen = []
    stop = threading.Event()

    def act():
        while not stop.is_set():
            m = p.acting_model('collect')
            seen.append(m.weight.detach().clone())

    t = threading.Thread(target=act)
    t.start()
    obs = np.ones((4, 2), dtype=np.float32)
    versions = []
    for _ in range(50):
        p.learn_mode.forward({'obs': obs, 'target': np.zeros(4, dtype=np.float32)})
        versions.append(p._model.weight.detach().clone())
    stop.set()
    t.join()
    # every weight an actor used equals the initial one or one the learner completed
    legal = [initial] + versions
    assert seen and all(any(torch.equal(s, v) for v in legal) for s in seen)
