"""DQN with hindsight experience replay on bit flipping: the keys and values of DI-engine's
`bitflip_her_dqn_config` (5 bits, small enough for a unit run; 15 or more is where plain DQN
fails and HER does not, see benchmarks/learning/her_bitflip.py).

Each update samples `her.episode_size` whole episodes and makes `her.sample_per_episode`
relabelled transitions from each, so the learner batch is their product (128 here)."""
from easydict import EasyDict

n_bits = 5
bitflip_her_dqn_config = dict(
    exp_name='bitflip_{}bit_herdqn_seed0'.format(n_bits),
    env=dict(
        collector_env_num=8,
        evaluator_env_num=16,
        n_bits=n_bits,
        n_evaluator_episode=16,
        stop_value=0.9,
    ),
    policy=dict(
        cuda=False,
        model=dict(
            obs_shape=2 * n_bits,
            action_shape=n_bits,
            encoder_hidden_size_list=[128, 128, 64],
            dueling=True,
        ),
        # a goal-conditioned value propagates badly through long horizons with gamma close to 1
        discount_factor=0.8,
        learn=dict(
            update_per_collect=10,
            batch_size=128,
            learning_rate=0.0005,
            target_update_freq=500,
        ),
        collect=dict(
            n_episode=8,
            unroll_len=1,
        ),
        eval=dict(evaluator=dict(eval_freq=1000)),
        other=dict(
            # a constant epsilon of 0.2, as the HER paper uses
            eps=dict(
                type='exp',
                start=0.2,
                end=0.2,
                decay=100,
            ),
            replay_buffer=dict(replay_buffer_size=4000),
            her=dict(
                her_strategy='future',
                episode_size=32,
                sample_per_episode=4,
            ),
        ),
    ),
)
bitflip_her_dqn_config = EasyDict(bitflip_her_dqn_config)
main_config = bitflip_her_dqn_config

bitflip_her_dqn_create_config = dict(
    env=dict(
        type='bitflip',
        import_names=['dizoo.bitflip.envs.bitflip_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
    replay_buffer=dict(type='episode'),
    collector=dict(type='episode'),
)
bitflip_her_dqn_create_config = EasyDict(bitflip_her_dqn_create_config)
create_config = bitflip_her_dqn_create_config
