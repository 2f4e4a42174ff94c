"""DQN on MinAtar Breakout with the MinAtar paper's recipe (Young & Tian 2019, table 2), as the
side-by-side comparison runs it in both frameworks (benchmarks/compare, `dqn_minatar_breakout_paper`).

The recipe, key by key:
- network: one 3x3 conv of 16 channels, 128 units, one linear layer to the Q values
  (`encoder_hidden_size_list=[16, 128]`, no dueling streams, no hidden head layer);
- one env, one update of 32 per env step (`n_sample=1`, `update_per_collect=1`), from 5,000
  uniformly random steps on (`random_collect_size`);
- replay of 100k, 1-step targets, gamma 0.99, no double DQN, the Huber TD loss;
- target copy every 1,000 updates;
- centered RMSprop, lr 2.5e-4, squared-gradient decay 0.95, min squared gradient 0.01;
- epsilon 1.0 -> 0.1 linearly over the first 100k env steps.

`breakout_dqn_config.py` is our tuned config for the same game (n-step 3, Adam, 8 envs): it
learns in fewer env steps and less time; this one is for measuring the framework with the
algorithm held fixed.

Train: ding -m serial -c breakout_dqn_paper_config.py -s 0"""
from easydict import EasyDict

breakout_dqn_paper_config = dict(
    exp_name='minatar_breakout_dqn_paper_seed0',
    env=dict(
        collector_env_num=1,
        evaluator_env_num=5,
        n_evaluator_episode=5,
        stop_value=10,
        env_id='MinAtar/Breakout-v1',
    ),
    policy=dict(
        cuda=False,
        priority=False,
        random_collect_size=5000,
        model=dict(
            obs_shape=[4, 10, 10],
            action_shape=3,
            encoder_hidden_size_list=[16, 128],
            dueling=False,
            head_layer_num=0,
        ),
        nstep=1,
        discount_factor=0.99,
        learn=dict(
            update_per_collect=1,
            batch_size=32,
            learning_rate=2.5e-4,
            target_update_freq=1000,
            double_dqn=False,
            td_loss='huber',
            optimizer='rmsprop',
            rmsprop=dict(alpha=0.95, eps=0.01, centered=True),
        ),
        collect=dict(n_sample=1, ),
        eval=dict(evaluator=dict(eval_freq=5000, )),
        other=dict(
            eps=dict(
                type='linear',
                start=1.,
                end=0.1,
                decay=100000,
            ),
            replay_buffer=dict(replay_buffer_size=100000, ),
        ),
    ),
)
breakout_dqn_paper_config = EasyDict(breakout_dqn_paper_config)
main_config = breakout_dqn_paper_config

breakout_dqn_paper_create_config = dict(
    env=dict(
        type='minatar',
        import_names=['dizoo.minatar.envs.minatar_env'],
    ),
    env_manager=dict(type='base'),
    policy=dict(type='dqn'),
)
breakout_dqn_paper_create_config = EasyDict(breakout_dqn_paper_create_config)
create_config = breakout_dqn_paper_create_config
