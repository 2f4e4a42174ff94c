"""Train TD3 on HalfCheetah-v5 or Hopper-v5 (needs the mujoco extra).

    python -m dizoo.mujoco.entry.mujoco_td3_main [--env halfcheetah|hopper] [--seed N] [--max-env-step N]
"""
from dizoo.mujoco.entry.mujoco_offpolicy import main

if __name__ == '__main__':
    main('td3')
