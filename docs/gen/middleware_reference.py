"""The middleware reference page: for every middleware `ding.framework.middleware` exports, the
ctx fields its contract reads and writes (`ding.framework.contract`), read from a middleware
built here, not written by hand.

Contracts are attached when a middleware is constructed, so each one is built from a small kit
(CartPole DQN and PPO configs, policies, a buffer, env managers that are never launched).
A name exported but missing from `RECIPES` fails the build, so the table cannot fall behind
the package."""
import inspect
import os
import tempfile
from typing import Any, Callable, Dict, List, Tuple

from docgen_common import md_cell

# Exported names that are not middleware (helpers a middleware takes as an argument).
NOT_MIDDLEWARE = {'TransitionList'}


class Kit:
    """What the recipes build middleware from; everything small and never started."""

    def __init__(self, workdir: str) -> None:
        import gymnasium as gym
        import numpy as np
        from easydict import EasyDict
        from ding.utils.dicts import deep_merge
        from ding.config import compile_config
        from ding.data import DequeBuffer
        from ding.envs import BaseEnvManagerV2, DingEnvWrapper
        from ding.model import DQN, VAC
        from ding.policy import DQNPolicy, PPOPolicy
        from dizoo.classic_control.cartpole.config import cartpole_dqn_config as dqn_cfg
        from dizoo.classic_control.cartpole.config import cartpole_ppo_config as ppo_cfg
        self.workdir = workdir
        self.dqn_cfg = compile_config(dqn_cfg.main_config, create_cfg=dqn_cfg.create_config, auto=True,
                                      save_cfg=False)
        self.ppo_cfg = compile_config(ppo_cfg.main_config, create_cfg=ppo_cfg.create_config, auto=True,
                                      save_cfg=False)
        self.episode_cfg = EasyDict(deep_merge(self.dqn_cfg, {'policy': {'collect': {'n_episode': 2}}}))
        self.dqn = DQNPolicy(self.dqn_cfg.policy, model=DQN(**self.dqn_cfg.policy.model))
        self.ppo = PPOPolicy(self.ppo_cfg.policy, model=VAC(**self.ppo_cfg.policy.model))
        self.buffer = DequeBuffer(size=100)
        self.env = BaseEnvManagerV2([lambda: DingEnvWrapper(gym.make('CartPole-v1'))], self.dqn_cfg.env.manager)
        self.dataset = _TinyDataset(np)

    def path(self, name: str) -> str:
        return os.path.join(self.workdir, name)


class _TinyDataset:
    """Four transitions in columns, as `create_dataset` gives them."""

    def __init__(self, np) -> None:
        from ding.data.batch import Batch
        self.batch = Batch({'obs': np.zeros((4, 4), np.float32), 'action': np.zeros(4, np.int64),
                            'reward': np.zeros(4, np.float32), 'done': np.zeros(4, bool),
                            'next_obs': np.zeros((4, 4), np.float32)})

    def __len__(self) -> int:
        return 4


def _her(kit: Kit):
    from ding.reward_model import HerRewardModel
    return HerRewardModel({'her_strategy': 'future', 'her_replay_k': 1, 'episode_size': 2,
                           'sample_per_episode': 4})


def _rnd(kit: Kit):
    from ding.reward_model import RndRewardModel
    return RndRewardModel({'obs_shape': 4, 'hidden_size_list': [8, 8]})


def _metric():
    class Accuracy:
        def eval(self, output, label): return float(output == label)
        def reduce_mean(self, values): return sum(values) / len(values)
        def gt(self, a, b): return a > b
    return Accuracy()


# (exported name, variant shown in the table or '', builder). One row per entry.
RECIPES: List[Tuple[str, str, Callable[[Any, Kit], Any]]] = [
    ('interaction_evaluator', '', lambda m, k: m.interaction_evaluator(k.dqn_cfg, k.dqn.eval_mode, k.env)),
    ('interaction_evaluator_ttorch', '', lambda m, k: m.interaction_evaluator_ttorch(0, k.dqn, k.env)),
    ('metric_evaluator', '', lambda m, k: m.metric_evaluator(k.dqn_cfg, k.dqn.eval_mode, [], _metric())),
    ('eps_greedy_handler', '', lambda m, k: m.eps_greedy_handler(k.dqn_cfg)),
    ('eps_greedy_masker', '', lambda m, k: m.eps_greedy_masker()),
    ('inferencer', '', lambda m, k: m.inferencer(0, k.dqn.collect_mode, k.env)),
    ('rolloutor', '', lambda m, k: m.rolloutor(k.dqn.collect_mode, k.env, m.TransitionList(k.env.env_num))),
    ('StepCollector', '', lambda m, k: m.StepCollector(k.dqn_cfg, k.dqn.collect_mode, k.env)),
    ('EpisodeCollector', '', lambda m, k: m.EpisodeCollector(k.episode_cfg, k.dqn.collect_mode, k.env)),
    ('data_pusher', '', lambda m, k: m.data_pusher(k.dqn_cfg, k.buffer)),
    ('sqil_data_pusher', '', lambda m, k: m.sqil_data_pusher(k.dqn_cfg, k.buffer, expert=True)),
    ('buffer_saver', '', lambda m, k: m.buffer_saver(k.dqn_cfg, k.buffer)),
    ('offline_data_saver', '', lambda m, k: m.offline_data_saver(k.path('data.pkl'), 'naive')),
    ('offpolicy_data_fetcher', '', lambda m, k: m.offpolicy_data_fetcher(k.dqn_cfg, k.buffer)),
    ('offline_data_fetcher', '', lambda m, k: m.offline_data_fetcher(k.dqn_cfg, k.dataset)),
    ('OfflineRunStateSaver', '', lambda m, k: m.OfflineRunStateSaver(k.path('offline'), k.dqn)),
    ('trainer', '', lambda m, k: m.trainer(k.dqn_cfg, k.dqn.learn_mode)),
    ('multistep_trainer', '', lambda m, k: m.multistep_trainer(k.ppo.learn_mode)),
    ('OffPolicyLearner', '', lambda m, k: m.OffPolicyLearner(k.dqn_cfg, k.dqn.learn_mode, k.buffer)),
    ('HERLearner', '', lambda m, k: m.HERLearner(k.dqn_cfg, k.dqn.learn_mode, k.buffer, _her(k))),
    ('nstep_reward_enhancer', '', lambda m, k: m.nstep_reward_enhancer(k.dqn_cfg)),
    ('priority_calculator', '', lambda m, k: m.priority_calculator(lambda batch: None)),
    ('reward_estimator', '', lambda m, k: m.reward_estimator(k.dqn_cfg, _rnd(k))),
    ('reward_model_trainer', '', lambda m, k: m.reward_model_trainer(k.dqn_cfg, _rnd(k))),
    ('her_data_enhancer', '', lambda m, k: m.her_data_enhancer(k.dqn_cfg, k.buffer, _her(k))),
    ('gae_estimator', 'writes train_data', lambda m, k: m.gae_estimator(k.ppo_cfg, k.ppo.collect_mode)),
    ('gae_estimator', 'with a buffer_', lambda m, k: m.gae_estimator(k.ppo_cfg, k.ppo.collect_mode, k.buffer)),
    ('montecarlo_return_estimator', '', lambda m, k: m.montecarlo_return_estimator(k.ppo.collect_mode)),
    ('CkptSaver', '', lambda m, k: m.CkptSaver(k.dqn, k.path('ckpt'), train_freq=100)),
    ('termination_checker', '', lambda m, k: m.termination_checker(max_env_step=100, max_train_iter=10)),
    ('online_logger', '', lambda m, k: m.online_logger()),
    ('offline_logger', '', lambda m, k: m.offline_logger()),
    ('final_ctx_saver', '', lambda m, k: m.final_ctx_saver(k.path('final'))),
    ('epoch_timer', '', lambda m, k: m.epoch_timer()),
    ('ContextExchanger', 'one process', lambda m, k: m.ContextExchanger()),
    ('ModelExchanger', 'one process', lambda m, k: m.ModelExchanger(k.dqn._model)),
    ('PeriodicalModelExchanger', 'one process', lambda m, k: m.PeriodicalModelExchanger(k.dqn._model)),
    ('Barrier', 'one process', lambda m, k: m.Barrier()),
    ('RunStateSaver', '', lambda m, k: m.RunStateSaver(k.path('run'), k.dqn, k.buffer, k.env)),
    ('progress_reporter', '', lambda m, k: m.progress_reporter(k.path('progress'), show=False)),
]
# Middleware whose construction needs an optional package; built only when it is installed.
OPTIONAL = {'wandb_online_logger': 'wandb', 'wandb_offline_logger': 'wandb'}


def exported_middleware() -> List[str]:
    from ding.framework.middleware import _EXPORTS
    return [name for name in _EXPORTS if name not in NOT_MIDDLEWARE]


def _summary(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ''
    return md_cell(doc.split('\n\n')[0])


def contract_rows() -> List[Dict[str, Any]]:
    """One dict per recipe: name, variant, reads, writes, fresh_weights, summary."""
    import ding.framework.middleware as mw
    from ding.framework.contract import has_contract
    missing = sorted(set(exported_middleware()) - {r[0] for r in RECIPES} - set(OPTIONAL))
    if missing:
        raise RuntimeError(f'middleware_reference: no recipe for exported middleware {missing}; add one to RECIPES')
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        kit = Kit(workdir)
        for name, variant, build in RECIPES:
            built = build(mw, kit)
            if not has_contract(built):
                raise RuntimeError(f'middleware_reference: {name} declares no contract')
            rows.append(dict(name=name, variant=variant, reads=built.reads, writes=built.writes,
                             fresh_weights=getattr(built, 'fresh_weights', False),
                             summary=_summary(getattr(mw, name))))
    return rows


def _fields(names) -> str:
    return ', '.join(f'`{n}`' for n in names) or '-'


def render() -> str:
    from ding.framework.middleware import _EXPORTS
    lines = ['# Middleware reference', '',
             'Generated at build time: each middleware below was built (from CartPole DQN/PPO configs and policies) '
             'and its declared contract read (`ding.framework.contract`). The task logs the same columns for a '
             'pipeline at start (`task.pipeline_table()`) and warns when a middleware reads a ctx field nothing '
             'before it writes. *fresh weights*: an on-policy stage that async mode never lets run ahead of the '
             'learner.', '',
             '| middleware | module | reads | writes | |', '|---|---|---|---|---|']
    for row in contract_rows():
        label = f"`{row['name']}`" + (f" ({row['variant']})" if row['variant'] else '')
        notes = '*fresh weights* ' if row['fresh_weights'] else ''
        lines.append(f"| {label} | `{_EXPORTS[row['name']]}` | {_fields(row['reads'])} | {_fields(row['writes'])} | "
                     f"{notes}{row['summary']} |")
    lines += ['', 'The exchangers are no-ops in one process. In a distributed run they are replaced by the Ray '
              'implementations of `ding/framework/distributed/exchangers.py`, which declare their own contracts '
              '(the context exchanger writes the fields it receives); see [Distributed](../distributed.md).']
    optional = [n for n in OPTIONAL if n in _EXPORTS]
    if optional:
        lines += ['', 'Not built here because they need an optional package: ' +
                  ', '.join(f'`{n}` (`{OPTIONAL[n]}`)' for n in optional) + '; see their docstrings.']
    return '\n'.join(lines) + '\n'
