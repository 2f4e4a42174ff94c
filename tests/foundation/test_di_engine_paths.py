"""DI-engine's import paths that user code uses, served by ding (ding/compat/paths.py and real modules)."""
import importlib
import logging
import os
import time

import numpy as np
import pytest
import torch

from ding.compat.paths import SAME_MODULE, all_paths


@pytest.mark.parametrize('path', all_paths())
def test_every_table_path_imports_and_its_names_resolve(path):
    module = importlib.import_module(path)
    if path in SAME_MODULE:
        assert module is importlib.import_module(SAME_MODULE[path])
    for name in getattr(module, '__all__', ()):
        assert getattr(module, name) is not None, (path, name)


def test_the_paths_di_engine_examples_import():
    from ding.model.template.qac import ContinuousQAC
    from ding.model.template import DQN, VAC
    from ding.model import ContinuousQAC as ours
    from ding.framework.middleware.functional.evaluator import interaction_evaluator
    from ding.framework.middleware.functional import data_pusher, trainer  # noqa: F401
    from ding.framework.middleware import interaction_evaluator as ours_eval
    from ding.envs.env.base_env import BaseEnvTimestep
    from ding.envs.env_manager.base_env_manager import EnvState
    from ding.framework import EventLoop  # noqa: F401
    from ding.framework.supervisor import ChildType, EnvSupervisor  # noqa: F401
    from ding.envs import EnvSupervisor as envs_supervisor, BaseEnvTimestep as ours_ts
    from ding.data import Dataset
    assert ContinuousQAC is ours and interaction_evaluator is ours_eval and BaseEnvTimestep is ours_ts
    assert DQN.__name__ == 'DQN' and VAC.__name__ == 'VAC'
    assert EnvSupervisor is envs_supervisor and Dataset is torch.utils.data.Dataset
    assert EnvState.RUN == 2 and ChildType('thread') is ChildType.THREAD


def test_a_name_the_table_lacks_is_a_clear_import_error():
    with pytest.raises(ImportError, match="cannot import name 'GTrXLDQN'"):
        from ding.model.template import GTrXLDQN  # noqa: F401
    with pytest.raises(AttributeError, match='ding provides'):
        importlib.import_module('ding.model.template.q_learning').GTrXLDQN
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module('ding.model.template.no_such_module')


def test_import_names_of_di_engine_configs_register_our_classes():
    from ding.utils import BUFFER_REGISTRY
    importlib.import_module('ding.data.buffer.deque_buffer_wrapper')
    assert 'deque' in BUFFER_REGISTRY


def test_torch_utils_conversions():
    from ding.torch_utils import to_device, to_ndarray, to_tensor, to_list, to_item
    data = {'obs': np.ones((2, 3), np.float32), 'n': 3, 'name': 'x', 'nested': [np.zeros(2)], 'none': None}
    t = to_tensor(data, dtype=torch.float32)
    assert isinstance(t['obs'], torch.Tensor) and t['obs'].dtype == torch.float32 and t['n'].item() == 3
    assert t['name'] == 'x' and t['none'] is None and isinstance(t['nested'][0], torch.Tensor)
    assert to_tensor({'k': np.ones(1)}, ignore_keys=['k'])['k'].__class__ is np.ndarray
    back = to_ndarray(t)
    assert isinstance(back['obs'], np.ndarray) and back['obs'].shape == (2, 3)
    assert to_device(t, 'cpu')['obs'].device.type == 'cpu'
    assert to_list(torch.arange(3)) == [0, 1, 2]
    assert to_item({'a': torch.tensor(2.5), 'b': torch.ones(3)}) == {'a': 2.5}
    with pytest.raises(ValueError):
        to_item(torch.ones(3), ignore_error=False)


def test_torch_utils_networks():
    from ding.torch_utils import MLP, build_normalization, fc_block
    block = fc_block(4, 8, activation=torch.nn.ReLU(), norm_type='LN', use_dropout=True)
    assert [type(m).__name__ for m in block] == ['Linear', 'LayerNorm', 'ReLU', 'Dropout']
    net = MLP(4, 16, 2, layer_num=3, activation=torch.nn.Tanh(), output_activation=False,
              last_linear_layer_init_zero=True)
    assert [type(m).__name__ for m in net] == ['Linear', 'Tanh', 'Linear', 'Tanh', 'Linear']
    assert net(torch.ones(5, 4)).abs().sum().item() == 0.0  # zero-initialised last layer, zero bias
    assert build_normalization('BN', 2) is torch.nn.BatchNorm2d and build_normalization('LN') is torch.nn.LayerNorm
    with pytest.raises(KeyError, match='unknown norm_type'):
        build_normalization('XN')


@pytest.mark.parametrize('clip', ['clip_norm', 'clip_value'])
def test_adam_clips_gradients_before_the_step(clip):
    from ding.torch_utils import Adam
    w = torch.nn.Parameter(torch.zeros(3))
    opt = Adam([w], lr=0.1, grad_clip_type=clip, clip_value=0.5)
    w.grad = torch.tensor([30.0, -40.0, 0.0])
    opt.step()
    if clip == 'clip_norm':
        assert torch.allclose(w.grad.norm(), torch.tensor(0.5), atol=1e-4)
    else:
        assert w.grad.tolist() == [0.5, -0.5, 0.0]
    with pytest.raises(NotImplementedError, match='clip_momentum'):
        Adam([w], grad_clip_type='clip_momentum', clip_value=1.0)


def test_utils_helpers(tmp_path):
    from ding.utils import EasyTimer, build_logger, deep_merge_dicts, registries, DistributedWriter, POLICY_REGISTRY
    assert deep_merge_dicts({'a': {'b': 1, 'c': 2}}, {'a': {'c': 3}}) == {'a': {'b': 1, 'c': 3}}
    timer = EasyTimer(cuda=False)
    with timer:
        time.sleep(0.01)
    assert timer.value >= 0.01
    assert registries['policy'] is POLICY_REGISTRY
    text, tb = build_logger(str(tmp_path), name='run', need_tb=False, text_level=logging.INFO)
    text.info('hello')
    for h in text.handlers:
        h.flush()
    assert tb is None and 'hello' in (tmp_path / 'run_logger.txt').read_text()
    writer = DistributedWriter.get_instance(str(tmp_path / 'tb'))
    assert DistributedWriter.get_instance() is writer
    writer.close()


def test_event_loop_by_name():
    from ding.framework import EventLoop
    loop = EventLoop.get_event_loop('test-loop')
    assert EventLoop.get_event_loop('test-loop') is loop
    got = []
    loop.on('x', lambda v: got.append(v))
    assert loop.listened('x') and not loop.listened('y')
    loop.emit('x', 7)
    assert got == [7]
    loop.stop()
    assert EventLoop.get_event_loop('test-loop') is not loop


@pytest.mark.parametrize('child', ['thread', 'process'])
def test_env_supervisor_is_an_env_manager(child, caplog):
    import gymnasium as gym
    from ding.envs import DingEnvWrapper
    from ding.envs.env_manager.base_env_manager import BaseEnvManagerV2
    from ding.framework.supervisor import ChildType, EnvSupervisor
    manager_cfg = dict(type='base', cfg_type='BaseEnvManagerDict', episode_num=float('inf'), max_retry=5,
                       shared_memory=False, not_a_key=1)
    with caplog.at_level(logging.WARNING):
        env = EnvSupervisor(type_=ChildType(child), env_fn=[lambda: DingEnvWrapper(gym.make('CartPole-v1'))] * 2,
                            **manager_cfg)
    assert [r.getMessage() for r in caplog.records if 'EnvSupervisor' in r.getMessage()] == [
        'EnvSupervisor ignores unknown parameters: not_a_key']
    assert isinstance(env, BaseEnvManagerV2) and isinstance(env, EnvSupervisor) and env.env_num == 2
    assert ('SubprocessEnvManagerV2' in [c.__name__ for c in type(env).__mro__]) == (child == 'process')
    env.seed(0)
    env.launch()
    try:
        first = env.ready_obs.copy()
        out = env.step_batch(np.zeros(2, dtype=np.int64))
        assert out.next_obs.shape == (2, 4) and not np.allclose(out.next_obs, first)
    finally:
        env.close()
    assert os.environ.get('NO_SUCH') is None
