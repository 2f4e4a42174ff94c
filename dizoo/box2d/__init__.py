"""Box2D environments (need the optional extra: pip install "ding[box2d]")."""
