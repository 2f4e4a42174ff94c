"""A policy, an env and an env manager written only against DI-engine's protocols (no
`forward_batch`, no `step_batch`): what a DI-engine user brings. Used by
test_di_engine_protocols.py."""
import copy
from typing import Any, Dict, List

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F

from ding.envs import BaseEnv, BaseEnvTimestep
from ding.policy import Policy


class DIStyleCartPoleEnv(BaseEnv):
    """CartPole-v0 (200-step cap) the way DI-engine's dizoo env is written."""

    def __init__(self, cfg: dict = None) -> None:
        self._cfg = cfg or {}
        self._init_flag = False
        self._observation_space = gym.spaces.Box(-np.inf, np.inf, shape=(4, ), dtype=np.float32)
        self._action_space = gym.spaces.Discrete(2)
        self._reward_space = gym.spaces.Box(low=0.0, high=1.0, shape=(1, ), dtype=np.float32)

    def reset(self) -> np.ndarray:
        if not self._init_flag:
            self._env = gym.make('CartPole-v1', max_episode_steps=200)
            self._init_flag = True
        if hasattr(self, '_seed') and self._dynamic_seed:
            np_seed = 100 * np.random.randint(1, 1000)
            obs, _ = self._env.reset(seed=self._seed + np_seed)
        elif hasattr(self, '_seed'):
            obs, _ = self._env.reset(seed=self._seed)
        else:
            obs, _ = self._env.reset()
        self._eval_episode_return = 0.
        return np.asarray(obs, dtype=np.float32)

    def step(self, action: Any) -> BaseEnvTimestep:
        if isinstance(action, np.ndarray) and action.shape == (1, ):
            action = action.squeeze()
        obs, rew, terminated, truncated, info = self._env.step(int(action))
        done = terminated or truncated
        self._eval_episode_return += rew
        if done:
            info['eval_episode_return'] = self._eval_episode_return
            info['TimeLimit.truncated'] = truncated and not terminated
        return BaseEnvTimestep(np.asarray(obs, dtype=np.float32), np.array([rew], dtype=np.float32), done, info)

    def seed(self, seed: int, dynamic_seed: bool = True) -> None:
        self._seed = seed
        self._dynamic_seed = dynamic_seed
        np.random.seed(self._seed)

    def close(self) -> None:
        if self._init_flag:
            self._env.close()
        self._init_flag = False

    @property
    def observation_space(self):
        return self._observation_space

    @property
    def action_space(self):
        return self._action_space

    @property
    def reward_space(self):
        return self._reward_space

    def __repr__(self) -> str:
        return 'DI-style CartPole'


class DIStyleDQNPolicy(Policy):
    """A minimal DQN written against DI-engine's Policy protocol: dict-by-env-id acting,
    `_process_transition`, a list of transition dicts to learn from."""
    config = dict(
        type='di_style_dqn',
        cuda=False,
        on_policy=False,
        priority=False,
        discount_factor=0.97,
        nstep=1,
        model=dict(),
        learn=dict(update_per_collect=5, batch_size=64, learning_rate=0.001, target_update_freq=100),
        collect=dict(n_sample=8, unroll_len=1),
        eval=dict(evaluator=dict(eval_freq=40)),
        other=dict(eps=dict(type='exp', start=0.95, end=0.1, decay=10000),
                   replay_buffer=dict(replay_buffer_size=20000)),
    )

    def default_model(self):
        return 'dqn', ['ding.model.template.q_learning']

    def _init_learn(self) -> None:
        self._optimizer = torch.optim.Adam(self._model.parameters(), lr=self._cfg.learn.learning_rate)
        self._gamma = self._cfg.discount_factor
        self._learn_model = self._model
        self._target_model = copy.deepcopy(self._model)
        self._update_count = 0

    def _forward_learn(self, data: List[Dict[str, Any]]) -> Dict[str, Any]:
        obs = torch.stack([d['obs'] for d in data]).float()
        next_obs = torch.stack([d['next_obs'] for d in data]).float()
        action = torch.stack([torch.as_tensor(d['action']) for d in data]).long().view(-1)
        reward = torch.stack([torch.as_tensor(d['reward']) for d in data]).float().view(-1)
        done = torch.stack([torch.as_tensor(d['done']) for d in data]).float().view(-1)
        self._learn_model.train()
        q = self._learn_model(obs)['logit'].gather(1, action[:, None]).squeeze(1)
        with torch.no_grad():
            next_action = self._learn_model(next_obs)['logit'].argmax(-1, keepdim=True)
            next_q = self._target_model(next_obs)['logit'].gather(1, next_action).squeeze(1)
            target = reward + self._gamma * (1 - done) * next_q
        loss = F.mse_loss(q, target)
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()
        self._update_count += 1
        if self._update_count % self._cfg.learn.target_update_freq == 0:
            self._target_model.load_state_dict(self._learn_model.state_dict())
        return {'cur_lr': self._optimizer.param_groups[0]['lr'], 'total_loss': loss.item(),
                'q_value': q.mean().item()}

    def _monitor_vars_learn(self) -> List[str]:
        return ['cur_lr', 'total_loss', 'q_value']

    def _state_dict_learn(self) -> Dict[str, Any]:
        return {'model': self._learn_model.state_dict(), 'target_model': self._target_model.state_dict(),
                'optimizer': self._optimizer.state_dict()}

    def _load_state_dict_learn(self, state_dict: Dict[str, Any]) -> None:
        self._learn_model.load_state_dict(state_dict['model'])
        self._target_model.load_state_dict(state_dict['target_model'])
        self._optimizer.load_state_dict(state_dict['optimizer'])

    def _init_collect(self) -> None:
        self._collect_model = self._model  # DI-engine acts with a wrapper sharing the learner's weights

    def _forward_collect(self, data: Dict[int, Any], eps: float) -> Dict[int, Any]:
        data_id = list(data.keys())
        obs = torch.stack([data[i] for i in data_id]).float()
        self._collect_model.eval()
        with torch.no_grad():
            logit = self._collect_model(obs)['logit']
        action = logit.argmax(-1)
        explore = torch.rand(len(data_id)) < eps
        action[explore] = torch.randint(0, logit.shape[-1], (int(explore.sum()), ))
        return {i: {'action': action[k], 'logit': logit[k]} for k, i in enumerate(data_id)}

    def _process_transition(self, obs: Any, policy_output: Dict[str, Any], timestep: Any) -> Dict[str, Any]:
        return {'obs': obs, 'next_obs': timestep.obs, 'action': policy_output['action'],
                'reward': timestep.reward, 'done': timestep.done}

    def _get_train_sample(self, data: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        return data

    def _init_eval(self) -> None:
        self._eval_model = self._model

    def _forward_eval(self, data: Dict[int, Any]) -> Dict[int, Any]:
        data_id = list(data.keys())
        obs = torch.stack([data[i] for i in data_id]).float()
        self._eval_model.eval()
        with torch.no_grad():
            logit = self._eval_model(obs)['logit']
        return {i: {'action': logit[k].argmax(-1), 'logit': logit[k]} for k, i in enumerate(data_id)}


class DIStyleEnvManager:
    """A serial manager in DI-engine's V1 form: `ready_obs` is `{env_id: obs}`, `step({env_id:
    action})` steps only the env ids given and returns `{env_id: timestep}`, finished envs
    reset at once, `launch(reset_param={env_id: {...}})`."""

    def __init__(self, env_fn, cfg=None):
        self._env_fn = list(env_fn)
        self.env_num = len(self._env_fn)
        self.closed = True
        self._seeds = None
        self.stepped_ids = []  # env ids of each step() call, for the tests

    def launch(self, reset_param=None):
        assert self.closed, 'close() first'
        if reset_param is not None:
            assert len(reset_param) == self.env_num
        self._envs = [fn() for fn in self._env_fn]
        self._reset_param = {i: {} for i in range(self.env_num)}
        self.closed = False
        self.reset(reset_param)

    def reset(self, reset_param=None):
        ids = range(self.env_num) if reset_param is None else list(reset_param)
        for i in ids:
            if reset_param is not None:
                self._reset_param[i] = reset_param[i]
            if self._seeds is not None:
                self._envs[i].seed(self._seeds[i], self._dynamic_seed)
        self._obs = getattr(self, '_obs', {})
        for i in ids:
            self._obs[i] = self._envs[i].reset(**self._reset_param[i])

    def seed(self, seed, dynamic_seed=True):
        self._seeds = [seed + i for i in range(self.env_num)]
        self._dynamic_seed = dynamic_seed

    @property
    def ready_obs(self):
        return dict(self._obs)

    def step(self, actions):
        self.stepped_ids.append(sorted(actions))
        timesteps = {}
        for i, action in actions.items():
            timesteps[i] = self._envs[i].step(action)
            self._obs[i] = self._envs[i].reset(**self._reset_param[i]) if timesteps[i].done else timesteps[i].obs
        return timesteps

    def close(self):
        if not self.closed:
            for env in self._envs:
                env.close()
        self.closed = True

    @property
    def observation_space(self):
        return self._env_fn[0]().observation_space

    @property
    def action_space(self):
        return self._env_fn[0]().action_space
