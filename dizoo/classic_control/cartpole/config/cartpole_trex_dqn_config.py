"""T-REX + DQN on CartPole-v0: the keys and values of DI-engine's `cartpole_trex_dqn_config`
(its `ding/example/trex.py` runs on it). The ranked demonstrations come from the DQN example's
run (`cartpole_dqn_config`, exp_name `cartpole_dqn_seed0`): one episode with each of its
checkpoints `ckpt/iteration_{0, 100, ..., 500}.pth.tar`, later ones counting as better
(`ding.entry.trex_collecting_data`, which writes them under this exp_name)."""
import copy

from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_dqn_config import cartpole_dqn_config, cartpole_dqn_create_config

# DI-engine's values: the DQN example's, plus the reward model
cartpole_trex_dqn_config = EasyDict(copy.deepcopy(cartpole_dqn_config))
cartpole_trex_dqn_config.exp_name = 'cartpole_trex_dqn_seed0'
cartpole_trex_dqn_config.policy.cuda = False
cartpole_trex_dqn_config.reward_model = EasyDict(
    type='trex',
    min_snippet_length=5,
    max_snippet_length=100,
    checkpoint_min=0,
    checkpoint_max=500,
    checkpoint_step=100,
    learning_rate=1e-5,
    update_per_collect=1,
    num_trajs=6,
    num_snippets=6000,
    expert_model_path='cartpole_dqn_seed0',  # the expert run's folder, relative to the working directory
)
main_config = cartpole_trex_dqn_config
cartpole_trex_dqn_create_config = EasyDict(copy.deepcopy(cartpole_dqn_create_config))
create_config = cartpole_trex_dqn_create_config
