"""What exists only so that programs written for DI-engine run unchanged.

The core (every other package of `ding`) imports nothing from here; `tests/foundation/
test_import_graph.py` holds that. The public DI-engine names that need a shim (for example
`ding.policy.PPOPolicy`, which DI-engine builds as MAPPO under `multi_agent=True`) are exported
from their usual packages and defined here.
"""
