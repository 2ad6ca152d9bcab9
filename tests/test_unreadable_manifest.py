"""A manifest that cannot be read says so once: no rule compares the other files with settings it may declare (FMT-16).

product-ideas declares the exploration tier and `overflow.max_items: 20`; its schema and goldens agree. One
stray character in module.yaml used to add a warning that `insights maxItems is 20 but overflow.max_items is
5` (the default tier's value, not the author's) and another that a golden's six insights were over a limit
of 5, beside the syntax error that was the whole story.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cogtui.core.diagnostics import Severity
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.workspace import check_path

MODULES = Path(__file__).resolve().parents[1] / "modules"
SETTINGS_RULES = {"V006", "V007", "V008", "V009", "T002"}  # compare files with the manifest's settings


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(MODULES / "product-ideas", tmp_path / "product-ideas"))


DAMAGE = {
    "a syntax error": ("P001", lambda text: b"?" + text),
    "not a mapping": ("P004", lambda text: b"- " + text.replace(b"\n", b"\n  ")),
    "invalid UTF-8": ("P005", lambda text: text + b"\n# \xff\xfe\n"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_an_unreadable_manifest_is_one_error_and_no_guessed_settings(tmp_path: Path, damage: str) -> None:
    code, spoil = DAMAGE[damage]
    module_dir = _copy(tmp_path)
    manifest = module_dir / "module.yaml"
    manifest.write_bytes(spoil(manifest.read_bytes()))
    module = load_module(module_dir)
    found = validate_module(module)
    assert [d.code for d in found if d.severity is Severity.ERROR] == [code], found
    assert not SETTINGS_RULES & {d.code for d in found}, found
    assert module.contract.known is False and module.known_tier is None
    report = check_path(module_dir)
    assert report.tier is None  # the browser and `cogn list` show no tier rather than the default's


def test_the_same_rules_still_judge_a_readable_manifest(tmp_path: Path) -> None:
    module_dir = _copy(tmp_path)
    manifest = module_dir / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert "max_items: 20" in text
    manifest.write_text(text.replace("max_items: 20", "max_items: 5"), encoding="utf-8")
    module = load_module(module_dir)
    codes = {d.code for d in validate_module(module)}
    assert {"V006", "T002"} <= codes  # the schema allows 20 insights and a golden has 6: both disagree with 5
    assert module.contract.known is True and module.known_tier == "exploration"


def test_no_deprecation_note_for_a_format_that_is_a_guess(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A v2.1-looking module whose manifest cannot be read was told to migrate from v2.1: its format is a guess."""
    from cogtui.cli.output import deprecation_notice

    realworld = Path(__file__).resolve().parent / "realworld"
    module_dir = Path(shutil.copytree(realworld / "changelog-writer", tmp_path / "old"))
    deprecation_notice(load_module(module_dir))  # readable, v2.1: the note
    assert "deprecated" in capsys.readouterr().err
    (module_dir / "module.yaml").write_bytes(b"\xff\xfe\x00garbage")
    module = load_module(module_dir)
    assert module.contract.known is False
    deprecation_notice(module)
    assert capsys.readouterr().err == ""
