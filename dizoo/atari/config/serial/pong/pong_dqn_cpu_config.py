"""DQN on Atari Pong within a CPU's budget (the aim: clearly above random play within 2M frames).

DI-engine's Pong DQN (pong_dqn_config.py) explores for long: eps decays exponentially with a scale
of 250k env steps, so it is still 0.18 at 500k env steps (2M frames). This recipe explores for
100k env steps (eps 1 -> 0.02, linear, as in Lapan's "Deep RL Hands-On" Pong DQN) and keeps the
Nature DQN's replay ratio (one update of 32 per 4 env steps) with 3-step double-DQN targets and
Adam at 1e-4. Its values are a tuning candidate, run on seeds 0-99 only
(benchmarks/results/atari_cpu_pong_dqn_tuning.json); nothing is reported on those seeds.

    OMP_NUM_THREADS=2 ding train -f pong_dqn_cpu_config.py --seed 0 --max-env-step 500000"""
from easydict import EasyDict

ENVS, STEPS_PER_ENV = 8, 4
ENV_STEPS_PER_UPDATE = 4  # the Nature DQN's replay ratio

pong_dqn_cpu_config = dict(
    exp_name='pong_dqn_cpu_seed0',
    env=dict(
        collector_env_num=ENVS,
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=20,
        env_id='PongNoFrameskip-v4',
        frame_stack=4,
        scale=False,  # uint8 frames up to the conv encoder, which divides by 255
    ),
    policy=dict(
        cuda=False,
        priority=False,
        random_collect_size=20000,  # fill the replay with random play before the first update
        model=dict(obs_shape=[4, 84, 84], action_shape=6, encoder_hidden_size_list=[32, 64, 64, 512]),
        nstep=3,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=ENVS * STEPS_PER_ENV // ENV_STEPS_PER_UPDATE,  # 8 updates per 32 env steps
            batch_size=32,
            learning_rate=1e-4,
            target_update_freq=1000,  # updates, i.e. every 4,000 env steps
        ),
        collect=dict(n_sample=ENVS * STEPS_PER_ENV),
        eval=dict(evaluator=dict(eval_freq=6250)),  # train iterations: every 25k env steps
        other=dict(
            eps=dict(type='linear', start=1.0, end=0.02, decay=100000),
            replay_buffer=dict(replay_buffer_size=100000),
        ),
    ),
)
pong_dqn_cpu_config = EasyDict(pong_dqn_cpu_config)
main_config = pong_dqn_cpu_config

pong_dqn_cpu_create_config = dict(
    env=dict(type='atari', import_names=['dizoo.atari.envs.atari_env']),
    env_manager=dict(type='subprocess'),
    policy=dict(type='dqn'),
    replay_buffer=dict(type='frame', import_names=['ding.data.buffer.frame_buffer']),
)
pong_dqn_cpu_create_config = EasyDict(pong_dqn_cpu_create_config)
create_config = pong_dqn_cpu_create_config
