"""PettingZoo multi-agent envs (MPE's simple_spread and simple_reference, via the mpe2 package)."""
