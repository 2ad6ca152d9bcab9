"""docs/keys.md is current: its tables are what `python -m tools.keys_doc` writes from the key registry, so every
registered key is listed once, with exactly its default keys and its declared words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cogtui.tui.keys import every_spec
from tools import keys_doc

ROOT = Path(__file__).resolve().parents[2]


def test_the_keys_guide_is_what_the_registry_writes() -> None:
    current = keys_doc.KEYS_DOC.read_text(encoding="utf-8")
    assert current == keys_doc.rendered(current), "docs/keys.md is stale: run `python -m tools.keys_doc`"


def test_every_registered_key_has_one_row_with_its_keys() -> None:
    text = keys_doc.rendered_tables()
    for spec in every_spec():
        rows = [line for line in text.splitlines() if line.endswith(f"| `{spec.id}` |")]
        assert rows == [f"| {keys_doc.shown_keys(spec)} | {keys_doc.words(spec)} | `{spec.id}` |"], spec.id


def test_the_check_names_the_command_when_the_guide_is_stale(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "keys.md"
    text = keys_doc.KEYS_DOC.read_text(encoding="utf-8")
    stale.write_text(text.replace("| `ctrl+t` |", "| `ctrl+x` |"), encoding="utf-8")
    monkeypatch.setattr(keys_doc, "KEYS_DOC", stale)
    assert keys_doc.main(["--check"]) == 1
    assert "run `python -m tools.keys_doc`" in capsys.readouterr().err
    assert keys_doc.main([]) == 0 and stale.read_text(encoding="utf-8") == text  # rewritten as the registry says
    assert keys_doc.main(["--check"]) == 0


def test_the_prose_around_the_tables_stays_as_written() -> None:
    text = "# Keys\n\nprose before\n\n" + keys_doc.BEGIN + "\n| old row |\n" + keys_doc.END + "\n\nprose after\n"
    written = keys_doc.rendered(text)
    assert written.startswith("# Keys\n\nprose before\n\n") and written.endswith(keys_doc.END + "\n\nprose after\n")
    assert "| old row |" not in written and "`app.quit` |" in written


def test_a_fresh_process_finds_every_screens_keys() -> None:
    """keys.every_spec imports every module of screens/ and widgets/: a screen's keys are registered by its
    screen.py, which its package's declaration does not import (`cogn doctor` checks config.yaml's keymap
    against these, with no screen imported before)."""
    code = "from cogtui.tui.keys import every_spec; print(' '.join(sorted(s.id for s in every_spec())))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert proc.stdout.split() == sorted(s.id for s in every_spec())
    assert {"run.run", "merge.save", "eval_options.apply", "insight_row.close"} <= set(proc.stdout.split())
