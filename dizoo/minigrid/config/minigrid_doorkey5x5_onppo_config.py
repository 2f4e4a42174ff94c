"""PPO on MiniGrid DoorKey-5x5 (MiniGrid-DoorKey-5x5-v0), flat observations [2835].

DI-engine's dizoo/minigrid/config/minigrid_onppo_config.py keys and net (the MLP
[256, 128, 64, 64], clip 0.2, value weight 0.5, GAE 0.95, adv_norm), with DoorKey-5x5 as the
env. Ours: 1024 transitions per collect (128 per env; an episode has at most 250 steps) and
4 epochs of 256-row minibatches, so the policy updates more often per env step, and an entropy
weight of 0.01, which the sparse reward needs to keep exploring until the key, door and goal
are first found. Measured: benchmarks/learning/minigrid_doorkey.py -> benchmarks/results/minigrid_doorkey.json.

Train: ding -m serial_onpolicy -c minigrid_doorkey5x5_onppo_config.py -s 0"""
from easydict import EasyDict

minigrid_doorkey5x5_onppo_config = dict(
    exp_name='minigrid_doorkey5x5_onppo_seed0',
    env=dict(
        collector_env_num=8,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=0.9,
        env_id='MiniGrid-DoorKey-5x5-v0',
        flat_obs=True,
        max_step=None,
    ),
    policy=dict(
        cuda=False,
        action_space='discrete',
        model=dict(
            obs_shape=2835,
            action_shape=7,
            action_space='discrete',
            encoder_hidden_size_list=[256, 128, 64, 64],
        ),
        learn=dict(
            epoch_per_collect=4,
            batch_size=256,
            learning_rate=3e-4,
            value_weight=0.5,
            entropy_weight=0.01,
            clip_ratio=0.2,
            adv_norm=True,
        ),
        collect=dict(n_sample=1024, unroll_len=1, discount_factor=0.99, gae_lambda=0.95),
        eval=dict(evaluator=dict(eval_freq=64)),  # every 4 collects (16 updates each)
    ),
)
minigrid_doorkey5x5_onppo_config = EasyDict(minigrid_doorkey5x5_onppo_config)
main_config = minigrid_doorkey5x5_onppo_config

minigrid_doorkey5x5_onppo_create_config = dict(
    env=dict(
        type='minigrid',
        import_names=['dizoo.minigrid.envs.minigrid_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='ppo'),
)
minigrid_doorkey5x5_onppo_create_config = EasyDict(minigrid_doorkey5x5_onppo_create_config)
create_config = minigrid_doorkey5x5_onppo_create_config
