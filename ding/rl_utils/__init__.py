"""Losses and estimators, each one readable function: TD, GAE, PPO, A2C, PG, SAC/TD3 targets."""
from ding.utils.lazy import lazy_exports

# public name -> the module defining it; imported on first use
_EXPORTS = {
    # TD targets and target nets (every value learner)
    'nstep_return': 'td',
    'td_target': 'td',
    'critic_loss': 'td',
    'soft_update': 'td',
    # off-policy actor-critic (SAC, TD3, DDPG)
    'tanh_gaussian_sample': 'sac',
    'soft_q_target': 'sac',
    'sac_actor_loss': 'sac',
    'alpha_loss': 'sac',
    'discrete_soft_q_target': 'sac',
    'discrete_sac_actor_loss': 'sac',
    'smoothed_target_action': 'td3',
    'td3_q_target': 'td3',
    'deterministic_actor_loss': 'td3',
    # offline RL (BC, CQL, TD3+BC, IQL)
    'bc_continuous_loss': 'offline',
    'bc_discrete_loss': 'offline',
    'cql_penalty': 'offline',
    'discrete_cql_penalty': 'offline',
    'td3_bc_actor_loss': 'offline',
    'expectile_loss': 'offline',
    'awr_actor_loss': 'offline',
    'tanh_gaussian_log_prob': 'offline',
    'vae_loss': 'offline',
    'bcq_soft_clipped_value': 'offline',
    # on-policy (PPO, A2C, PG)
    'gae': 'returns',
    'discounted_return': 'returns',
    'ppo_policy_loss': 'ppo',
    'ppo_value_loss': 'ppo',
    'ppo_loss': 'ppo',
    'a2c_loss': 'a2c',
    'pg_loss': 'pg',
    'normalize_advantage': 'adv_norm',
    # Q-learning (DQN): TD errors and epsilon-greedy exploration
    'q_nstep_td_error': 'td',
    'q_1step_td_error': 'td',
    'bootstrap_q': 'td',
    'QTDOutput': 'td',
    # distributional Q-learning (C51 / Rainbow, QR-DQN, IQN, FQF)
    'categorical_projection': 'distributional',
    'dist_nstep_td_error': 'distributional',
    'quantile_huber_loss': 'quantile',
    'qrdqn_nstep_td_error': 'quantile',
    'iqn_nstep_td_error': 'quantile',
    'fqf_fraction_loss': 'quantile',
    # recurrent Q-learning (R2D2): value rescaling and the loss over replayed sequences
    'value_transform': 'value_rescale',
    'value_inv_transform': 'value_rescale',
    'r2d2_sequence_td_error': 'r2d2',
    'sequence_valid_mask': 'r2d2',
    'sequence_priority': 'r2d2',
    'get_epsilon_greedy_fn': 'exploration',
    'epsilon_greedy': 'exploration',
    # soft Q-learning (SQL)
    'q_nstep_sql_td_error': 'sql',
    'soft_value': 'sql',
    'boltzmann_action': 'sql',
    # reward learning from ranked demonstrations (T-REX)
    'trex_ranking_loss': 'trex',
    'trex_preference_accuracy': 'trex',
    # off-policy actor-critic over trajectories (IMPALA): V-trace
    'vtrace': 'vtrace',
    'vtrace_data': 'vtrace',
    'vtrace_loss': 'vtrace',
    'vtrace_actor_critic_loss': 'vtrace',
    'vtrace_error_discrete_action': 'vtrace',
    'vtrace_error_continuous_action': 'vtrace',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
