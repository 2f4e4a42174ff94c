"""Decision Transformer on LunarLander-v3 (discrete): the config DI-engine 0.5.3's
`ding/example/dt.py` imports, with DI-engine's keys and values.

The dataset is DI-engine's layout for discrete envs, a pickle of episodes (lists of transition
dicts) at `policy.collect.data_path`, relative to the working directory. Nothing is downloaded:
make it with `python -m dizoo.box2d.lunarlander.entry.lunarlander_dt_make_dataset` (a DQN is
trained here, then its episodes recorded). Needs Box2D: pip install "ding[box2d]".
"""
from easydict import EasyDict

DATA_PATH = 'DI-engine/dizoo/box2d/lunarlander/offline_data/dt_data/dqn_data_1000eps.pkl'

lunarlander_dt_config = dict(
    exp_name='data_dt/lunarlander_dt_1000eps_rtgt300_meel1000_seed0_debug',
    env=dict(
        env_id='LunarLander-v3',  # DI-engine's LunarLander-v2 is v3 in gymnasium 1.x
        evaluator_env_num=8,
        n_evaluator_episode=8,
        stop_value=200,
    ),
    policy=dict(
        stop_value=200,
        state_mean=None,  # dt.py sets both from dataset.get_state_stats()
        state_std=None,
        device='cuda',  # DI-engine's key, unused: `cuda` picks the device
        env_name='LunarLander-v3',
        rtg_target=300,  # the return asked for at evaluation
        rtg_scale=150,
        max_eval_ep_len=1000,
        wt_decay=1e-4,
        warmup_steps=10000,
        context_len=20,
        evaluator_env_num=8,
        log_dir='DI-engine/dizoo/box2d/lunarlander/dt_log_1000eps',
        model=dict(
            state_dim=8,
            act_dim=4,
            n_blocks=3,
            h_dim=128,
            context_len=20,
            n_heads=1,
            drop_p=0.1,
            continuous=False,
        ),
        discount_factor=0.999,
        nstep=3,
        learn=dict(
            dataset_path=DATA_PATH,
            learning_rate=3e-4,  # DI-engine's DTPolicy reads policy.learning_rate (1e-4), as ours does
            batch_size=64,
            target_update_freq=100,
        ),
        collect=dict(
            data_type='d4rl_trajectory',
            data_path=DATA_PATH,
            unroll_len=1,
        ),
        eval=dict(evaluator=dict(eval_freq=100, )),
    ),
)
lunarlander_dt_config = EasyDict(lunarlander_dt_config)
main_config = lunarlander_dt_config
lunarlander_dt_create_config = dict(
    env=dict(
        type='lunarlander',
        import_names=['dizoo.box2d.lunarlander.envs.lunarlander_env'],
    ),
    env_manager=dict(type='subprocess'),
    policy=dict(type='dt'),
)
lunarlander_dt_create_config = EasyDict(lunarlander_dt_create_config)
create_config = lunarlander_dt_create_config
