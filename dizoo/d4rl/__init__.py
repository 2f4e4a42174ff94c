"""D4RL-style offline MuJoCo tasks on locally made datasets (nothing is downloaded): the env
ids of D4RL ('hopper-medium-v2', ...) name gymnasium's MuJoCo envs and a D4RL-layout hdf5 file
made by `python -m dizoo.d4rl.entry.d4rl_make_dataset --env-id ENV_ID`."""
