"""Helpers shared by the migration tests (no tests here): fixture copies, tree hashes, re-encoding."""

from __future__ import annotations

import codecs
import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "migration"
MODULES = REPO / "modules"
FIXTURE_NAMES = ("v0-zh-defs", "v1-triage", "v1-zh-rationale", "v21-reviewer")


def legacy_modules() -> list[str]:
    """Every module under modules/ that is not yet v2.2 (v0, v1, v2.1)."""
    from cogtui.core.module.loader import load_module

    return sorted(
        p.name for p in MODULES.iterdir() if p.is_dir() and load_module(p).format.value in ("v0", "v1", "v2.1")
    )


def copy_module(src: Path, dest_root: Path, name: str | None = None) -> Path:
    dest = dest_root / (name or src.name)
    shutil.copytree(src, dest)
    return dest


def fixture(name: str, dest_root: Path) -> Path:
    return copy_module(FIXTURES / name, dest_root)


def tree(root: Path) -> dict[str, str]:
    """Every file under root (relative path -> sha256) and every folder (-> "dir")."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def reencode(path: Path, bom: bytes = b"", codec: str = "utf-8", crlf: bool = False) -> None:
    """Rewrite a UTF-8 LF file with another BOM / codec / line ending."""
    text = path.read_text(encoding="utf-8")
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes(bom + text.encode(codec))


STYLES = {
    "utf8-bom-crlf": (codecs.BOM_UTF8, "utf-8", True),
    "utf16le-crlf": (codecs.BOM_UTF16_LE, "utf-16-le", True),
    "utf8-crlf": (b"", "utf-8", True),
}


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """COGTUI_DATA_DIR in a temp folder, so backups never touch the developer's data."""
    folder = tmp_path / "cogtui-data"
    monkeypatch.setenv("COGTUI_DATA_DIR", str(folder))
    yield folder
