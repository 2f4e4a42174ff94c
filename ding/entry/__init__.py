"""The `ding` command line (`ding.entry.cli:main`) and the pipeline it builds: `ding train`,
`resume`, `eval`, `plot`, `list`, and DI-engine's `ding -m serial -c CONFIG -s SEED`."""
