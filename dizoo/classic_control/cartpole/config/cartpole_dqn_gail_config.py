"""GAIL + DQN on CartPole-v0: the keys and values of DI-engine's `cartpole_dqn_gail_config`.
The discriminator sees (obs, action) pairs, 4 + 1 = `input_size` 5. Its expert data is
`<reward_model.data_path>/expert_data.pkl` (a pickled list of transitions; DI-engine's
`serial_pipeline_gail` first collects `collect_count` of them with the policy saved at
`expert_model_path` and sets data_path to exp_name when it is unset; that entry is not ported:
make the file with `ding collect` or hand the data to `GailRewardModel.load_expert_data`).
In a task pipeline: `trainer(cfg, reward_model)` after the collector (DI-engine's
collect -> reward_model.collect_data -> train -> clear_data), then
`OffPolicyLearner(cfg, policy.learn_mode, buffer_, reward_model)`, which trains on -log D(s, a)."""
import copy

from easydict import EasyDict

from dizoo.classic_control.cartpole.config.cartpole_dqn_config import cartpole_dqn_config, cartpole_dqn_create_config

# DI-engine's values: the DQN example's but 3 updates per 64 collected steps, evaluations every 10
cartpole_dqn_gail_config = EasyDict(copy.deepcopy(cartpole_dqn_config))
cartpole_dqn_gail_config.exp_name = 'cartpole_dqn_gail_seed0'
cartpole_dqn_gail_config.policy.cuda = False
cartpole_dqn_gail_config.policy.learn.update_per_collect = 3
cartpole_dqn_gail_config.policy.collect.n_sample = 64
cartpole_dqn_gail_config.policy.eval.evaluator.eval_freq = 10
cartpole_dqn_gail_config.reward_model = EasyDict(
    type='gail',
    input_size=5,
    hidden_size=64,
    batch_size=64,
    learning_rate=1e-3,
    update_per_collect=100,
    # the expert policy's checkpoint (DI-engine: used to collect the expert data first)
    expert_model_path='model_path_placeholder',
    collect_count=1000,
)
main_config = cartpole_dqn_gail_config
cartpole_dqn_gail_create_config = EasyDict(copy.deepcopy(cartpole_dqn_create_config))
create_config = cartpole_dqn_gail_create_config
