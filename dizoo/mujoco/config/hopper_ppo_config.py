"""PPO on Hopper-v5 with the RL Zoo's tuned Hopper values (rl-baselines3-zoo hyperparams/ppo.yml,
Hopper-v3), so that the side-by-side comparison runs SB3 at its published settings and ours at
the same ones (benchmarks/compare, `ppo_hopper`, 500k env steps per run). Needs the mujoco extra.

The zoo's values, in our keys:
- one env, rollouts of 512 steps, 5 epochs of minibatches of 32, lr 9.808e-5 (Adam), clip 0.2,
  entropy weight 0.002295, gradient norm 0.7, gamma 0.999, GAE lambda 0.99;
- its value coefficient 0.8357 multiplies a plain mean squared error; our value loss is half of
  one, so `value_weight` is twice that;
- separate actor and critic of 2 x 256 ReLU, no orthogonal initialisation, log std from -2;
- observations and rewards normalised (the zoo's `normalize: true`, SB3's VecNormalize):
  observations by their running mean and std, clipped to [-10, 10]; rewards divided by the
  running std of the discounted return (gamma 0.999). The env's own wrappers do it
  (`obs_norm`, `reward_norm`); evaluation then needs the collector's statistics, frozen
  (`env_normalizer_sync`).

Hopper's 1000-step cap is a truncation (GAE bootstraps through it); falling is a termination."""
from easydict import EasyDict
from torch import nn

ZOO_VALUE_COEF = 0.835671

hopper_ppo_config = dict(
    exp_name='hopper_ppo_seed0',
    env=dict(
        env_id='Hopper-v5',
        collector_env_num=1,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        act_scale=True,
        stop_value=3000,  # not a target: well above what 500k env steps give, so runs go to their bound
        env_wrapper=[
            dict(type='obs_norm', kwargs=dict(clip_range=(-10, 10), warmup=0)),
            dict(type='reward_norm', kwargs=dict(reward_discount=0.999, warmup=0)),
        ],
    ),
    policy=dict(
        cuda=False,
        action_space='continuous',
        action_bound=1.0,
        model=dict(
            obs_shape=11,
            action_shape=3,
            action_space='continuous',
            share_encoder=False,
            encoder_hidden_size_list=[256, 256],
            actor_head_layer_num=0,
            critic_head_layer_num=0,
            activation=nn.ReLU,
            log_std_init=-2.0,
            orthogonal_init=False,
        ),
        learn=dict(
            epoch_per_collect=5,
            batch_size=32,
            learning_rate=9.80828e-05,
            clip_ratio=0.2,
            value_weight=2 * ZOO_VALUE_COEF,
            entropy_weight=0.00229519,
            adv_norm=True,
            grad_clip_value=0.7,
        ),
        collect=dict(n_sample=512, unroll_len=1, discount_factor=0.999, gae_lambda=0.99),
        eval=dict(evaluator=dict(eval_freq=20)),
    ),
)
hopper_ppo_config = EasyDict(hopper_ppo_config)
main_config = hopper_ppo_config

hopper_ppo_create_config = dict(
    env=dict(type='mujoco', import_names=['dizoo.mujoco.envs.mujoco_env']),
    env_manager=dict(type='base'),
    policy=dict(type='ppo'),
)
hopper_ppo_create_config = EasyDict(hopper_ppo_create_config)
create_config = hopper_ppo_create_config
