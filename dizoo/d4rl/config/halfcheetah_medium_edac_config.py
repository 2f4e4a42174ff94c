"""EDAC on halfcheetah-medium-v2 (DI-engine's values but the stop value; its `ding/example/edac.py`
imports this). The dataset is local: `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id
halfcheetah-medium-v2` (mean return 4,947; see `halfcheetah_medium_bcq_config`).

The stop value is a published result (STOP_VALUE_SOURCE below). It was 5,000 until 2026-12-01,
picked here just above the data's own return (DI-engine: 7,600, citing nothing), and never reached.
Not reached here either (2026-11-27, one torch thread, 131 ms an update without evaluations): the
greedy policy stood still (return 0 to -3) for 3,500 updates, first moved at 4,500 (165),
peaked at 943 after 5,500, stayed between -60 and 470 up to 14,000, then fell below zero and
ran backwards (-300 to -580 from 16,000 to 21,600 updates, where the run was stopped) while the
critics' mean Q kept rising (314). With 100k transitions from one SAC policy, ten critics look
too few to keep the actor on the data; DI-engine's value is for D4RL's 1M more varied
transitions, and the EDAC paper trains 3M updates. On a GPU (an H200, 2026-11-27, 290 s,
about 18,000 updates) ten critics took the same course (best 980 at 5,500, -363 at 17,500);
50 critics held the policy between 790 and 1,200 after 11,000 updates, still far from 5,000 (the
stop value then). A stand-alone EDAC (benchmarks/learning/edac_reference.py) takes the same course on this data; on 1M
transitions from the same SAC it dipped the same way, then climbed again to 789 by 57,500 updates
as the critics' Q neared the data's return (docs/offline.md). With `cuda_graph` (an H200, 68,000
updates in 430 s, two runs sharing the GPU) `edac.py` took the same courses: on the 100k set down to
-1,048 and turning up after 55,000 updates; on a 1M set climbing again to 460 (mean of 60-68k).

Evaluation every 2,500 updates (DI-engine: 500). One evaluation is 8 episodes of 1,000 steps on 8
envs stepped in turn (`edac.py` builds a serial manager): 0.38-0.41 s on a free core of this
machine, 0.75-0.86 s with both cores busy (2026-11-28). 500 graphed updates take 0.9 s on an H200
(1.81 ms each), so at 500 evaluations took about 30-45% of a GPU run. The paper's 3M updates still
see 1,200 evaluations."""
from easydict import EasyDict

# EDAC on halfcheetah-medium-v2, 65.9 normalised (An et al. 2021, "Uncertainty-Based Offline
# Reinforcement Learning with Diversified Q-Ensemble", Table 1), about 7,901 raw (-280.18 + 0.659 *
# (12135.0 + 280.18), D4RL's random and expert returns for HalfCheetah), on D4RL's own data (1M
# transitions) after 3M updates; the local file is made by our SAC and is smaller.
STOP_VALUE_SOURCE = 'EDAC, halfcheetah-medium-v2: 65.9 normalised (An et al. 2021, Table 1) = 7,901 raw'

main_config = dict(
    exp_name='halfcheetah_medium_edac_seed0',
    env=dict(
        env_id='halfcheetah-medium-v2',
        collector_env_num=1,
        evaluator_env_num=8,
        use_act_scale=True,
        n_evaluator_episode=8,
        stop_value=7901,
    ),
    policy=dict(
        cuda=True,
        model=dict(
            obs_shape=17,
            action_shape=6,
            ensemble_num=10,
            actor_head_hidden_size=256,
            actor_head_layer_num=3,
            critic_head_hidden_size=256,
            critic_head_layer_num=3,
        ),
        learn=dict(
            data_path=None,
            train_epoch=30000,
            batch_size=256,
            learning_rate_q=3e-4,
            learning_rate_policy=3e-4,
            learning_rate_alpha=3e-4,
            alpha=1,
            auto_alpha=True,
            eta=1.0,
            with_q_entropy=False,
            cuda_graph=True,  # ours: each update replayed as one CUDA graph on a GPU (eager on a CPU)
            learner=dict(hook=dict(save_ckpt_after_iter=100000)),
        ),
        collect=dict(data_type='d4rl'),
        eval=dict(evaluator=dict(eval_freq=2500)),  # ours (DI-engine: 500): see above
    ),
    seed=0,
)
main_config = EasyDict(main_config)

create_config = dict(
    env=dict(type='d4rl', import_names=['dizoo.d4rl.envs.d4rl_env']),
    env_manager=dict(type='base'),
    policy=dict(type='edac', import_names=['ding.policy.edac']),
)
create_config = EasyDict(create_config)
