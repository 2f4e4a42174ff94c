"""DQN on MiniGrid DoorKey-5x5 (MiniGrid-DoorKey-5x5-v0), flat observations.

DI-engine's flat observation: the 7x7x3 view flattened plus the one-hot mission, float32 [2835].
DI-engine's config keys (env_id, flat_obs, max_step). The reward is sparse (1 - 0.9 * steps /
250 at the goal, 0 otherwise): pick up the key, open the door, reach the goal. Not tuned yet:
n-step 3 and a slow epsilon decay for the sparse reward. It does not learn the task as it stands:
on tuning seed 0 every evaluation returned 0 up to 300k env steps; the on-policy PPO config
solves it in 60-80k (benchmarks/results/minigrid_doorkey.json).

Train: ding -m serial -c minigrid_doorkey5x5_dqn_config.py -s 0"""
from easydict import EasyDict

minigrid_doorkey5x5_dqn_config = dict(
    exp_name='minigrid_doorkey5x5_dqn_seed0',
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
        priority=False,
        model=dict(
            obs_shape=2835,
            action_shape=7,
            encoder_hidden_size_list=[256, 128, 64],
        ),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=4,
            batch_size=64,
            learning_rate=0.0005,
            target_update_freq=500,
        ),
        collect=dict(n_sample=32, ),
        eval=dict(evaluator=dict(eval_freq=500, )),
        other=dict(
            eps=dict(
                type='exp',
                start=1.,
                end=0.05,
                decay=100000,
            ),
            replay_buffer=dict(replay_buffer_size=100000, ),
        ),
    ),
)
minigrid_doorkey5x5_dqn_config = EasyDict(minigrid_doorkey5x5_dqn_config)
main_config = minigrid_doorkey5x5_dqn_config

minigrid_doorkey5x5_dqn_create_config = dict(
    env=dict(
        type='minigrid',
        import_names=['dizoo.minigrid.envs.minigrid_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
)
minigrid_doorkey5x5_dqn_create_config = EasyDict(minigrid_doorkey5x5_dqn_create_config)
create_config = minigrid_doorkey5x5_dqn_create_config
