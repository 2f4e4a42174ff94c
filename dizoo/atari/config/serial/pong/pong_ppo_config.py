"""PPO on Atari Pong (PongNoFrameskip-v4: DeepMind's wrappers, 4 stacked 84x84 frames, the Nature CNN).

PPO's Atari recipe as OpenAI baselines' `ppo2` Atari defaults and CleanRL's `ppo_atari.py` run it
(after Schulman et al. 2017, Table 5, which has 3 epochs): 8 envs x 128 steps per collect, 4 epochs of
4 minibatches (256), Adam at 2.5e-4 annealed linearly to 0 over 10M env steps, clip 0.1, value
weight 0.5 with the value clipped, entropy 0.01, gradient norm 0.5, gamma 0.99, GAE lambda 0.95.
The actor and critic share the conv encoder. Nothing here was tuned. Frames stay uint8 up to the
encoder (`scale=False`); the seed 1000 and 1001 runs of benchmarks/results/atari_cpu_pong_ppo*.json
predate that and ran on float frames, which the network sees as the same values.

On a CPU, give the learner both cores: OMP_NUM_THREADS=2 ding train -f pong_ppo_config.py --seed 1000"""
from easydict import EasyDict

# The stop value is a published result: PPO, Pong: 20.7 (Schulman et al. 2017, "Proximal Policy
# Optimization Algorithms", Table 6 (mean of the last 100 training episodes after 40M frames)). It
# was DI-engine's 20; the runs in benchmarks/results/atari_cpu_pong_ppo*.json, best 7.0, fell short
# of both.
STOP_VALUE_SOURCE = 'PPO, Pong: 20.7 (Schulman et al. 2017, Table 6)'

ENVS, STEPS_PER_ENV, EPOCHS, MINIBATCH = 8, 128, 4, 256
UPDATES_PER_COLLECT = EPOCHS * ENVS * STEPS_PER_ENV // MINIBATCH  # 16
ANNEAL_ENV_STEPS = 10_000_000

pong_ppo_config = dict(
    exp_name='pong_ppo_seed0',
    env=dict(
        collector_env_num=ENVS,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=20.7,  # a published score: STOP_VALUE_SOURCE
        env_id='PongNoFrameskip-v4',
        frame_stack=4,
        scale=False,  # uint8 frames up to the conv encoder, which divides by 255: the same floats
    ),
    policy=dict(
        cuda=False,
        action_space='discrete',
        model=dict(
            obs_shape=[4, 84, 84],
            action_shape=6,
            action_space='discrete',
            share_encoder=True,
            encoder_hidden_size_list=[32, 64, 64, 512],
            actor_head_hidden_size=512,
            actor_head_layer_num=0,
            critic_head_hidden_size=512,
            critic_head_layer_num=0,
        ),
        learn=dict(
            epoch_per_collect=EPOCHS,
            batch_size=MINIBATCH,
            learning_rate=2.5e-4,
            lr_decay_iters=ANNEAL_ENV_STEPS // (ENVS * STEPS_PER_ENV) * UPDATES_PER_COLLECT,
            clip_ratio=0.1,
            value_clip=True,
            value_weight=0.5,
            entropy_weight=0.01,
            adv_norm=True,
            grad_clip_value=0.5,
        ),
        collect=dict(n_sample=ENVS * STEPS_PER_ENV, unroll_len=1, discount_factor=0.99, gae_lambda=0.95),
        # train iterations are minibatch updates: about every 51k env steps
        eval=dict(evaluator=dict(eval_freq=800)),
    ),
)
pong_ppo_config = EasyDict(pong_ppo_config)
main_config = pong_ppo_config

pong_ppo_create_config = dict(
    env=dict(type='atari', import_names=['dizoo.atari.envs.atari_env']),
    env_manager=dict(type='subprocess'),
    policy=dict(type='ppo'),
)
pong_ppo_create_config = EasyDict(pong_ppo_create_config)
create_config = pong_ppo_create_config
