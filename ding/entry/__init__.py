"""The `ding` command line (`ding.entry.cli:main`) and the pipeline it builds: `ding train`,
`resume`, `eval`, `plot`, `list`, and `ding -m serial -c CONFIG -s SEED`."""
from ding.utils.lazy import lazy_exports

# the Python entry functions, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {
    'serial_pipeline_offline': 'serial_offline',
    'trex_collecting_data': 'application_entry_trex_collect_data',
})
