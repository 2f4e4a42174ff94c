"""ding: a fast, resumable reinforcement-learning framework with DI-engine's middleware API."""
__version__ = '0.1.0'
