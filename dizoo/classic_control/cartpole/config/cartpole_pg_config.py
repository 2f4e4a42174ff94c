"""REINFORCE (PG) on CartPole (the entry script runs CartPole-v1 to 195; `env_id`/`stop_value`
are DI-engine's v0 defaults). Whole episodes, one update per `n_episode` of them."""
from easydict import EasyDict

cartpole_pg_config = dict(
    exp_name='cartpole_pg_seed0',
    env=dict(env_id='CartPole-v0', collector_env_num=8, evaluator_env_num=5, n_evaluator_episode=5, stop_value=195),
    policy=dict(
        cuda=False,
        action_space='discrete',
        model=dict(obs_shape=4, action_shape=2, action_space='discrete', encoder_hidden_size_list=[64, 64]),
        learn=dict(learning_rate=3e-3, entropy_weight=0.001, return_norm=True, grad_clip_value=1.0),
        collect=dict(n_episode=8, unroll_len=1, discount_factor=0.99),
        eval=dict(evaluator=dict(eval_freq=5)),
    ),
)
cartpole_pg_config = EasyDict(cartpole_pg_config)
main_config = cartpole_pg_config

cartpole_pg_create_config = dict(
    env=dict(type='cartpole', import_names=['dizoo.classic_control.cartpole.envs.cartpole_env']),
    env_manager=dict(type='base'),
    policy=dict(type='pg'),
)
cartpole_pg_create_config = EasyDict(cartpole_pg_create_config)
create_config = cartpole_pg_create_config
