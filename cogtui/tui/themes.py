"""YAML themes: the built-in ones in cogtui/themes/ (package data), the user's in <config dir>/themes/, reloaded live.

A theme file is read as module YAML is (TUI-18): confined and size-capped, then the core's bounded YAML reader
(alias expansion bounded, a repeated key refused as P008). A file that does not parse or names a colour Textual
cannot read is reported (file:line:col and the parser's whole reason) and skipped; the app keeps (or falls back
to) a working theme.

Parsed theme files are remembered in <cache dir>/themes.json, keyed by their
exact text: importing and running the YAML parser was the largest part of
cogtui's start-up that a bare Textual app does not pay. A file whose text
differs from the cached copy is parsed again; a cache that is missing or
unreadable is ignored and rewritten.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import Theme

from cogtui.core.files.confined import ConfinementError, ParseFailure
from cogtui.core.settings.locations import cache_dir, config_dir

DEFAULT_THEME = "cogtui-dark"
THEME_CACHE_VERSION = 2  # 2: parsed by the bounded reader (TUI-18), which refuses what 1 kept
FALLBACK_THEME = "textual-dark"  # Textual's own: always registered, always valid
COLOR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


def builtin_theme_dir() -> Path:
    """The `cogtui.themes` package folder, wherever the package is installed (a wheel, editable or a checkout).

    Found from this module's own file, as the stylesheets are (stylesheets.STYLES): pip never installs a package
    zipped."""
    return Path(__file__).parent.parent / "themes"


def user_theme_dir() -> Path:
    return config_dir() / "themes"


class ThemeLoad:
    """What `load_themes` found."""

    def __init__(self) -> None:
        self.themes: list[Theme] = []
        self.problems: list[str] = []  # one line each, for notifications
        self.sources: dict[str, Path] = {}


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
        **colors,  # type: ignore[arg-type]  # the colour fields by name (a str each); mypy sees Theme's other keywords too
    )
    theme.to_color_system()  # raises on anything Textual cannot build a palette from
    return theme


class ParseCache:
    """Parsed YAML of theme files, keyed by path and checked against the file's whole text."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.used: dict[str, dict[str, Any]] = {}
        if path is None:
            return
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # no cache yet, or a damaged one: parse everything and write a new one
        if (
            isinstance(stored, dict)
            and stored.get("version") == THEME_CACHE_VERSION
            and isinstance(stored.get("files"), dict)
        ):
            self.entries = stored["files"]

    def parsed(self, path: Path, text: str) -> Any:
        key = str(path)
        entry = self.entries.get(key)
        if isinstance(entry, dict) and entry.get("text") == text and "raw" in entry:
            self.used[key] = entry
            return entry["raw"]
        raw = _parse_yaml(path, text)
        try:
            json.dumps(raw)  # only JSON-shaped results are kept (YAML dates and the like are not)
        except (TypeError, ValueError):
            return raw
        self.used[key] = {"text": text, "raw": raw}
        return raw

    def save(self) -> None:
        """Writes the entries used by this load, if they differ from what was read; failures are ignored."""
        if self.path is None or self.used == self.entries:
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"version": THEME_CACHE_VERSION, "files": self.used}), encoding="utf-8")
            os.replace(tmp, self.path)  # atomic: a concurrent start reads the old cache or the new one
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:  # the folder itself is not usable (not a directory, no permission)
                pass


THEME_FILE_LIMIT = 256 * 1024  # a theme is a few dozen lines


def theme_cache_file() -> Path:
    return cache_dir() / "themes.json"


def _parse_yaml(path: Path, text: str) -> Any:
    """The theme's value through the core's bounded YAML reading (sourcemap.parse_yaml): the size and alias
    expansion limits of module files, and a key given twice is P008 (TUI-18). Raises ParseFailure, located."""
    from cogtui.core.files.sourcemap import parse_yaml

    return parse_yaml(text, path).value


def _failure_text(failure: ParseFailure) -> str:
    """`file:line:col: message [code]`, with the parser's whole reason and the hint: a theme file is the user's own,
    so the problem names where it is and how to mend it."""
    found = failure.diagnostic
    hint = f" ({found.hint})" if found.hint else ""
    return f"{found.location}: {found.message} [{found.code}]{hint}"


def load_theme_file(path: Path, cache: ParseCache | None = None) -> Theme:
    """Raises ValueError with a message naming the file (with line and column when the problem has them)."""
    from cogtui.core.files.confined import read_confined
    from cogtui.core.files.decoding import decode_bytes  # not sourcemap: its YAML machinery is not needed here

    try:  # a regular file, size-capped (a FIFO named *.yaml in the themes folder would block the start for good)
        data = read_confined(path, limit=THEME_FILE_LIMIT)
    except ConfinementError as failure:
        why = failure.diagnostic.message  # its hint speaks of module files: not said here
        if failure.size is not None:
            why = f"{failure.size:,} bytes, over the {THEME_FILE_LIMIT:,} bytes limit for a theme file"
        raise ValueError(f"{path}: cannot read: {why} [{failure.diagnostic.code}]") from None
    except ParseFailure as failure:
        raise ValueError(f"{path}: cannot read: {failure.diagnostic.message} [{failure.diagnostic.code}]") from None
    try:
        text = decode_bytes(data, path)
        raw = cache.parsed(path, text) if cache is not None else _parse_yaml(path, text)
    except ParseFailure as failure:
        raise ValueError(_failure_text(failure)) from None
    try:
        return theme_from_mapping(raw, path)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - Textual's colour system may raise anything on odd input
        raise ValueError(f"{path}: {type(exc).__name__}: {exc}") from None


def load_themes(*folders: Path, cache_file: Path | None = None) -> ThemeLoad:
    """Every theme in `folders`; with `cache_file`, parsed YAML is reused from (and saved to) that file."""
    out = ThemeLoad()
    cache = ParseCache(cache_file) if cache_file is not None else None
    for folder in folders:
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path, cache)
            except ValueError as exc:
                out.problems.append(f"theme skipped: {exc}")
                continue
            out.themes.append(theme)
            out.sources[theme.name] = path
    if cache is not None:
        cache.save()
    return out


def every_theme() -> tuple[dict[str, bool], list[str]]:
    """({theme name: is an ANSI theme}, problems) for every theme cogtui can start with: Textual's own, then the
    built-in and user theme files (a user theme of the same name wins). For `cogtui doctor`, without an app."""
    from textual.theme import BUILTIN_THEMES

    loaded = load_themes(builtin_theme_dir(), user_theme_dir())
    themes = {name: theme.ansi for name, theme in BUILTIN_THEMES.items()}
    themes.update({theme.name: theme.ansi for theme in loaded.themes})
    return themes, loaded.problems


def start_in_theme(app: App[Any], name: str) -> bool:
    """Give a not yet running app its start theme without Textual's restyle; False when it must be set as usual.

    Setting `App.theme` queues a full re-parse of the stylesheet (`refresh_css`), which at start comes right
    after the first parse, made with Textual's default theme, and throws away the parse cache: the first frame
    waits for a second parse. Before the app runs nothing is styled yet, so the theme's
    variables in the stylesheet and its class on the app are all it takes: Textual's own documented
    `set_reactive(App.theme, ...)`. Only when the line filter the app built for its default theme (ANSI colours
    mapped for a dark or a light background, or not at all for an ANSI theme) is right for this one as well.
    """
    theme, now = app.available_themes.get(name), app.current_theme
    if app.is_running or theme is None or (theme.dark, theme.ansi) != (now.dark, now.ansi):
        return False
    app.set_reactive(App.theme, name)
    app.stylesheet.set_variables(app.get_css_variables())
    app.add_class(f"-theme-{name}", update=False)
    return True
