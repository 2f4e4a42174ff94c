"""Configs for the matrix games: `<game>_<algo>_config.py`."""
