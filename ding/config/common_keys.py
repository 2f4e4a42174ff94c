"""Config keys that every compiled config has, declared by compile_config and read where named
(dizoo's configs use them with the same meaning):
- `policy.load_path`: the checkpoint `ding -m eval -c CONFIG` evaluates (ding/entry/serial.py);
  training ignores it.
- `policy.learn.learner.hook.load_ckpt_before_run` (a checkpoint loaded into the policy before
  training), `.save_ckpt_after_iter` (train iterations between checkpoints), `.log_show_after_iter`
  (train iterations between log lines), `.save_ckpt_after_run` (ding/entry/learner_hooks.py).
- `env.replay_path`: `ding -m eval` records the evaluation episodes there as a GIF.
- `policy.cuda`, `policy.multi_gpu`: in every policy's own defaults.
- `policy.other.her`: `HerRewardModel`'s config (ding/reward_model/her_reward_model.py).
- in an offline policy's config (its class declares `collect.data_type`): `env.norm_obs.use_norm`
  with `env.norm_obs.offline_stats.use_offline_stats`, both True to train and evaluate on
  observations normalised by the dataset's mean and std (ding/data/offline_dataset.py,
  ding/entry/serial_offline.py); the env never reads them.
- in a policy with a replay buffer: `policy.random_collect_size` (random-action warm-up steps of
  the off-policy pipelines) and `other.replay_buffer.alpha / beta / anneal_step` (prioritized
  replay's exponents and beta's annealing, read by ding/entry/pipeline.py when `priority=True`).
Keys that ding accepts but does not read are in ding/compat/config_keys.py
(one warning each); any other undeclared key is a misspelling: compile_config fails naming it.
"""
from easydict import EasyDict

POLICY_COMMON = EasyDict(
    load_path=None,
    learn=dict(learner=dict(hook=dict(
        load_ckpt_before_run='',  # '' or None: start from fresh weights
        log_show_after_iter=None,  # None: the pipeline's own log frequency
        save_ckpt_after_iter=None,  # None: the pipeline's own checkpoint frequency
        save_ckpt_after_run=True,
    ))),
    # hindsight relabelling of any off-policy policy: HerRewardModel(cfg.policy.other.her), which checks its keys
    other=dict(her=dict()),
)
ENV_REPLAY = EasyDict(replay_path=None)
# declared where the policy is an offline one (ding/config/compile.py)
ENV_OFFLINE = EasyDict(norm_obs=dict(use_norm=False, offline_stats=dict(use_offline_stats=False)))
# declared where the policy has a replay buffer (ding/config/compile.py)
OFF_POLICY_COMMON = EasyDict(random_collect_size=0)
REPLAY_BUFFER_COMMON = EasyDict(alpha=0.6, beta=0.4, anneal_step=int(1e5))
