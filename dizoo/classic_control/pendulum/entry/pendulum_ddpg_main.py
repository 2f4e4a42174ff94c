"""Train DDPG on Pendulum-v1 with the spec's continuous-control pipeline.

    python -m dizoo.classic_control.pendulum.entry.pendulum_ddpg_main [--seed N] [--max-env-step N]
        [--stop-value V] [--exp-name DIR]
"""
from dizoo.classic_control.pendulum.entry.pendulum_offpolicy import main

if __name__ == '__main__':
    main('ddpg')
