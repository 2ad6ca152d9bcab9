"""The user's settings and where cogtui keeps its own files.

`config.py` validates config.yaml into a typed `Config` (every unusable value
reported with its line and column); `config_file.py` saves one setting by
editing the file in place, or refuses and leaves it untouched; `locations.py`
names the platform folders for history, backups, caches and configuration.
"""
