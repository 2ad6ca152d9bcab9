"""cogtui's per-user folders are platformdirs' (computed without importing it on Linux: locations.user_dir)."""

from __future__ import annotations

import sys

import platformdirs
import pytest

from cogtui.core.settings import locations

HOMES = ["/home/ann", "/", "/home/ann/", "relative/home", ""]
XDG_VALUES = [None, "", "/xdg/base", "relative/xdg", "/xdg/trailing/", "~/tilde"]


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("xdg", XDG_VALUES)
@pytest.mark.parametrize("kind", ["data", "config", "cache"])
def test_each_folder_is_the_one_platformdirs_names(
    monkeypatch: pytest.MonkeyPatch, kind: str, xdg: str | None, home: str
) -> None:
    variable = {"data": "XDG_DATA_HOME", "config": "XDG_CONFIG_HOME", "cache": "XDG_CACHE_HOME"}[kind]
    monkeypatch.setenv("HOME", home)
    if xdg is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, xdg)
    expected = getattr(platformdirs, f"user_{kind}_dir")("cogtui")
    assert locations.user_dir(kind) == expected


def test_the_linux_rule_is_computed_without_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the XDG rule applies, the answer does not come from platformdirs (whose import is what it saves)."""
    if sys.platform != "linux":
        pytest.fail("this check is about Linux; it needs a Linux machine")
    monkeypatch.setenv("HOME", "/home/ann")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/xdg")
    monkeypatch.setattr(platformdirs, "user_config_dir", lambda *a, **k: "/not/used")
    assert locations.config_dir() == locations.Path("/xdg/cogtui")
    monkeypatch.setenv("HOME", "relative")  # a corner case: platformdirs decides
    assert locations.config_dir() == locations.Path("/not/used")


def test_the_environment_overrides_still_win(monkeypatch: pytest.MonkeyPatch, tmp_path: locations.Path) -> None:
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COGTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "c.yaml"))
    assert locations.data_dir() == tmp_path / "data"
    assert locations.cache_dir() == tmp_path / "cache"
    assert locations.config_file() == tmp_path / "c.yaml"
