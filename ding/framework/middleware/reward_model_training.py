"""`reward_model_trainer`: feeds freshly collected data to a reward model and trains it.

A pipeline may write `task.use(trainer(cfg, reward_model))` right after the collector (as
the RND example `dqn_rnd.py` does); `trainer` hands a reward model (an object with
`collect_data` and `train` but no `forward`) to this middleware. Each step it gives the model `ctx.trajectories` (or the
transitions of `ctx.episodes`) and runs `reward_model.train()`; the sampled batches are then
rewritten by `reward_estimator` / `OffPolicyLearner(..., reward_model=...)`.
With `clear_buffer_per_iters = N` in the model's config (else in `cfg.reward_model`) its kept
data is cleared after every N-th training call (ICM's setting).
"""
from typing import Any

from ding.data.batch import Batch
from ding.framework.contract import contract
from ding.framework.middleware import _common


def is_reward_model(obj: Any) -> bool:
    """A reward model, as opposed to a policy's learn mode: trains itself on kept data."""
    return (not callable(getattr(obj, 'forward', None)) and callable(getattr(obj, 'collect_data', None))
            and callable(getattr(obj, 'train', None)))


@_common.gated('learner')
def reward_model_trainer(cfg: Any, reward_model: Any) -> Any:
    """r: trajectories or episodes (left in place for data_pusher); w: nothing."""
    if not is_reward_model(reward_model):
        raise TypeError(f'reward_model_trainer needs a reward model (with collect_data and train), '
                        f'got {type(reward_model).__name__}')
    clear_every = int(_setting(reward_model, cfg, 'clear_buffer_per_iters') or 0)
    calls = 0

    def _train_reward_model(ctx: Any) -> None:
        nonlocal calls
        data = ctx.trajectories
        if data is None and ctx.episodes is not None:
            episodes = list(ctx.episodes)
            data = Batch.cat(episodes) if all(isinstance(e, Batch) for e in episodes) else \
                [row for episode in episodes for row in episode]
        if data is None or len(data) == 0:
            return
        reward_model.collect_data(data)
        reward_model.train()
        calls += 1
        if clear_every and calls % clear_every == 0:
            reward_model.clear_data()

    # it reads whichever of the two fields a collector wrote, so neither is a required read
    return contract(_train_reward_model, name='reward_model_trainer')


def _setting(reward_model: Any, cfg: Any, key: str) -> Any:
    """`key` from the reward model's own config, else from the pipeline's `cfg.reward_model`."""
    pipeline_section = cfg.get('reward_model') if hasattr(cfg, 'get') else None
    for section in (getattr(reward_model, 'cfg', None), pipeline_section):
        if hasattr(section, 'get') and section.get(key) is not None:
            return section.get(key)
    return None
