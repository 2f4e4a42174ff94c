"""Plumbing the dizoo entry scripts share: config loading, command lines and the pipelines."""
