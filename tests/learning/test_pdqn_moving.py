"""PDQN learns Moving-v0 (dizoo/gym_hybrid): after a short run (8000 env steps, the target circle
widened to radius 0.2 to fit a CPU test) its greedy policy beats a random hybrid policy clearly,
on the same 20 start states. The run is seeded, so it repeats exactly (measured: greedy mean
0.73 with 14 of 20 episodes stopped in the target, random -0.97; about 10 s CPU)."""
import gymnasium
import numpy as np
import pytest
import torch

from dizoo.gym_hybrid.entry.gym_hybrid_pdqn_main import main

SMALL = dict(  # the config's training numbers; fewer envs, no evaluation during training
    env=dict(collector_env_num=8, evaluator_env_num=1, n_evaluator_episode=1, stop_value=1e9),
    policy=dict(cuda=False, eval=dict(evaluator=dict(eval_freq=10 ** 9))),
)

WIDE = dict(target_radius=0.2)


def episode_returns(act, seeds, **kw):
    env = gymnasium.make('Moving-v0', **kw)
    returns = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(obs))
            total += reward
            done = terminated or truncated
        returns.append(total)
    return np.array(returns)


@pytest.mark.slow
def test_pdqn_beats_random_on_moving(tmp_path):
    ctx = main(seed=0, max_env_step=8000, exp_name=str(tmp_path / 'pdqn'), overrides=SMALL, env_kwargs=WIDE)
    policy = ctx.policy.eval_mode
    seeds = range(1000, 1020)

    def greedy(obs):
        out = policy.forward_batch(torch.as_tensor(obs[None]))['action']
        return {'action_type': int(out['action_type'][0]), 'action_args': np.asarray(out['action_args'][0])}

    rng = np.random.default_rng(0)
    learned = episode_returns(greedy, seeds, **WIDE)
    random = episode_returns(lambda obs: (int(rng.integers(3)), rng.uniform(-1, 1, 2)), seeds, **WIDE)
    assert learned.mean() > random.mean() + 0.5, (learned, random)
    assert (learned > 0).sum() >= 5, learned  # a positive return means it stopped inside the target
