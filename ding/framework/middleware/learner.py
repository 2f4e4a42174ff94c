"""Training middleware: `trainer` (one update), `multistep_trainer` (the policy's own loop),
`OffPolicyLearner` (fetch -> train, `update_per_collect` times) and `HERLearner`."""
import logging
from typing import Any, List

from ding.framework.contract import contract, require_config
from ding.framework.middleware import _common
from ding.framework.middleware.data_fetcher import offpolicy_data_fetcher
from ding.framework.middleware.enhancer import her_data_enhancer, reward_estimator
from ding.framework.middleware.loss_guard import LossGuard
from ding.utils.dist import all_ranks_true

logger = logging.getLogger('ding.learner')


def _log_train(train_iter: int, output: Any) -> None:
    scalars = {k: v for k, v in (output or {}).items() if isinstance(v, (int, float))}
    logger.info('train_iter=%d %s', train_iter, ' '.join(f'{k}={v:.4g}' for k, v in scalars.items()))


@_common.gated('learner')
def trainer(cfg: Any, policy: Any, log_freq: int = 100) -> Any:
    """One update on `ctx.train_data` (skipped when it is None); w: train_output, train_iter += 1.
    Given a reward model instead of a policy (as the RND example `dqn_rnd.py` passes), it trains
    that model on the freshly collected data (ding/framework/middleware/reward_model_training.py)."""
    from ding.framework.middleware.reward_model_training import is_reward_model, reward_model_trainer
    if is_reward_model(policy):
        return reward_model_trainer(cfg, policy)

    update = _one_update(policy, log_freq)

    def _train(ctx: Any) -> None:
        # data-parallel learners train or skip together, or one would wait for ever in the others' all-reduce
        if all_ranks_true(ctx.train_data is not None):
            update(ctx)

    return contract(_train, reads=('train_data', 'train_iter'), writes=('train_output', 'train_iter'),
                    waits_outside_gil=_common.learns_outside_gil(policy))


def _one_update(policy: Any, log_freq: int) -> Any:
    """`trainer`'s update, for the learners that have decided train/skip themselves; a
    non-finite loss stops the run (loss_guard.py)."""
    guard = LossGuard(policy)

    def _update(ctx: Any) -> None:
        ctx.train_output = policy.forward(ctx.train_data)
        guard.check(ctx.train_output, ctx.train_iter)
        ctx.train_iter += 1
        if log_freq and ctx.train_iter % log_freq == 0:
            _log_train(ctx.train_iter, ctx.train_output)

    return _update


@_common.gated('learner')
def multistep_trainer(policy: Any, log_freq: int = 100) -> Any:
    """The policy runs several updates on `ctx.train_data` (e.g. PPO epochs x minibatches) and
    returns one output per update; w: train_output (list), train_iter += number of updates.
    On-policy: it must see the newest weights, so in async mode it never runs ahead. A
    non-finite loss stops the run (loss_guard.py)."""
    guard = LossGuard(policy)

    def _train(ctx: Any) -> None:
        if not all_ranks_true(ctx.train_data is not None):  # data-parallel learners: together (see trainer)
            return
        output = policy.forward(ctx.train_data)
        outputs = output if isinstance(output, list) else [output]
        before = ctx.train_iter
        guard.check_all(outputs, before)
        ctx.train_output = outputs
        ctx.train_iter += len(outputs)
        if log_freq and outputs and ctx.train_iter // log_freq > before // log_freq:
            _log_train(ctx.train_iter, outputs[-1])

    return contract(_train, reads=('train_data', 'train_iter'), writes=('train_output', 'train_iter'),
                    fresh_weights=True, waits_outside_gil=_common.learns_outside_gil(policy))


class OffPolicyLearner(_common.Gated):
    """`cfg.policy.learn.update_per_collect` times: fetch a batch -> (reward model) -> train,
    writing PER priorities back right after each update; stops early while the buffer is short.
    w: train_output (list of the updates' outputs), train_iter."""
    roles = ('learner', )

    def __init__(self, cfg: Any, policy: Any, buffer_: Any, reward_model: Any = None, log_freq: int = 100) -> None:
        require_config(cfg, 'OffPolicyLearner', 'policy.learn.update_per_collect')
        # updates per call; a caller may change it between calls (a learner keeping a fixed
        # number of updates per env step, whatever arrived: benchmarks/throughput/atari_split.py)
        self.updates = int(cfg.policy.learn.update_per_collect)
        self._fetcher = offpolicy_data_fetcher(cfg, buffer_)
        self._trainer = _one_update(policy, log_freq)
        self._reward = reward_estimator(cfg, reward_model) if reward_model is not None else None
        contract(self, reads=('train_iter', ), writes=('train_data', 'train_output', 'train_iter'),
                 waits_outside_gil=_common.learns_outside_gil(policy))

    def __call__(self, ctx: Any) -> None:
        ctx.train_output = _run_updates(ctx, self.updates, self._fetcher, self._reward, self._trainer)


class HERLearner(_common.Gated):
    """Like OffPolicyLearner over a buffer of whole episodes, each batch relabelled by
    `her_reward_model.estimate` (hindsight experience replay)."""
    roles = ('learner', )

    def __init__(self, cfg: Any, policy: Any, buffer_: Any, her_reward_model: Any) -> None:
        require_config(cfg, 'HERLearner', 'policy.learn.update_per_collect')
        self._updates = int(cfg.policy.learn.update_per_collect)
        self._fetcher = her_data_enhancer(cfg, buffer_, her_reward_model)
        self._trainer = _one_update(policy, 100)
        contract(self, reads=('train_iter', ), writes=('train_data', 'train_output', 'train_iter'),
                 waits_outside_gil=_common.learns_outside_gil(policy))

    def __call__(self, ctx: Any) -> None:
        ctx.train_output = _run_updates(ctx, self._updates, self._fetcher, None, self._trainer)


def _run_updates(ctx: Any, updates: int, fetcher: Any, reward: Any, train: Any) -> List[Any]:
    outputs: List[Any] = []
    for _ in range(updates):
        after_fetch = _common.run_inline(fetcher, ctx)
        # data-parallel learners decide train/skip together, or one rank would wait forever
        if not all_ranks_true(ctx.train_data is not None):
            ctx.train_data = None
        if ctx.train_data is None:
            after_fetch()
            break
        if reward is not None:
            reward(ctx)
        train(ctx)
        after_fetch()  # priorities of this update go back before the next sample
        outputs.append(ctx.train_output)
    return outputs
