"""Bit flipping, the goal-conditioned toy task of hindsight experience replay (HER)."""
