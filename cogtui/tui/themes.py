"""YAML themes: the built-in ones in themes/, the user's in <config dir>/themes/, reloaded live.

A theme file that does not parse or names a colour Textual cannot read is
reported and skipped; the app keeps (or falls back to) a working theme.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from ..core.paths import config_dir

DEFAULT_THEME = "cogtui-dark"
FALLBACK_THEME = "textual-dark"  # Textual's own: always registered, always valid
COLOR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                "surface", "panel", "boost")


def builtin_theme_dir() -> Path:
    """themes/ at the project root (the package sits beside it in a checkout and in editable installs)."""
    return Path(__file__).resolve().parents[2] / "themes"


def user_theme_dir() -> Path:
    return config_dir() / "themes"


@dataclass
class ThemeLoad:
    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line each, for notifications
    sources: dict[str, Path] = field(default_factory=dict)


def _check_color(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a colour string")
    if value.startswith("ansi_"):
        return value
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{where}: {value!r} is not a colour") from None
    return value


def theme_from_mapping(raw: Any, path: Path) -> Theme:
    if not isinstance(raw, dict):
        raise ValueError("a theme file must be a mapping")
    name = raw.get("name") or path.stem
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name must be a non-empty string")
    if "primary" not in raw:
        raise ValueError("primary is required")
    colors = {k: _check_color(raw[k], k) for k in COLOR_FIELDS if raw.get(k) is not None}
    variables = raw.get("variables") or {}
    if not isinstance(variables, dict):
        raise ValueError("variables must be a mapping")
    theme = Theme(
        name=name,
        dark=bool(raw.get("dark", True)),
        ansi=bool(raw.get("ansi", False)),
        variables={str(k): str(v) for k, v in variables.items()},
        **colors,  # type: ignore[arg-type]
    )
    theme.to_color_system()  # raises on anything Textual cannot build a palette from
    return theme


def load_theme_file(path: Path) -> Theme:
    """Raises ValueError with a message naming the file (and line for YAML errors)."""
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path.name}: cannot read: {exc}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ValueError(f"{path.name}{where}: YAML syntax error: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path.name}: YAML error: {exc}") from None
    try:
        return theme_from_mapping(raw, path)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - Textual's colour system may raise anything on odd input
        raise ValueError(f"{path.name}: {type(exc).__name__}: {exc}") from None


def load_themes(*folders: Path) -> ThemeLoad:
    out = ThemeLoad()
    for folder in folders:
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                out.problems.append(f"theme skipped: {exc}")
                continue
            out.themes.append(theme)
            out.sources[theme.name] = path
    return out
