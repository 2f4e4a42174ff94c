"""Distributed runs on Ray: the launcher behind `ditask` / `Parallel.runner` / `ding train
--collectors`, the node actor that runs a user's `main()`, the Ray-backed router and the
object-store helpers the exchangers use. Nothing here is imported by a single-process run, and
Ray itself is imported only when a distributed run starts (`ding[dist]`)."""


def require_ray():
    """Import ray, or fail naming the extra to install."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - the test install has ray
        raise ImportError('distributed runs need Ray: pip install "ding[dist]"') from e
    return ray
