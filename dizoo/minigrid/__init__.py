"""MiniGrid (Farama's `minigrid` package): partially observed grid worlds such as DoorKey."""
