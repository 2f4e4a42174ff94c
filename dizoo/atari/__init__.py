"""Atari 2600 games on ale-py (ROMs ship with the package), with DI-engine's wrapper stack."""
