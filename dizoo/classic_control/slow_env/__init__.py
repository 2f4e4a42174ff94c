"""A CartPole that burns CPU on every step: the test bed for parallel sampling."""
