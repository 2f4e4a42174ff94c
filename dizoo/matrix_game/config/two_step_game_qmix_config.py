"""QMIX on the two-step game (dizoo/matrix_game/envs/two_step_game_env.py): reaches the
optimal return 8 where VDN and independent Q settle for 7 (benchmarks/learning/qmix_two_step.py).
`two_step_game_vdn_config.py` is the same with the VDN policy."""
from easydict import EasyDict

main_config = EasyDict(dict(
    exp_name='two_step_game_qmix_seed0',
    env=dict(collector_env_num=8, evaluator_env_num=1, n_evaluator_episode=1, stop_value=8.0),
    policy=dict(
        cuda=False,
        model=dict(agent_num=2, obs_shape=5, global_obs_shape=3, action_shape=2, hidden_size_list=[64, 64],
                   mixer=True),
        learn=dict(update_per_collect=8, batch_size=64, learning_rate=0.005, target_update_theta=0.05,
                   discount_factor=0.99, double_q=False),
        collect=dict(n_sample=32, unroll_len=1),
        eval=dict(evaluator=dict(eval_freq=40)),
        # uniform exploration throughout, the QMIX paper's protocol for this game (eps = 1)
        other=dict(eps=dict(type='linear', start=1.0, end=1.0, decay=1), replay_buffer=dict(
            replay_buffer_size=2000)),
    ),
))
create_config = EasyDict(dict(
    env=dict(import_names=['dizoo.matrix_game.envs.two_step_game_env'], type='two_step_game'),
    env_manager=dict(type='base'),
    policy=dict(type='qmix'),
))
