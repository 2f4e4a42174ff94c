"""`RLAgent`: one-line training and deployment on top of the tuned configs (`ding/config/tuned/*.yaml`).

    agent = DQNAgent(env_id='CartPole-v1', seed=0, exp_name='cartpole_dqn')
    agent.train(step=100_000)                  # the `ding train` pipeline, resumable
    agent.best.deploy(enable_save_replay=True)  # best checkpoint, one episode, a GIF
    agent.batch_evaluate(env_num=4, n_evaluator_episode=4)

The agent keeps its policy between calls; the run directory is `exp_name` (reused, not
renamed, so a later agent with the same exp_name finds the checkpoints).
"""
import copy
import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional

import numpy as np
import torch
from easydict import EasyDict

from ding.utils.checkpoint_io import load_checkpoint
from ding.utils.dicts import deep_merge
from ding.utils.run_dir import EVAL_CKPT_NAME, RunDir


@dataclass
class TrainingReturn:
    wandb_url: str = ''
    env_step: int = 0
    train_iter: int = 0
    eval_value: float = float('-inf')


@dataclass
class EvalReturn:
    eval_value: float
    eval_value_std: float


class RLAgent:
    """Base of the algorithm agents: subclasses set `algo` (a name in the tuned table)."""
    algo: str = ''

    def __init__(self, env_id: Optional[str] = None, seed: int = 0, exp_name: Optional[str] = None,
                 model: Optional[torch.nn.Module] = None, cfg: Optional[Mapping] = None,
                 policy_state_dict: Optional[Mapping] = None) -> None:
        from ding.config import compile_config
        from ding.entry.catalog import find_tuned
        from ding.entry.pipeline import make_policy
        from ding.utils import set_pkg_seed
        if env_id is None:
            raise ValueError(f'{type(self).__name__} needs env_id (see `ding list` for the tuned pairs)')
        tuned = find_tuned(self.algo, env_id, offline=False)  # an agent trains online
        main, create = tuned.load()
        if cfg is not None:  # a full main_config or just the keys to change
            main = EasyDict(deep_merge(main, copy.deepcopy(dict(cfg))))
        self.env_id, self.seed = tuned.env, seed
        main.exp_name = exp_name or f'{self.algo}_{tuned.env.lower()}_seed{seed}'
        self.cfg = compile_config(main, create_cfg=create, auto=True, seed=seed, renew_dir=False)
        self.exp_name = self.cfg.exp_name
        self._user = (main, create, tuned)
        set_pkg_seed(seed, use_cuda=self.cfg.policy.cuda)
        self.policy = make_policy(self.cfg) if model is None else self._policy_with(model)
        if policy_state_dict is not None:
            self.policy.learn_mode.load_state_dict(policy_state_dict)

    def _policy_with(self, model: torch.nn.Module) -> Any:
        from ding.utils.registry import POLICY_REGISTRY
        return POLICY_REGISTRY.lookup(self.cfg.policy.type)(self.cfg.policy, model=model)

    def train(self, step: int = int(1e7), collector_env_num: Optional[int] = None,
              evaluator_env_num: Optional[int] = None, n_iter_save_ckpt: int = 1000, checkpoint_freq: int = 10000,
              debug: bool = False, **kwargs: Any) -> TrainingReturn:
        """Train for `step` env steps (or until the stop value), writing the run directory."""
        from ding.config.io import to_plain
        from ding.entry.pipeline import RunOptions, build_parts, run_training
        cfg = copy.deepcopy(self.cfg)
        if collector_env_num:
            cfg.env.collector_env_num = collector_env_num
        if evaluator_env_num:
            cfg.env.evaluator_env_num = evaluator_env_num
        main, create, tuned = self._user
        RunDir(self.exp_name).write_meta({
            'algo': self.algo, 'env': self.env_id, 'source': tuned.path, 'seed': self.seed, 'max_env_step': step,
            'checkpoint_freq': checkpoint_freq, 'progress': True, 'exp_name': self.exp_name,
            'main_config': to_plain(deep_merge(main, {'env': dict(cfg.env)})), 'create_config': to_plain(create)})
        parts = build_parts(cfg, policy=self.policy)
        try:
            ctx = run_training(cfg, parts, RunOptions(max_env_step=step, checkpoint_freq=checkpoint_freq,
                                                      ckpt_train_freq=n_iter_save_ckpt, progress=not debug))
        finally:
            parts.close()
        return TrainingReturn(ctx.wandb_url, ctx.env_step, ctx.train_iter, ctx.last_eval_value)

    def deploy(self, enable_save_replay: bool = False, concatenate_all_replay: bool = False,
               replay_save_path: Optional[str] = None, seed: Optional[int] = None, debug: bool = False) -> EvalReturn:
        """One greedy episode; with `enable_save_replay` a GIF in `<exp_name>/videos/`."""
        from ding.entry.evaluate import make_eval_env, play, write_video
        env = make_eval_env(self.cfg, render=enable_save_replay)
        try:
            returns, frames = play(self.policy, env, 1, self.seed if seed is None else seed, enable_save_replay)
        finally:
            env.close()
        if enable_save_replay:
            path = replay_save_path or os.path.join(RunDir(self.exp_name).videos_dir, 'deploy.gif')
            write_video(frames, path, fps=25)
        return EvalReturn(float(returns[0]), 0.0)

    def batch_evaluate(self, env_num: int = 4, n_evaluator_episode: int = 4, debug: bool = False,
                       **kwargs: Any) -> EvalReturn:
        """`n_evaluator_episode` greedy episodes over `env_num` envs (as the evaluator runs them)."""
        from ding.entry.pipeline import make_env_manager
        from ding.framework.middleware.evaluator import run_episodes
        cfg = copy.deepcopy(self.cfg)
        cfg.env.evaluator_env_num = env_num
        env = make_env_manager(cfg, collect=False)
        try:
            returns = run_episodes(self.policy.eval_mode, env, n_evaluator_episode, self.seed)
        finally:
            env.close()
        return EvalReturn(float(np.mean(returns)), float(np.std(returns)))

    @property
    def best(self) -> 'RLAgent':
        """This agent with the weights of its best evaluation (`ckpt/eval.pth.tar`), if saved."""
        path = os.path.join(RunDir(self.exp_name).ckpt_dir, EVAL_CKPT_NAME)
        if os.path.isfile(path):
            self.policy.learn_mode.load_state_dict(load_checkpoint(path))  # a truncated file: CheckpointError
        return self
