"""The launcher's wait loop, with a stand-in for Ray: a node restarted while the run was ending
(its new main() began after the broadcast finish) is told again until it returns."""
import types

import pytest

from ding.framework.distributed import launcher
from ding.framework.distributed.node import NodeReturn


class FakeActor:
    def __init__(self, on_finish):
        self.calls = 0
        self._on_finish = on_finish
        self.finish = types.SimpleNamespace(options=lambda **kw: types.SimpleNamespace(remote=self._finish))

    def _finish(self):
        self.calls += 1
        self._on_finish(self.calls)


class FakeRay:
    """ray.wait / ray.get over refs that are done once marked so."""
    exceptions = types.SimpleNamespace(RayActorError=RuntimeError, RayTaskError=ValueError)

    def __init__(self):
        self.done = set()

    def wait(self, pending, num_returns, timeout):
        ready = [r for r in pending if r in self.done][:num_returns]
        return ready, [r for r in pending if r not in ready]

    def get(self, ref):
        return NodeReturn(f'result of {ref}', 'stop_value reached' if ref == 'learner' else None)


def test_a_node_that_missed_the_finish_is_told_again_until_it_returns(monkeypatch, caplog):
    monkeypatch.setattr(launcher, 'REFINISH_S', 0.0)
    caplog.set_level('INFO', logger='ding.distributed')
    ray = FakeRay()
    ray.done.add('learner')  # the learner ended the run
    # the restarted collector ignores the first finish (sent before its main() began)
    collector = FakeActor(lambda calls: ray.done.add('collector') if calls >= 3 else None)
    actors = {0: FakeActor(lambda calls: None), 1: collector}
    results = launcher._wait(ray, {'learner': 0, 'collector': 1}, actors, timeout_s=5)
    assert results == {0: 'result of learner', 1: 'result of collector'}
    assert collector.calls >= 3
    # why the run ended is said on the driver, whatever reached it of the nodes' own logs
    assert 'node 0 ended the run: stop_value reached' in caplog.text


def test_a_run_that_times_out_says_where_each_unfinished_node_was(caplog):
    stack = ('  File "/x/ding/framework/distributed/exchangers.py", line 191, in _load\n'
             '    return ray.get(item, timeout=self._load_timeout)\n'
             '  File "/venv/lib/site-packages/ray/_private/worker.py", line 900, in get\n    ...\n')
    ray = FakeRay()
    answer = ray.get
    ray.get = lambda ref, timeout=None: ref if ref == stack else answer(ref)
    stuck = FakeActor(lambda calls: ray.done.add('learner'))  # it ends once told to
    stuck.where = types.SimpleNamespace(options=lambda **kw: types.SimpleNamespace(remote=lambda: stack))
    caplog.set_level('ERROR', logger='ding.distributed')
    with pytest.raises(launcher.DistributedRunError, match=r'exceeded 0.2 s; node 0 was at exchangers.py:191 in _load'):
        launcher._wait(ray, {'learner': 0}, {0: stuck}, timeout_s=0.2)
    assert 'node 0 had not finished; its main() was at:' in caplog.text and 'ray/_private/worker.py' in caplog.text
    assert stuck.calls >= 1  # and it was told to finish
