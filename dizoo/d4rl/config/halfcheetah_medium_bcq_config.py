"""BCQ on halfcheetah-medium-v2 (DI-engine's values but the stop value; its `ding/example/bcq.py`
imports this). The dataset is local: `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id
halfcheetah-medium-v2` (100 episodes of our SAC after 100k env steps, sampled actions, mean
return 4,947; D4RL's own medium data averages about 4,770).

Stop value 5,000, just above the data's own return, where DI-engine has 7,000 for D4RL's data.
Measured here (2026-11-27, one torch thread, a second job on the other core): BCQ passed 5,000
after 9,000 updates (5,076) and plateaued at 5,000-5,200 up to 31,000 updates (best 5,201)."""
from easydict import EasyDict

main_config = dict(
    exp_name='halfcheetah_medium_bcq_seed0',
    env=dict(
        env_id='halfcheetah-medium-v2',
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=5000,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=17,
            action_shape=6,
            actor_head_hidden_size=[400, 300],
            critic_head_hidden_size=[400, 300],
            phi=0.05,
        ),
        learn=dict(
            data_path=None,
            train_epoch=30000,
            batch_size=100,
            learning_rate_q=3e-3,
            learning_rate_policy=3e-3,
            learning_rate_alpha=3e-3,
            lmbda=0.75,
            learner=dict(hook=dict(save_ckpt_after_iter=1000000000)),
        ),
        collect=dict(data_type='d4rl'),
        eval=dict(evaluator=dict(eval_freq=500)),
        other=dict(replay_buffer=dict(replay_buffer_size=2000000)),
    ),
    seed=123,
)
main_config = EasyDict(main_config)

create_config = dict(
    env=dict(type='d4rl', import_names=['dizoo.d4rl.envs.d4rl_env']),
    env_manager=dict(type='base'),
    policy=dict(type='bcq', import_names=['ding.policy.bcq']),
    replay_buffer=dict(type='naive'),
)
create_config = EasyDict(create_config)
