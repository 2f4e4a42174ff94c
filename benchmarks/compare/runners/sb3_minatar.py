"""SB3's DQN and sb3-contrib's QR-DQN on MinAtar (benchmarks `dqn_minatar_breakout`,
`qrdqn_minatar_breakout`), inside the `sb3` venv.

The RL Zoo has no MinAtar settings, so these are the MinAtar paper's DQN settings (Young &
Tian 2019, table 2): its network (one 3x3 conv of 16 channels, 128 units), batch 32, replay
100k, training from 5k steps with one update per step, target copy every 1k updates, RMSProp
(lr 2.5e-4, squared-gradient momentum 0.95, min squared gradient 0.01, centered), epsilon
1.0 -> 0.1 over the first 100k steps, gamma 0.99, no gradient clipping. QR-DQN takes the same,
with sb3-contrib's 200 quantiles. Our runner takes the same recipe from
dizoo/minatar/config/breakout_{dqn,qrdqn}_paper_config.py.
"""
from typing import Any, Dict, Tuple

MINATAR_PAPER_DQN = dict(learning_rate=2.5e-4, batch_size=32, buffer_size=100_000, learning_starts=5000, gamma=0.99,
                         target_update_interval=1000, train_freq=1, gradient_steps=1, exploration_initial_eps=1.0,
                         exploration_final_eps=0.1, exploration_steps=100_000)


def minatar_extractor() -> type:
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn

    class MinAtarCNN(BaseFeaturesExtractor):
        """[B, 10, 10, C] channels-last grids -> one 3x3 conv of 16 channels -> 128 units."""

        def __init__(self, observation_space: Any, features_dim: int = 128) -> None:
            super().__init__(observation_space, features_dim)
            h, w, c = observation_space.shape
            self.net = nn.Sequential(nn.Conv2d(c, 16, 3, 1), nn.ReLU(), nn.Flatten(),
                                     nn.Linear(16 * (h - 2) * (w - 2), features_dim), nn.ReLU())

        def forward(self, obs: torch.Tensor) -> torch.Tensor:
            return self.net(obs.float().permute(0, 3, 1, 2))

    return MinAtarCNN


def build_minatar_model(algo: str, env_id: str, seed: int, budget: int) -> Tuple[Any, Dict[str, Any]]:
    import torch
    from stable_baselines3 import DQN
    from stable_baselines3.common.env_util import make_vec_env

    from benchmark_specs import make_env
    policy_kwargs = dict(features_extractor_class=minatar_extractor(), features_extractor_kwargs=dict(features_dim=128),
                         net_arch=[], optimizer_class=torch.optim.RMSprop,
                         optimizer_kwargs=dict(alpha=0.95, eps=0.01, centered=True))
    extra = {}
    if algo == 'dqn_minatar':
        cls = DQN
        # SB3's DQN clips the gradient norm at 10 by default; the paper does not clip (an infinite
        # bound scales by 1). sb3-contrib's QR-DQN does not clip by default.
        extra['max_grad_norm'] = float('inf')
    elif algo == 'qrdqn_minatar':
        from sb3_contrib import QRDQN
        cls = QRDQN
        policy_kwargs['n_quantiles'] = 200
    else:
        raise ValueError(f'sb3 MinAtar runner has no algorithm {algo!r}')
    kwargs = {k: v for k, v in MINATAR_PAPER_DQN.items() if k != 'exploration_steps'}
    model = cls('MlpPolicy', make_vec_env(lambda: make_env(env_id), n_envs=1, seed=seed),
                exploration_fraction=MINATAR_PAPER_DQN['exploration_steps'] / budget, policy_kwargs=policy_kwargs,
                seed=seed, device='cpu', **kwargs, **extra)
    hp = dict(MINATAR_PAPER_DQN, optimizer='RMSprop(alpha=0.95, eps=0.01, centered=True)',
              network='conv16 3x3 -> 128 (MinAtar paper)', gradient_clipping='none', td_loss='huber',
              double_dqn=False)
    if 'n_quantiles' in policy_kwargs:
        hp['n_quantiles'] = policy_kwargs['n_quantiles']
    return model, hp
