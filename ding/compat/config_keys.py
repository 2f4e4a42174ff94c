"""Keys of DI-engine's dizoo configs that ding accepts without acting on them: one warning each,
naming the key and what it was for (or what to use instead). `import ding` installs
`split_accepted` as the config check's filter (ding/utils/protocol_adapters.py); any other
undeclared key stays an error.
"""
import logging
from typing import Iterable, List, Optional, Tuple

logger = logging.getLogger('ding.config')

# Real DI-engine keys that ding accepts and ignores, by dotted path, with what they are for (or
# what to use instead). `X.*` stands for the section X given as a whole where ding declares no
# such section; below a section ding declares, each DI-engine key is listed, so a misspelt key
# there still fails.
ACCEPTED_UNUSED = {
    'policy.learn.learner.train_iterations': "DI-engine's serial learner (bound runs with --max-train-iter)",
    'policy.learn.learner.dataloader': "DI-engine's serial learner data loader",
    'policy.learn.learner.log_policy': "DI-engine's serial learner",
    'policy.learn.learner.load_path': "DI-engine's serial learner (use learner.hook.load_ckpt_before_run)",
    'policy.learn.learner.save_path': "DI-engine's serial learner",
    'policy.collect.collector.*': "DI-engine's serial collector options; StepCollector takes its own arguments",
    'policy.eval.evaluator.render': "DI-engine's evaluator rendering (use `ding eval --render`)",
    'policy.eval.evaluator.figure_path': "DI-engine's evaluator figures",
    'policy.eval.evaluator.n_episode': 'the evaluation episode count comes from env.n_evaluator_episode',
    'policy.eval.evaluator.stop_value': 'the stop value comes from env.stop_value',
    'policy.other.replay_buffer.max_use': "DI-engine's per-sample use limit",
    'policy.other.replay_buffer.max_staleness': "DI-engine's staleness limit",
    'policy.other.replay_buffer.deepcopy': "DI-engine's deep copy on sample",
    'policy.other.replay_buffer.enable_track_used_data': "DI-engine's used-data tracking",
    'policy.other.replay_buffer.periodic_thruput_seconds': "DI-engine's throughput log",
    'policy.other.replay_buffer.thruput_controller': "DI-engine's throughput control",
    'policy.other.replay_buffer.monitor': "DI-engine's buffer monitor",
    'policy.other.commander.*': "DI-engine's parallel commander",
    'policy.command.*': "DI-engine's parallel commander",
    'policy.multi_agent': 'multi-agent PPO and discrete SAC (PPOPolicy and DiscreteSACPolicy build MAPPO / MASAC)',
    'policy.agent_num': 'the agent count is policy.model.agent_num',
    'policy.recompute_adv': 'ding computes advantages once per collect',
    'policy.learn.value_norm': 'value normalisation in PPO',
    'policy.learn.ppo_param_init': 'orthogonal init, on by default in VAC and MAVAC (model.orthogonal_init)',
    'policy.learn.multi_gpu': 'data-parallel learners are switched by policy.multi_gpu',
    'policy.learn.resume_training': 'use `ding resume RUN_DIR`',
    'policy.learn.grad_norm': 'PG gradient norm clipping (use learn.grad_clip_value)',
    'policy.learn.nstep': 'n-step returns in off-policy PPO',
    'policy.learn.nstep_return': 'n-step returns in off-policy PPO',
    'policy.learn.epoch_per_collect': 'epochs per collect in this policy',
    'policy.learn.train_epoch': 'epochs per collect in this policy',
    'policy.collect.env_num': 'the collector env count comes from env.collector_env_num',
    'policy.collect.discount_factor': 'the discount factor comes from policy.discount_factor',
    'policy.collect.gae_lambda': 'gae_lambda of policy.collect',
    'policy.collect.model_path': "an expert checkpoint that DI-engine's demo-data and SQIL programs load themselves",
    'policy.collect.save_path': "DI-engine's demo-data collection (use an offline_data_saver pipeline)",
    'policy.collect.data_type': "DI-engine's demo-data collection (use an offline_data_saver pipeline)",
    'policy.collect.collect_count': "DI-engine's demo-data collection (use an offline_data_saver pipeline)",
    'policy.expert_random_collect_size': 'SQIL',
    'policy.transition_with_policy_data': 'storing policy outputs in transitions',
    'env.manager.reset_inplace': "DI-engine's in-place reset of subprocess observations",
    'env.manager.connect_timeout': "DI-engine's subprocess connection timeout",
    'env.manager.wait_num': "DI-engine's async subprocess manager",
    'env.manager.step_wait_timeout': "DI-engine's async subprocess manager",
    'env.norm_obs.*': "DI-engine's mujoco observation normalisation (see env.env_wrapper)",
    'env.norm_reward.*': "DI-engine's mujoco reward normalisation (see env.env_wrapper)",
    'env.use_act_scale': "DI-engine's action scaling switch (use env.act_scale)",
    'env.continuous': "a continuous-action variant of this env",
    'env.act_scale': 'action scaling in this env',
    'env.exp_name': 'the run directory comes from the top-level exp_name',
    'env.env_wrapper': "DI-engine's env wrapper presets",
    'env.collector_batch_size': "DI-engine's async EnvPool batch (ding's EnvPool manager steps every env each call)",
    'env.evaluator_batch_size': "DI-engine's async EnvPool batch (ding's EnvPool manager steps every env each call)",
    'env.manager.shared_memory': 'shared memory applies to the subprocess manager only',
    'policy.learn.ignore_done': 'bootstrapping through episode ends, which only the off-policy learners read',
    'policy.collect.collector_logit': "DI-engine's CQL collection of logits",
    'policy.reward_batch_norm': "D4PG's reward batch normalisation, which this policy does not have",
    'policy.learn.init_w': "SAC's initial actor output range, which this policy does not have",
    'policy.learn.learning_rate_value': "a value-network learning rate, which this policy does not have (EDAC)",
    'policy.learn.reparameterization': 'SAC always uses the reparameterised policy gradient',
    'policy.learn.grad_clip_type': 'gradient clipping by norm with learn.grad_clip_value',
    'policy.collect.collector_env_num': 'the collector env count comes from env.collector_env_num',
    'policy.collect.state_dict_path': "DI-engine's demo-data collection (use an offline_data_saver pipeline)",
    'policy.eval.env_num': 'the evaluator env count comes from env.evaluator_env_num',
    'policy.other.eps.*': 'epsilon-greedy exploration, which this policy does not use',
    'policy.other.eps.collect': "DI-engine's epsilon for demo-data collection",
    'policy.learn.learning_rate_alpha': "an entropy-temperature learning rate (DI-engine's BCQ d4rl configs "
                                        "carry one), which this policy does not have",
    'policy.learn.data_path': "a stale key in DI-engine's d4rl configs; the dataset path is policy.collect.data_path",
    'policy.collect.expert_data_path': "DI-engine's demo-data collection (use an offline_data_saver pipeline)",
    'policy.kappa': "a stale key in DI-engine's Atari IQN/FQF configs; the quantile loss threshold is learn.kappa",
    'policy.learn.betas': "Adam's betas in DI-engine's Atari A2C configs; ding uses torch's defaults",
    'policy.learn.epochs_aux': "a stale key in DI-engine's Atari PPG configs (use learn.aux_train_epoch)",
    'policy.learn.beta_weight': "a stale key in DI-engine's Atari PPG configs (use learn.aux_bc_weight)",
    'policy.learn.iqn': "a stale Rainbow switch in DI-engine's Atari configs; Rainbow here is C51-based",
    'policy.model.critic_head_type': "D4PG's critic head, which is always categorical here",
    # DI-engine's Decision Transformer configs (d4rl, atari, box2d, cartpole) carry these
    'dataset.*': "DI-engine's DT dataset section; ding's `sequence` dataset reads policy.collect.data_path, "
                 "policy.context_len and policy.rtg_scale",
    'policy.stop_value': 'the stop value comes from env.stop_value',
    'policy.env_name': 'the env comes from env.env_id',
    'policy.evaluator_env_num': 'the evaluator env count comes from env.evaluator_env_num',
    'policy.weight_decay': "a stale key in DI-engine's DT configs; DT's AdamW weight decay is policy.wt_decay",
    'policy.batch_size': 'the batch size comes from policy.learn.batch_size',
    'policy.num_eval_ep': 'the evaluation episode count comes from env.n_evaluator_episode',
    'policy.max_timestep': "DI-engine's DT timestep-embedding size (use policy.model.max_timestep)",
    'policy.target_update_freq': "a stale key in DI-engine's CartPole DT config",
    'policy.device': 'the device comes from policy.cuda',
    'env.episode_num': "DI-engine's DT evaluation episode count (use env.n_evaluator_episode)",
    'policy.embed_dim': "DT model size that DI-engine's dt.py reads to build the model (DTPolicy's is policy.model)",
    'policy.n_heads': "DT model size that DI-engine's dt.py reads to build the model (DTPolicy's is policy.model)",
    'policy.n_blocks': "DT model size that DI-engine's dt.py reads to build the model (DTPolicy's is policy.model)",
    'policy.dropout_p': "DT model setting that DI-engine's dt.py reads to build the model (DTPolicy's is "
                        "policy.model)",
    'policy.num_updates_per_iter': "DI-engine's DT updates per iteration (bound runs with --max-train-iter)",
    'policy.log_dir': "DI-engine's DT log folder (logs go under exp_name)",
    'policy.min_q_weight': "a stale CQL key in DI-engine's CartPole DT config",
    'policy.learn.target_update_freq': "a stale key in DI-engine's LunarLander DT config",
    'policy.learn.kappa': "a stale key in DI-engine's d4rl random-dataset DT configs",
    'policy.learn.min_q_weight': "a stale CQL key in DI-engine's d4rl random-dataset DT configs",
    'policy.eval.evaluator.evalu_freq': "a misspelling of eval_freq in DI-engine's d4rl random-dataset DT configs "
                                        "(the default eval_freq applies)",
    'policy.learn.dataset_path': "DI-engine's LunarLander DT dataset path (ding reads policy.collect.data_path)",
    'reward_model.clear_buffer_per_iters': "DI-engine's RND data-buffer clearing; ding's RND trains on each "
                                           "collect's data",
    'reward_model.intrinsic_reward_rescale': "DI-engine's RND intrinsic-reward rescale (use "
                                             "intrinsic_reward_weight)",
}

# DI-engine keys that the stock configs of one policy type carry and that policy does not read.
# Per policy, since the same key is refused for the others (e.g. SAC's discount factor is
# policy.learn.discount_factor, so cfg.policy.discount_factor is a mistake there).
ACCEPTED_UNUSED_BY_POLICY = {
    'dt': {'policy.discount_factor': "DI-engine's DT configs carry it; the Decision Transformer has no discount",
           'policy.learn.learning_rate': "a stale key in DI-engine's d4rl random-dataset DT configs; DT's learning "
                                         "rate is policy.learning_rate"},
    'd4pg': {'policy.discount_factor': "DI-engine's pendulum D4PG config sets it; ding's D4PG discounts with "
                                       "policy.learn.discount_factor"},
    'edac': {'policy.learn.min_q_weight': "CQL's penalty weight, which DI-engine's EDAC configs carry and EDAC "
                                          "does not use"},
    'sqil_sac': {'policy.discount_factor': "a stale key in DI-engine's SQIL-SAC configs; the discount is "
                                           "policy.learn.discount_factor"},
}

_warned: set = set()


def accepted_unused(path: str, policy_type: Optional[str] = None) -> str:
    """What the key at dotted `path` is for, when it is a DI-engine key ding ignores (for
    `policy_type`'s configs); '' otherwise."""
    per_policy = ACCEPTED_UNUSED_BY_POLICY.get(policy_type or '', {})
    return ACCEPTED_UNUSED.get(path) or ACCEPTED_UNUSED.get(path + '.*') or per_policy.get(path) or ''


def split_accepted(problems: Iterable[Tuple[str, str]], policy_type: Optional[str] = None) -> List[str]:
    """Warn once per process for each accepted DI-engine key among `problems` ((path, message)
    pairs); return the messages of the others (misspellings)."""
    rest = []
    for path, message in problems:
        why = accepted_unused(path, policy_type)
        if not why:
            rest.append(message)
        elif path not in _warned:
            _warned.add(path)
            logger.warning('config key cfg.%s is a DI-engine key that ding accepts but does not use (%s); it stays '
                           'in the compiled config for pipelines of yours that read it', path, why)
    return rest
