"""SQIL with SAC on Pendulum-v1: the keys and values of DI-engine's `pendulum_sqil_sac_config`
(its `ding/example/sqil_continuous.py` runs on it). The expert's weights are read from
`policy.collect.model_path`: the `eval.pth.tar` that `CkptSaver` writes for the SAC example
(`pendulum_sac_config`, the same 128-unit twin-critic model). `expert_random_collect_size` is
how many random-action steps seed the expert buffer, as `random_collect_size` does the agent's."""
from easydict import EasyDict

pendulum_sqil_sac_config = dict(
    exp_name='pendulum_sqil_sac_seed0',
    env=dict(
        collector_env_num=10,
        evaluator_env_num=5,
        act_scale=True,  # actions in [-1, 1], scaled by the env
        n_evaluator_episode=5,
        stop_value=-250,
    ),
    policy=dict(
        cuda=False,
        random_collect_size=1000,
        expert_random_collect_size=1000,
        model=dict(
            obs_shape=3,
            action_shape=1,
            twin_critic=True,
            action_space='reparameterization',
            actor_head_hidden_size=128,
            critic_head_hidden_size=128,
        ),
        nstep=1,
        discount_factor=0.97,
        learn=dict(
            update_per_collect=1,
            batch_size=128,
            learning_rate_q=0.001,
            learning_rate_policy=0.001,
            learning_rate_alpha=0.0003,
            ignore_done=True,
            target_theta=0.005,
            discount_factor=0.99,
            auto_alpha=True,
        ),
        collect=dict(
            n_sample=10,
            # the expert's weights, relative to the working directory
            model_path='pendulum_sac_seed0/ckpt/eval.pth.tar',
        ),
        eval=dict(evaluator=dict(eval_freq=100)),
        other=dict(replay_buffer=dict(replay_buffer_size=100000)),
    ),
)
pendulum_sqil_sac_config = EasyDict(pendulum_sqil_sac_config)
main_config = pendulum_sqil_sac_config

pendulum_sqil_sac_create_config = dict(
    env=dict(type='pendulum', import_names=['dizoo.classic_control.pendulum.envs.pendulum_env']),
    env_manager=dict(type='base'),
    policy=dict(type='sqil_sac'),
)
pendulum_sqil_sac_create_config = EasyDict(pendulum_sqil_sac_create_config)
create_config = pendulum_sqil_sac_create_config
