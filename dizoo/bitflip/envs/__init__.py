"""The bit-flipping env (`env.type='bitflip'`)."""
from .bitflip_env import BitFlipEnv  # registers 'bitflip'

__all__ = ['BitFlipEnv']
