"""Configs for the PettingZoo envs: `ptz_<scenario>_<algo>_config.py`."""
