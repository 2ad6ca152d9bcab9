"""The theme parse cache: reused only for identical text, rebuilt when damaged, never in the way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cogtui.tui.themes import THEME_CACHE_VERSION, ThemeLoad, builtin_theme_dir, load_themes, theme_cache_file


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _primaries(folder: Path, cache: Path) -> dict[str, str]:
    loaded = load_themes(folder, cache_file=cache)
    return {t.name: str(t.primary) for t in loaded.themes}


def test_cache_is_written_and_reused_only_while_the_text_is_identical(tmp_path: Path) -> None:
    themes, cache = tmp_path / "themes", tmp_path / "cache" / "themes.json"
    path = _write(themes, "mine.yaml", "name: mine\nprimary: '#336699'\n")
    assert _primaries(themes, cache) == {"mine": "#336699"}
    stored = json.loads(cache.read_text(encoding="utf-8"))
    entry = stored["files"][str(path)]
    assert entry["raw"] == {"name": "mine", "primary": "#336699"}

    # Tamper with the cached parse while the text matches: the cached value is what loads, proving no re-parse.
    entry["raw"]["primary"] = "#112233"
    cache.write_text(json.dumps(stored), encoding="utf-8")
    assert _primaries(themes, cache) == {"mine": "#112233"}

    # Any change to the file's text means a fresh parse, and the cache follows.
    path.write_text("name: mine\nprimary: '#336699'\ndark: false\n", encoding="utf-8")
    assert _primaries(themes, cache) == {"mine": "#336699"}
    assert json.loads(cache.read_text(encoding="utf-8"))["files"][str(path)]["raw"]["dark"] is False


def test_damaged_or_foreign_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    themes, cache = tmp_path / "themes", tmp_path / "themes.json"
    _write(themes, "mine.yaml", "name: mine\nprimary: '#336699'\n")
    for junk in ("{not json", json.dumps({"version": 999, "files": {}}), json.dumps([1, 2])):
        cache.write_text(junk, encoding="utf-8")
        assert _primaries(themes, cache) == {"mine": "#336699"}
        assert json.loads(cache.read_text(encoding="utf-8"))["version"] == THEME_CACHE_VERSION


def test_broken_themes_are_reported_every_time_and_not_cached(tmp_path: Path) -> None:
    themes, cache = tmp_path / "themes", tmp_path / "themes.json"
    broken = _write(themes, "broken.yaml", "name: broken\nprimary: [not, closed\n")
    _write(themes, "good.yaml", "name: good\nprimary: '#336699'\n")
    for _ in range(2):
        loaded = load_themes(themes, cache_file=cache)
        assert [t.name for t in loaded.themes] == ["good"]
        assert (
            len(loaded.problems) == 1
            and "broken.yaml:" in loaded.problems[0]
            and "YAML syntax error" in loaded.problems[0]
        )
    assert str(broken) not in json.loads(cache.read_text(encoding="utf-8"))["files"]


def test_cached_parse_is_still_checked_as_a_theme(tmp_path: Path) -> None:
    themes, cache = tmp_path / "themes", tmp_path / "themes.json"
    path = _write(themes, "mine.yaml", "name: mine\nprimary: '#336699'\n")
    _primaries(themes, cache)
    stored = json.loads(cache.read_text(encoding="utf-8"))
    stored["files"][str(path)]["raw"]["primary"] = "not-a-colour"
    cache.write_text(json.dumps(stored), encoding="utf-8")
    loaded = load_themes(themes, cache_file=cache)
    assert loaded.themes == [] and "not a colour" in loaded.problems[0]


def test_removed_files_leave_the_cache(tmp_path: Path) -> None:
    themes, cache = tmp_path / "themes", tmp_path / "themes.json"
    gone = _write(themes, "gone.yaml", "name: gone\nprimary: '#336699'\n")
    _write(themes, "kept.yaml", "name: kept\nprimary: '#336699'\n")
    _primaries(themes, cache)
    gone.unlink()
    assert _primaries(themes, cache) == {"kept": "#336699"}
    assert list(json.loads(cache.read_text(encoding="utf-8"))["files"]) == [str(themes / "kept.yaml")]


def test_unwritable_cache_location_costs_nothing_but_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    loaded = load_themes(builtin_theme_dir(), cache_file=blocker / "themes.json")
    assert loaded.problems == [] and {"cogtui-dark", "cogtui-light", "cogtui-ansi"} <= {t.name for t in loaded.themes}
    assert list(tmp_path.iterdir()) == [blocker]  # no stray temporary file either


def test_warm_start_does_not_import_yaml(tmp_path: Path) -> None:
    """With an empty config the app's start never loads PyYAML: the built-in themes are plain block YAML, which the
    core's reader reads without it (TUI-18), and a warm start reads the cache, so it does not import the core's YAML
    reading (sourcemap.py and what it imports, ~2.5 ms of the first frame) either."""
    env_code = (
        "import sys\n"
        "from cogtui.tui.themes import THEME_CACHE_VERSION, ThemeLoad, builtin_theme_dir, load_themes, theme_cache_file\n"
        "from cogtui.core.settings.config import load_config\n"
        "load_config()\n"
        "loaded = load_themes(builtin_theme_dir(), cache_file=theme_cache_file())\n"
        "print(len(loaded.themes), 'yaml' in sys.modules, 'cogtui.core.files.sourcemap' in sys.modules)\n"
    )
    env = {
        "COGTUI_CACHE_DIR": str(tmp_path / "cache"),
        "COGTUI_CONFIG_FILE": str(tmp_path / "config.yaml"),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PATH": "/usr/bin:/bin",
    }
    runs = [
        subprocess.run([sys.executable, "-c", env_code], env=env, capture_output=True, text=True, timeout=60)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    cold, warm = (r.stdout.split() for r in runs)
    assert cold == ["3", "False", "True"]  # first start parses the YAML (the core's block reader)
    assert warm == ["3", "False", "False"]  # the second reads the cache
    assert (tmp_path / "cache" / "themes.json").is_file()
    assert theme_cache_file().name == "themes.json"


def test_a_fifo_or_a_huge_file_in_the_themes_folder_is_skipped_not_waited_on(tmp_path: Path) -> None:
    """A theme file is read as a regular, size-capped file: a FIFO named *.yaml blocked the start for good."""
    import os
    import threading

    from cogtui.tui.themes import THEME_FILE_LIMIT

    folder = tmp_path / "themes"
    folder.mkdir()
    os.mkfifo(folder / "pipe.yaml")
    (folder / "huge.yaml").write_text("name: huge\n" + "#" * (THEME_FILE_LIMIT + 1), encoding="utf-8")
    loaded: list[ThemeLoad] = []
    reader = threading.Thread(target=lambda: loaded.append(load_themes(folder)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading the themes folder blocked on a FIFO"
    (result,) = loaded
    problems = "\n".join(result.problems)
    assert "pipe.yaml: cannot read" in problems and "FIFO" in problems and "huge.yaml: cannot read" in problems
    assert result.themes == []
