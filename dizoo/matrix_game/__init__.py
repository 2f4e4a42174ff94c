"""Tiny cooperative matrix games, where value decomposition methods are known to differ."""
