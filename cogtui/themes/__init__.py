"""The built-in themes: YAML files shipped inside the package and found next to the code that reads them
(cogtui/tui/themes.py's builtin_theme_dir).

Users add their own in `<config dir>/themes/` (same format); see cogtui/tui/themes.py.
"""
