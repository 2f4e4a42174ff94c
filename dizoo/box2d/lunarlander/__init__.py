"""LunarLander: env, PPO configs (discrete and continuous) and entry scripts."""
