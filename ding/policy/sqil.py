"""SQIL, soft Q imitation learning (Reddy et al. 2019): `SQILPolicy` (discrete, soft Q) and
`SQILSACPolicy` (continuous, SAC), registered as `sqil` and `sqil_sac`.

SQIL changes the data, not the loss. Demonstrations are stored with reward 1 and the agent's
own transitions with reward 0 (`sqil_data_pusher(cfg, buffer_, expert=True/False)`), and every
learner batch is half of each: `OffPolicyLearner(cfg, policy.learn_mode,
[(agent_buffer, 0.5), (expert_buffer, 0.5)])` puts the agent rows first and the expert rows
second. The soft Q update (SQL's, or SAC's critic and actor) then learns to go back to states
the expert visits and to do there what the expert does.

`ding train --algo sqil|sqil_sac --dataset DEMOS` builds that pipeline with the expert buffer
read from a file of demonstrations (`policy.collect.data_path`, ding/data/demonstrations.py).

What these classes add to SQL / SAC is the check that a batch is such a mix (an odd batch fails
before any update) and the mean |TD error| of each half (`agent_td_error`,
`expert_td_error`), to show how the critic fits each kind of data. `SQLPolicy` on the same
mixed batches also trains SQIL, without the check and the split monitors.
"""
from typing import Any, Dict, List, Optional

import torch

from ding.data.batch import Batch
from ding.policy.dqn import TDLoss
from ding.policy.sac import SACPolicy
from ding.policy.sql import SQLPolicy
from ding.utils.registry import POLICY_REGISTRY
from ding.policy.policy import as_floats


def check_mixed_batch(n: int) -> None:
    """An odd batch is no half-and-half mix: that is a pipeline error, said here."""
    if n % 2:
        raise ValueError(f'SQIL expects a batch of agent rows then as many expert rows, got {n} rows; sample it '
                         f'with OffPolicyLearner(cfg, learn_mode, [(agent_buffer, 0.5), (expert_buffer, 0.5)]) '
                         f'and an even policy.learn.batch_size')


def agent_expert_td_error(td_abs: torch.Tensor) -> Dict[str, torch.Tensor]:
    """Mean |TD error| of the agent half (first rows) and of the expert half (last rows) of a
    SQIL batch, as scalar tensors (read on the host after the update: a CUDA graph may capture it)."""
    n = td_abs.shape[0]
    check_mixed_batch(n)
    agent, expert = td_abs.detach().reshape(n, -1).mean(-1).chunk(2)
    return {'agent_td_error': agent.mean(), 'expert_td_error': expert.mean()}


@POLICY_REGISTRY.register('sqil')
class SQILPolicy(SQLPolicy):
    """Soft Q-learning on a half agent (reward 0), half expert (reward 1) batch."""
    # its update reads no host value either (test_cuda_graph.py), but unlike SQL's its capture has
    # not been checked on a GPU
    graph_safe_update = False
    config = dict(
        type='sqil',
        collect=dict(
            # an expert checkpoint that a training program loads into its demonstrator (not read here)
            model_path=None,
            # the demonstrations file `ding train` loads as the expert buffer (ding/entry/pipeline.py)
            data_path=None,
        ),
    )

    def _td_loss(self, data: Batch, reward: torch.Tensor, done: torch.Tensor,
                 weight: Optional[torch.Tensor]) -> TDLoss:
        td = super()._td_loss(data, reward, done, weight)
        return TDLoss(td.loss, td.priority, {**td.stats, **agent_expert_td_error(td.priority)})

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['agent_td_error', 'expert_td_error']


@POLICY_REGISTRY.register('sqil_sac')
class SQILSACPolicy(SACPolicy):
    """SAC on a half agent (reward 0), half expert (reward 1) batch."""
    config = dict(
        type='sqil_sac',
        expert_random_collect_size=0,  # random-action steps that seed the expert buffer (the pipeline reads it)
        collect=dict(model_path=None, data_path=None),  # as in SQILPolicy
    )

    def _forward_learn(self, data: Batch) -> Dict[str, Any]:
        check_mixed_batch(data.reward.shape[0])  # before the update, which a bad batch must not reach
        out = super()._forward_learn(data)
        return {**out, **as_floats(agent_expert_td_error(self._last_td_abs))}

    def _priority(self, td_abs: torch.Tensor) -> Dict[str, Any]:
        # SAC's update hands its per-sample |TD error| here (for prioritized replay); keep it
        # so that the halves can be reported without a second critic pass
        self._last_td_abs = td_abs
        return super()._priority(td_abs)

    def _monitor_vars_learn(self) -> List[str]:
        return super()._monitor_vars_learn() + ['agent_td_error', 'expert_td_error']
