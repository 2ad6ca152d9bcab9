"""`validate --all`'s last line counts every problem: modules valid or not, then errors and warnings (issue 30)."""

from __future__ import annotations

from pathlib import Path

from modkit import clean_v1, clean_v22, make_module, run_cogn


def test_the_summary_counts_warnings_and_the_modules_that_have_them(tmp_path: Path) -> None:
    root = tmp_path / "mods"
    make_module(root, clean_v22("clean"), "clean")
    named = clean_v22("other-name")  # M009: the name differs from the folder's, a warning
    make_module(root, named, "warned")
    broken = clean_v22("broken")
    broken["prompt.md"] = None  # P003: prompt.md is missing, an error
    make_module(root, broken, "broken")
    make_module(root, clean_v1("legacy"), "legacy")
    proc = run_cogn(["--path", str(root), "validate", "--all"], cwd=tmp_path)
    assert proc.returncode == 1
    last = proc.stdout.rstrip().splitlines()[-1]
    # Before: "4 modules: 3 valid, 1 with errors", the warnings counted nowhere.
    assert last == "4 modules: 3 valid, 1 with errors · 1 error, 1 warning in 1 module"


def test_a_clean_search_path_says_so_in_the_same_words(tmp_path: Path) -> None:
    make_module(tmp_path / "mods", clean_v22("clean"), "clean")
    proc = run_cogn(["--path", str(tmp_path / "mods"), "validate", "--all"], cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.rstrip().splitlines()[-1] == "1 module: 1 valid, 0 with errors · 0 errors, 0 warnings"
