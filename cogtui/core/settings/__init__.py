"""The user's settings and where cogtui keeps its own files.

`config.yaml` as a typed object (never rewritten destructively) and the
platform folders for history, backups, caches and configuration.
"""
