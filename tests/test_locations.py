"""cogtui's per-user folders are platformdirs', unless the environment names others."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from cogtui.core.settings import locations


@pytest.mark.parametrize("kind", ["data", "config", "cache"])
def test_each_folder_is_the_one_platformdirs_names(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    for name in ("COGTUI_DATA_DIR", "COGTUI_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    folder = {"data": locations.data_dir, "config": locations.config_dir, "cache": locations.cache_dir}[kind]()
    assert folder == Path(getattr(platformdirs, f"user_{kind}_dir")("cogtui"))


def test_the_environment_overrides_still_win(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COGTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "c.yaml"))
    assert locations.data_dir() == tmp_path / "data"
    assert locations.cache_dir() == tmp_path / "cache"
    assert locations.config_file() == tmp_path / "c.yaml"
