"""The user's settings: config.yaml in the platform config dir (or $COGTUI_CONFIG_FILE).

    theme: cogtui-dark
    watch: true                 # reload when module files change on disk
    keymap: {run: ctrl+r}       # binding id -> keys
    provider: replay            # default provider
    model: null
    providers:
      anthropic: {model: claude-sonnet-5-5}
      openai: {model: gpt-4o-mini, base_url: http://localhost:11434/v1, vision: false}
      replay: {interval: 0.01}

API keys never live here (only in the environment): a key found in the file is
ignored with a warning. A broken file yields defaults and a message, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogtui.core.settings.locations import config_file

SECRET_KEYS = ("api_key", "apikey", "key", "token", "secret", "password")


@dataclass
class Config:
    theme: str | None = None
    watch: bool = True
    keymap: dict[str, str] = field(default_factory=dict)
    provider: str | None = None
    model: str | None = None
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    run_deadline: float | None = 600.0  # seconds for a whole run; null for none (docs/security.md)
    media_roots: tuple[Path, ...] = ()  # folders besides a module's own that media `type: file` may read
    path: Path | None = None
    problems: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

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
        cfg.problems.append(f"{path}:{d.line}:{d.column}: {d.message}; using defaults")
        return cfg
    raw = src.value if isinstance(src.value, dict) else {}
    if src.value is not None and not isinstance(src.value, dict):
        cfg.problems.append(f"{path}: the config must be a mapping; using defaults")
    cfg.raw = raw
    if isinstance(raw.get("theme"), str):
        cfg.theme = raw["theme"]
    if isinstance(raw.get("watch"), bool):
        cfg.watch = raw["watch"]
    if isinstance(raw.get("keymap"), dict):
        cfg.keymap = {str(k): str(v) for k, v in raw["keymap"].items() if isinstance(v, str)}
    deadline = raw.get("run_deadline", cfg.run_deadline)
    if deadline is None or (isinstance(deadline, (int, float)) and not isinstance(deadline, bool) and deadline > 0):
        cfg.run_deadline = float(deadline) if deadline is not None else None
    else:
        cfg.problems.append(f"{path}: run_deadline must be a positive number of seconds or null; using 600")
    if isinstance(raw.get("media_roots"), list):
        cfg.media_roots = tuple(Path(str(p)).expanduser() for p in raw["media_roots"] if isinstance(p, str) and p)
    for key in ("provider", "model"):
        if isinstance(raw.get(key), str):
            setattr(cfg, key, raw[key])
    if isinstance(raw.get("providers"), dict):
        for name, settings in raw["providers"].items():
            if not isinstance(settings, dict):
                continue
            clean = {}
            for k, v in settings.items():
                if str(k).lower() in SECRET_KEYS:
                    cfg.problems.append(
                        f"{path}: providers.{name}.{k} ignored: keys belong in the environment, never in files"
                    )
                else:
                    clean[str(k)] = v
            cfg.providers[str(name)] = clean
    return cfg


def save_setting(key: str, value: Any, path: Path | None = None) -> Path:
    """Set one top-level key, keeping the rest of the file (comments are lost only in that file's rewrite).

    A file that cannot be read or does not parse as a mapping is left exactly as it is (ValueError or
    OSError): rewriting it from scratch would throw the user's other settings away.
    """
    import yaml

    path = path or config_file()
    raw: dict[str, Any] = {}
    if path.exists():
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, yaml.YAMLError) as exc:
            raise ValueError(f"{path} does not parse ({type(exc).__name__}); fix it, then choose again") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{path} is not a mapping of settings; fix it, then choose again")
        raw = loaded or {}
    raw[key] = value
    from cogtui.core.files.editor_snapshot import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, yaml.safe_dump(raw, sort_keys=False, allow_unicode=True).encode("utf-8"))
    return path
