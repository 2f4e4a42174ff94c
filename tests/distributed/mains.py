"""`main()` functions the distributed tests launch on node actors (importable, so Ray ships
them by reference)."""
import os
import time

from ding.framework import task


def events_main():
    """Each node says hello to the others, waits for theirs; node 1 then ends every node."""
    got = []
    with task.start():
        assert task.router.is_active
        task.on('hello', lambda node: got.append(node))
        task.emit('hello', task.router.node_id, only_remote=True)
        deadline = time.time() + 60
        while len(got) < len(task.router.peer_ids) and time.time() < deadline:
            time.sleep(0.02)
        if task.router.node_id == 0:
            task.emit('question', 41, only_remote=True)
        else:
            answer = task.wait_for('question', timeout=60)
            assert answer == ((41, ), {}), answer
        if task.router.node_id == 1:
            task.finish = True
        task.use(lambda ctx: time.sleep(0.01))
        task.run()
        steps = task.ctx.total_step
    return dict(node_id=task.router.node_id, labels=sorted(task.router.labels), got=sorted(got), pid=os.getpid(),
                steps=steps)


def failing_main():
    """Node 1 raises; the others would run for ever unless the launcher ends them."""
    with task.start():
        if task.router.node_id == 1:
            time.sleep(0.5)
            raise ValueError('node 1 broke on purpose')
        task.use(lambda ctx: time.sleep(0.02))
        task.run()
    return 'ended'


def dqn_main(learner_steps: int = 25, max_inflight: int = 2, die_node: int = -1, marker: str = '',
             progress_dir: str = '', restarts_needed: bool = False):
    """Node 0 learns, the others collect CartPole (DQN) through the real exchangers; returns
    what the test checks: counters, acks, read-only (zero-copy) batches, model versions."""
    import gymnasium as gym
    import torch
    from easydict import EasyDict

    from ding.data.buffer.deque_buffer import DequeBuffer
    from ding.envs import BaseEnvManagerV2, DingEnvWrapper
    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import (ContextExchanger, ModelExchanger, OffPolicyLearner, StepCollector,
                                           data_pusher, eps_greedy_handler)
    from ding.model import DQN
    from ding.policy import DQNPolicy

    learner = task.router.node_id == 0
    torch.manual_seed(task.router.node_id)
    cfg = DQNPolicy.default_config()
    cfg.model = dict(obs_shape=4, action_shape=2, encoder_hidden_size_list=[32, 32])
    cfg.learn.update_per_collect = 2
    cfg.learn.batch_size = 32
    cfg.collect.n_sample = 16
    cfg = EasyDict(seed=0, policy=cfg)
    out = dict(node_id=task.router.node_id, history={}, inflight_seen=0, read_only=[], incarnations={})
    with task.start(ctx=OnlineRLContext()):
        task.add_role(task.role.LEARNER if learner else task.role.COLLECTOR)
        model = DQN(**cfg.policy.model)
        policy = DQNPolicy(cfg.policy, model=model)
        env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v1')) for _ in range(2)],
                               BaseEnvManagerV2.default_config())
        buffer_ = DequeBuffer(size=2000)
        exchanger = ContextExchanger(skip_n_iter=1, max_inflight=max_inflight)
        models = ModelExchanger(model)

        def record(ctx):
            yield
            if not learner:
                out['history'][exchanger._sent_seq] = ctx.env_step

        def check(ctx):
            if not learner and not task.finish:  # (the last step's wait ends early when the learner finished)
                out['inflight_seen'] = max(out['inflight_seen'], exchanger._sent_seq - exchanger._acked)
            elif ctx.trajectories is not None:
                out['read_only'].append(not ctx.trajectories['obs'].flags.writeable)
            if learner:
                for node, (inc, seq) in exchanger._consumed.items():
                    out['incarnations'].setdefault(node, {})[inc] = seq
                if progress_dir and ctx.total_step == 5:  # the test may now take a machine away
                    with open(os.path.join(progress_dir, 'progress_at_5'), 'w') as f:
                        f.write(f'{ctx.env_step},{ctx.train_iter}')
            elif progress_dir and ctx.total_step == 0:
                import ray
                with open(os.path.join(progress_dir, f'node{task.router.node_id}_{exchanger._incarnation}'), 'w') as f:
                    f.write(ray.get_runtime_context().get_node_id())
            if task.router.node_id == die_node and ctx.total_step == 5 and not os.path.exists(marker):
                open(marker, 'w').close()
                os.kill(os.getpid(), 9)  # a collector crash: Ray restarts the actor, the launcher reruns main()

        task.use(record)  # registered first: its after-step part runs after the exchanger sent
        task.use(exchanger)
        task.use(check)
        task.use(models)
        task.use(eps_greedy_handler(cfg))
        task.use(StepCollector(cfg, policy.collect_mode, env))
        task.use(data_pusher(cfg, buffer_))
        task.use(OffPolicyLearner(cfg, policy.learn_mode, buffer_))
        out['void'] = sorted(getattr(fn, '__name__', type(fn).__name__) for fn in task.middlewares
                             if getattr(fn, '__name__', '') == '_void')
        if learner:  # enough steps, and data from every collector (they may start seconds apart)
            n_collectors = len(task.router.peer_ids)
            # a third batch from each: a late collector's first ones may be sent before any weights reached it
            task.use(lambda ctx: setattr(task, 'finish', ctx.total_step + 1 >= learner_steps
                                         and len(exchanger._consumed) == n_collectors
                                         and all(seq >= 3 for _, seq in exchanger._consumed.values())
                                         and (die_node < 0 or _rejoined(out['incarnations'].get(die_node, {})))
                                         and (not restarts_needed or all(
                                             _rejoined(v) for v in out['incarnations'].values()))))
        task.run()
        out.update(env_step=task.ctx.env_step, train_iter=task.ctx.train_iter, buffer=buffer_.count(),
                   consumed=dict(exchanger._consumed), loaded_version=models.loaded_version,
                   sent=exchanger._sent_seq, n_void=len(out.pop('void')), lost=exchanger.lost_batches)
        env.close()
    return out


def stalled_batch_main(load_timeout: float):
    """Node 1 sends the learner (node 0) a batch whose object never arrives, then a real one: the
    learner drops the first after `load_timeout` and merges the second."""
    import numpy as np
    import ray

    from ding.framework.context import OnlineRLContext
    from ding.framework.middleware import ContextExchanger
    seen = []
    with task.start(ctx=OnlineRLContext()):
        if task.router.node_id == 0:
            task.add_role(task.role.LEARNER)
            exchanger = ContextExchanger(load_timeout=load_timeout)
            task.use(exchanger)
            task.use(lambda ctx: (seen.append((ctx.trajectories, ctx.env_step)), setattr(task, 'finish', True)))
            task.run()
            return dict(seen=seen, lost=exchanger.lost_batches)
        never = ray.remote(num_cpus=0)(_sleep).remote(600)  # its object exists only when the task ends
        good = ray.put({'obs': np.arange(3)})
        for seq, ref in ((1, never), (2, good)):
            task.emit('context_exchanger_collector', dict(node=1, inc='only', seq=seq, env_step=4, trajectories=ref),
                      only_remote=True)
        task.use(lambda ctx: time.sleep(0.02))
        task.run()
        ray.cancel(never, force=True)
    return None


def stalled_weights_main(load_timeout: float):
    """Node 0 publishes weights version 1 whose object never arrives; once node 1 has skipped it,
    version 2, real weights, which node 1 loads."""
    import numpy as np
    import ray
    import torch

    from ding.framework.middleware import PeriodicalModelExchanger
    model = torch.nn.Linear(2, 1)
    with task.start():
        if task.router.node_id == 0:
            never = ray.remote(num_cpus=0)(_sleep).remote(600)
            sent = {k: np.full(tuple(v.shape), 7.0, dtype=np.float32) for k, v in model.state_dict().items()}
            task.on('skipped', lambda: task.emit('model_exchanger', 2, ray.put(sent), only_remote=True))
            task.emit('model_exchanger', 1, never, only_remote=True)
            task.use(lambda ctx: time.sleep(0.02))
            task.run()
            ray.cancel(never, force=True)
            return None
        exchanger = PeriodicalModelExchanger(model, mode='receive', load_timeout=load_timeout)
        told = []

        def check(ctx):
            if exchanger.skipped_versions and not told:
                told.append(exchanger.loaded_version)
                task.emit('skipped', only_remote=True)
            if exchanger.loaded_version == 2:
                task.finish = True

        task.use(exchanger)
        task.use(check)
        task.use(lambda ctx: time.sleep(0.02))
        task.run()
        return dict(skipped=exchanger.skipped_versions, version_when_skipped=told[0],
                    weights=[float(v) for v in model.weight.detach().flatten()])


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _rejoined(incarnations: dict) -> bool:
    """Two incarnations of a collector, each with 3 batches merged (by its third batch a restarted
    collector has loaded the learner's weights: they are sent before the acknowledgement it waits for)."""
    return len(incarnations) >= 2 and min(incarnations.values()) >= 3


def ddp_learners_main(out_dir: str):
    """Two learner nodes form one torch.distributed group through the run's registry and train
    a multi_gpu DQNPolicy on different batches (tests/distributed/ddp_dqn_worker.py's data)."""
    import torch

    from ding.policy import DQNPolicy
    from ding.utils import get_rank, get_world_size
    from tests.distributed import ddp_dqn_worker as worker
    with task.start():
        task.add_role(task.role.LEARNER)
        with task.router.ddp_context([0, 1]):
            rank, world = get_rank(), get_world_size()
            torch.manual_seed(rank)
            policy = DQNPolicy(worker.make_cfg(True))
            if rank == 0:
                torch.save(policy._model.state_dict(), os.path.join(out_dir, 'init.pt'))
            for step in range(worker.STEPS):
                policy.learn_mode.forward(worker.batch(step, rank))
            torch.save(policy._model.state_dict(), os.path.join(out_dir, f'rank{rank}.pt'))
    return rank, world
