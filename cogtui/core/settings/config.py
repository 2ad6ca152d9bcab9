"""The user's settings: config.yaml in the platform config dir (or $COGTUI_CONFIG_FILE).

    theme: cogtui-dark
    watch: true                 # reload when module files change on disk
    animations: false
    keymap: {run: ctrl+r}       # binding id -> keys
    provider: replay            # default provider
    model: null
    providers:
      anthropic: {model: claude-sonnet-5-5}
      openai: {model: gpt-4o-mini, base_url: http://localhost:11434/v1, vision: false}
      replay: {interval: 0.01}
    output_fixes: [confidence_clamp]   # beyond the spec's repair pass; `cogn run --strict` turns them off
    prices:                     # dollars per million tokens, for `cogn eval`'s cost estimate (settings/prices.py)
      my-model: {input: 1, output: 2, cache_read: 0.1}
    judge: {provider: anthropic, model: claude-haiku-4-5}   # who scores `$judge` goldens (docs/golden-tests.md)

The file is validated into a typed `Config`. A setting of the wrong type, an
unknown setting, or an API key found in the file is reported with its line and
column and ignored (keys belong in the environment only). A file that does not
parse yields defaults and a located message, never a crash, and it is never
rewritten: saving a setting edits the file in place (settings/config_file.py).
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogtui.core.records import field, record
from cogtui.core.settings.config_file import SettingNotSaved, save_setting
from cogtui.core.settings.locations import config_file

if TYPE_CHECKING:
    from cogtui.core.files.sourcemap import SourceFile
    from cogtui.core.settings.prices import Price

__all__ = ["SECRET_KEYS", "SETTINGS", "Config", "SettingNotSaved", "load_config", "save_setting"]

SECRET_KEYS = ("api_key", "apikey", "key", "token", "secret", "password")

# Every top-level setting: its expected kind, as the message names it.
SETTINGS: dict[str, str] = {
    "theme": "a theme name",
    "watch": "true or false",
    "animations": "true or false",
    "keymap": "a mapping of binding id to keys",
    "provider": "a provider name",
    "model": "a model name or null",
    "providers": "a mapping of provider name to its settings",
    "output_fixes": "a list of output fix names (confidence_clamp, confidence_text, enum_hyphens, corrective_retry, all)",
    "run_deadline": "a positive number of seconds or null",
    "media_roots": "a list of folders",
    "prices": "a mapping of model name (or glob pattern) to its prices",
    "history": "a mapping with url: the run history's location (docs/team-history.md)",
    "judge": "a mapping with provider (and model): the target of the rubric judge (docs/golden-tests.md)",
}


@record(frozen=False)
class Config:
    """config.yaml, validated: each setting, its value or the default."""

    theme: str | None = None
    watch: bool = True
    animations: bool = False
    keymap: dict[str, str] = field(default_factory=dict)
    provider: str | None = None
    model: str | None = None
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    output_fixes: list[str] = field(default_factory=list)  # opt-in fixes beyond the repair pass (ENV-10)
    run_deadline: float | None = 600.0  # seconds for a whole run; null for none (docs/security.md)
    media_roots: tuple[Path, ...] = ()  # folders besides a module's own that media `type: file` may read
    prices: dict[str, Price] = field(default_factory=dict)  # the user's price entries, before the built-in ones
    judge_provider: str | None = None  # `judge: {provider, model}`: who scores `$judge` goldens (run/judge.py)
    judge_model: str | None = None
    path: Path | None = None
    problems: list[str] = field(default_factory=list)  # one located line each: "file:line:col: message"
    # binding id -> "file:line:col" of its keymap entry, for located keymap problems (TUI-14)
    keymap_where: dict[str, str] = field(default_factory=dict, compare=False)
    raw: dict[str, Any] = field(default_factory=dict)  # the file as parsed, for reference

    def provider_settings(self, name: str) -> dict[str, Any]:
        return dict(self.providers.get(name) or {})


def load_config(path: Path | None = None) -> Config:
    path = path or config_file()
    cfg = Config(path=path)
    if not path.exists():
        return cfg
    from cogtui.core.files.sourcemap import ParseFailure, parse_yaml, read_text  # only when there is a file to parse

    try:
        src = parse_yaml(read_text(path), path)
    except ParseFailure as exc:
        d = exc.diagnostic
        where = f"{path}:{d.line}:{d.column}" if d.line is not None else str(path)
        cfg.problems.append(f"{where}: {d.message}; using defaults (the file is left as it is)")
        return cfg
    if src.value is None:
        return cfg
    if not isinstance(src.value, dict):
        cfg.problems.append(f"{path}:1:1: the config must be a mapping of settings; using defaults")
        return cfg
    cfg.raw = src.value
    _Reader(cfg, src).read(src.value)
    return cfg


class _Reader:
    """Fills a Config from a parsed mapping, reporting every value it cannot use where it is."""

    def __init__(self, cfg: Config, src: SourceFile) -> None:
        self.cfg, self.src = cfg, src

    def problem(self, parts: tuple[Hashable, ...], message: str, key: bool = False) -> None:
        line, col = self.src.locate(parts, key=key)
        self.cfg.problems.append(f"{self.src.path}:{line}:{col}: {message}")

    def read(self, raw: dict[Any, Any]) -> None:
        cfg = self.cfg
        for name, value in raw.items():
            key = str(name)
            if key not in SETTINGS:
                from cogtui.core.files.written import as_written  # the file is parsed: sourcemap is loaded

                # the key quoted as the file writes it (`null:`, not Python's None: CODE-9)
                shown = as_written(name, self.src, (name,), key=True)
                self.problem((name,), f"unknown setting {shown} ignored (known: {', '.join(SETTINGS)})", key=True)
            elif key in ("theme", "provider") and isinstance(value, str):
                setattr(cfg, key, value)
            elif key == "model" and (value is None or isinstance(value, str)):
                cfg.model = value
            elif key in ("watch", "animations") and isinstance(value, bool):
                setattr(cfg, key, value)
            elif key == "keymap" and isinstance(value, dict):
                cfg.keymap = self.keymap(value)
            elif key == "providers" and isinstance(value, dict):
                cfg.providers = self.providers(value)
            elif key == "output_fixes" and isinstance(value, list) and all(isinstance(x, str) for x in value):
                cfg.output_fixes = list(value)
            elif key == "run_deadline" and (
                value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0)
            ):
                cfg.run_deadline = None if value is None else float(value)
            elif key == "media_roots" and isinstance(value, list) and all(isinstance(p, str) for p in value):
                cfg.media_roots = tuple(Path(p).expanduser() for p in value if p)
            elif key == "prices" and isinstance(value, dict):
                cfg.prices = self.prices(value)
            elif key == "history" and isinstance(value, dict):
                self.history(value)  # read where it is used (history/location.py), from the raw mapping
            elif key == "judge" and isinstance(value, dict):
                self.judge(value)
            else:
                self.problem((key,), f"{key} must be {SETTINGS[key]}, not {_kind(value)}; ignored")

    def history(self, value: dict[Any, Any]) -> None:
        for name, item in value.items():
            if str(name) != "url":
                self.problem(("history", str(name)), f"unknown setting 'history.{name}' ignored (known: url)", key=True)
            elif not isinstance(item, str) or not item.strip():
                self.problem(("history", "url"), f"history.url must be a location as text, not {_kind(item)}; ignored")

    def judge(self, value: dict[Any, Any]) -> None:
        """`judge: {provider: P, model: M}`: the provider is checked where it is used (run/providers), as `provider` is."""
        for name, item in value.items():
            key = str(name)
            if key not in ("provider", "model"):
                self.problem(
                    ("judge", key), f"unknown setting 'judge.{name}' ignored (known: provider, model)", key=True
                )
            elif key == "model" and item is None:
                continue
            elif not isinstance(item, str) or not item.strip():
                self.problem(("judge", key), f"judge.{key} must be a {key} name as text, not {_kind(item)}; ignored")
            else:
                setattr(self.cfg, f"judge_{key}", item.strip())
        if self.cfg.judge_provider is None and self.cfg.judge_model is not None:
            self.problem(("judge",), "judge names a model but no provider; set judge.provider too (ignored until then)")
            self.cfg.judge_model = None

    def keymap(self, value: dict[Any, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for binding, keys in value.items():
            if isinstance(keys, str):
                out[str(binding)] = keys
                line, col = self.src.locate(("keymap", str(binding)), key=True)
                self.cfg.keymap_where[str(binding)] = f"{self.src.path}:{line}:{col}"
            else:
                self.problem(("keymap", str(binding)), f"keymap.{binding} must be keys as text; ignored")
        return out

    def prices(self, value: dict[Any, Any]) -> dict[str, Price]:
        from cogtui.core.settings.prices import parse_price  # its table is for evals: imported when prices are set

        out: dict[str, Price] = {}
        for model, entry in value.items():
            price, problem = parse_price(entry)
            if price is None:
                self.problem(("prices", str(model)), f"prices.{model} {problem}; ignored")
            else:
                out[str(model)] = price
        return out

    def providers(self, value: dict[Any, Any]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, settings in value.items():
            if not isinstance(settings, dict):
                self.problem(("providers", str(name)), f"providers.{name} must be a mapping; ignored")
                continue
            clean: dict[str, Any] = {}
            for k, v in settings.items():
                if str(k).lower() in SECRET_KEYS:
                    self.problem(
                        ("providers", str(name), str(k)),
                        f"providers.{name}.{k} ignored: keys belong in the environment, never in files",
                        key=True,
                    )
                else:
                    clean[str(k)] = v
            out[str(name)] = clean
        return out


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "a list", dict: "a mapping"}.get(
        type(value), type(value).__name__
    )
