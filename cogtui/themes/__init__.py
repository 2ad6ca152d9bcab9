"""The built-in themes: YAML files shipped inside the package and found with importlib.resources.

Users add their own in `<config dir>/themes/` (same format); see cogtui/tui/themes.py.
"""
