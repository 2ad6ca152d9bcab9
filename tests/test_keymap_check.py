"""TUI-14: config.yaml keymap entries that name no binding, or give a key another binding of the same screen (or an
app-wide one) already has, are reported with their place in the file (the core rule; the TUI and doctor show it)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.settings.config import load_config
from cogtui.core.settings.keymap_check import keymap_problems, split_keys

BINDINGS = [
    ("app.quit", "q"),
    ("app.help", "question_mark,f1"),
    ("browser.run", "r"),
    ("browser.insights", "i"),
    ("browser.filter", "slash"),
    ("editor.save", "ctrl+s"),
    ("history.rerun", "r"),
    ("migrate.next_file", "j,n"),
]


def messages(keymap: dict[str, str], where: dict[str, str] | None = None) -> list[str]:
    return [str(p) for p in keymap_problems(keymap, BINDINGS, where)]


def test_no_keymap_or_free_keys_are_fine() -> None:
    assert messages({}) == []
    assert messages({"browser.run": "x", "migrate.next_file": "down, n"}) == []
    # The same key on two screens is no clash: they are never active together.
    assert messages({"editor.save": "r"}) == []


def test_an_unknown_id_is_named_with_the_closest_real_one() -> None:
    [problem] = messages({"browser.flter": "f"}, {"browser.flter": "config.yaml:3:3"})
    assert (
        problem == "config.yaml:3:3: keymap.browser.flter: no key binding has this id; did you mean 'browser.filter'?"
    )
    [far] = messages({"nothing.like.it": "f"})
    assert "no key binding has this id" in far and "did you mean" not in far


def test_a_key_taken_twice_on_one_screen_or_with_an_app_key_is_a_clash() -> None:
    [same_screen] = messages({"browser.run": "i"}, {"browser.run": "config.yaml:2:3"})
    assert same_screen == (
        "config.yaml:2:3: keymap.browser.run: 'i' is also the key of browser.insights; only one of them can have it"
    )
    app_wide = messages({"app.quit": "r"})
    assert sorted(app_wide) == [
        "keymap.app.quit: 'r' is also the key of browser.run; only one of them can have it",
        "keymap.app.quit: 'r' is also the key of history.rerun; only one of them can have it",
    ]
    # Both remapped onto one key: one report for the pair, not two.
    assert len(messages({"browser.run": "z", "browser.insights": "z"})) == 1
    # A swap is no clash: each binding ends up with the other's old key.
    assert messages({"browser.run": "i", "browser.insights": "r"}) == []


def test_empty_keys_and_split_keys() -> None:
    assert split_keys(" j, n ,") == ["j", "n"]
    assert messages({"browser.run": " , "}) == ["keymap.browser.run: no key given"]


def test_config_records_where_each_keymap_entry_is(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("theme: cogtui-dark\nkeymap:\n  browser.run: i\n  # a comment\n  app.quit: x\n", encoding="utf-8")
    config = load_config(path)
    assert config.keymap == {"browser.run": "i", "app.quit": "x"}
    assert config.keymap_where == {"browser.run": f"{path}:3:3", "app.quit": f"{path}:5:3"}


def test_a_key_no_key_press_has_is_named_with_the_form_keys_take() -> None:
    def lowercase_only(key: str) -> bool:
        return key == key.lower() and "ctlr" not in key

    found = [
        str(p)
        for p in keymap_problems(
            {"browser.filter": "Ctrl+F", "browser.run": "ctlr+r, r"}, BINDINGS, None, lowercase_only
        )
    ]
    assert len(found) == 2
    assert found[0].startswith("keymap.browser.filter: 'Ctrl+F' is no key a terminal sends")
    assert "ctrl+f, shift+tab" in found[0] and found[1].startswith("keymap.browser.run: 'ctlr+r'")
    assert keymap_problems({"browser.filter": "Ctrl+F"}, BINDINGS) == []  # no judge given: ids and clashes only


def test_the_tuis_key_names_are_textuals() -> None:
    """Every default key of every binding is a name Textual matches; typos and capitals are not."""
    from cogtui.tui.keys import every_spec, is_key

    assert all(is_key(k) for spec in every_spec() for k in split_keys(spec.keys))
    for good in ("ctrl+f", "slash", "question_mark", "minus", "F", "f12", "shift+tab", "alt+right", "comma"):
        assert is_key(good), good
    for bad in ("Ctrl+F", "ctlr+h", "notakey+foo", "hyphen_minus", "ctrl+", "pg_down"):
        assert not is_key(bad), bad
