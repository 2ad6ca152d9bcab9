from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the repository root: tools/

from llmserver import ScriptedLLMServer


@pytest.fixture(autouse=True)
def _private_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads or writes the user's real cache folder (the theme cache lives there)."""
    monkeypatch.setenv("COGTUI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cogtui-cache"))


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A scripted Anthropic/OpenAI HTTP server on 127.0.0.1; enqueue replies, then point real clients at base_url."""
    with ScriptedLLMServer() as server:
        yield server
    assert server.errors == [], "ScriptedLLMServer hit internal errors:\n" + "\n".join(server.errors)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """COGTUI_DATA_DIR in a temp folder, so backups and history never touch the developer's data."""
    folder = tmp_path / "cogtui-data"
    monkeypatch.setenv("COGTUI_DATA_DIR", str(folder))
    yield folder
