"""FrozenLake (gymnasium's `FrozenLake-v1`) as a ding env: DI-engine's `dqn_frozen_lake` example."""
