"""config.yaml: validated into a typed Config with located problems; saving a setting never destroys the file."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from cogtui.core.settings.config import SETTINGS, Config, SettingNotSaved, load_config, save_setting


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_config_becomes_a_typed_object(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "theme: cogtui-light\nwatch: false\nanimations: true\nkeymap: {run.run: ctrl+e}\n"
        "provider: openai\nmodel: m\nproviders:\n  openai: {model: x, vision: false}\n",
    )
    cfg = load_config(path)
    assert cfg == Config(
        theme="cogtui-light",
        watch=False,
        animations=True,
        keymap={"run.run": "ctrl+e"},
        provider="openai",
        model="m",
        providers={"openai": {"model": "x", "vision": False}},
        path=path,
        raw=cfg.raw,
    )
    assert cfg.problems == []


def test_wrong_types_unknown_settings_and_keys_are_located_and_ignored(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "theme: 3\nwatch: 'yes'\nkeymap:\n  run.run: [ctrl+e]\nthme: x\nproviders:\n  openai:\n    api_key: sk-x\n",
    )
    cfg = load_config(path)
    assert (cfg.theme, cfg.watch, cfg.keymap, cfg.providers) == (None, True, {}, {"openai": {}})
    assert cfg.problems == [
        f"{path}:1:8: theme must be a theme name, not a number; ignored",
        f"{path}:2:8: watch must be true or false, not text; ignored",
        f"{path}:4:12: keymap.run.run must be keys as text; ignored",
        f"{path}:5:1: unknown setting 'thme' ignored (known: {', '.join(SETTINGS)})",
        f"{path}:8:5: providers.openai.api_key ignored: keys belong in the environment, never in files",
    ]
    assert "sk-x" not in "".join(cfg.problems)


def test_history_url_is_a_known_setting_and_its_mistakes_are_located(tmp_path: Path) -> None:
    """docs/team-history.md documents `history: {url: ...}`: doctor and the TUI must not call it unknown."""
    good = write(tmp_path, "history:\n  url: sqlite:////tmp/team.sqlite3\n")
    assert load_config(good).problems == []
    bad = write(tmp_path, "history:\n  url: 5\n  uri: x\n")
    assert load_config(bad).problems == [
        f"{bad}:2:8: history.url must be a location as text, not a number; ignored",
        f"{bad}:3:3: unknown setting 'history.uri' ignored (known: url)",
    ]


def test_a_config_that_does_not_parse_is_reported_where_and_left_alone(tmp_path: Path) -> None:
    broken = "# mine\ntheme: cogtui-dark\nproviders: {openai: {model: x}\n"  # unclosed flow mapping
    path = write(tmp_path, broken)
    cfg = load_config(path)
    assert cfg.theme is None and len(cfg.problems) == 1
    # Located at the brace that is never closed (CODE-7), not where the parser gave up.
    assert cfg.problems[0].startswith(f"{path}:3:12: YAML syntax error") and "using defaults" in cfg.problems[0]
    with pytest.raises(SettingNotSaved, match=r"config\.yaml:3:12: YAML syntax error.*fix it, then choose again"):
        save_setting("theme", "cogtui-light", path)
    assert path.read_text(encoding="utf-8") == broken
    path.write_text("- a list\n", encoding="utf-8")
    assert load_config(path).problems == [f"{path}:1:1: the config must be a mapping of settings; using defaults"]
    with pytest.raises(SettingNotSaved, match="must be a mapping"):
        save_setting("theme", "cogtui-light", path)
    assert path.read_text(encoding="utf-8") == "- a list\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]  # no temporary file left behind


def test_saving_changes_only_the_value_and_keeps_comments_and_order(tmp_path: Path) -> None:
    text = (
        "# my settings\n"
        "theme: cogtui-dark   # the dark one\n"
        "\n"
        "keymap:\n"
        "  run.run: ctrl+e\n"
        "# providers below\n"
        "providers:\n"
        "  openai: {model: x}  # local\n"
    )
    path = write(tmp_path, text)
    save_setting("theme", "cogtui-light", path)
    assert path.read_text(encoding="utf-8") == text.replace("cogtui-dark ", "cogtui-light ")
    save_setting("keymap", {"run.run": "ctrl+e", "app.help": "f1"}, path)
    after = path.read_text(encoding="utf-8")
    assert after == text.replace("cogtui-dark ", "cogtui-light ").replace(
        "  run.run: ctrl+e\n", "  {run.run: ctrl+e, app.help: f1}\n"
    )
    save_setting("watch", False, path)
    assert path.read_text(encoding="utf-8") == after + "watch: false\n"
    cfg = load_config(path)
    assert (cfg.theme, cfg.watch, cfg.keymap["app.help"], cfg.providers) == (
        "cogtui-light",
        False,
        "f1",
        {"openai": {"model": "x"}},
    )


def test_saving_keeps_line_endings_bom_and_quotes_what_needs_quoting(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(codecs.BOM_UTF8 + b"theme: x\r\n# end")
    save_setting("theme", "yes", path)  # `yes` unquoted would read back as a boolean
    save_setting("model", None, path)
    assert path.read_bytes() == codecs.BOM_UTF8 + b"theme: 'yes'\r\n# end\r\nmodel: null\r\n"
    assert load_config(path).theme == "yes"


def test_a_missing_or_empty_file_gets_just_the_setting(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.yaml"
    save_setting("theme", "cogtui-light", path)
    assert path.read_text(encoding="utf-8") == "theme: cogtui-light\n"
    empty = write(tmp_path, "# nothing yet\n")
    save_setting("watch", True, empty)
    assert empty.read_text(encoding="utf-8") == "# nothing yet\nwatch: true\n"


def test_a_layout_that_cannot_be_edited_in_place_is_refused_not_rewritten(tmp_path: Path) -> None:
    text = "{theme: x,\n  watch: true}\n"  # a flow mapping: a new line appended after it would not parse
    path = write(tmp_path, text)
    save_setting("theme", "cogtui-light", path)  # the value itself can still be replaced in place
    assert path.read_text(encoding="utf-8") == "{theme: cogtui-light,\n  watch: true}\n"
    with pytest.raises(SettingNotSaved, match=r"cannot be changed in place.*set `provider: replay` there yourself"):
        save_setting("provider", "replay", path)
    assert path.read_text(encoding="utf-8") == "{theme: cogtui-light,\n  watch: true}\n"


def test_saving_through_a_linked_config_writes_the_file_it_links_to(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "config.yaml"
    target.write_text("# mine\ntheme: cogtui-dark\n", encoding="utf-8")
    link = tmp_path / "config.yaml"
    link.symlink_to(target)
    save_setting("theme", "cogtui-light", link)
    assert link.is_symlink() and link.resolve() == target.resolve()  # still the link: nothing put in its place
    assert target.read_text(encoding="utf-8") == "# mine\ntheme: cogtui-light\n"
