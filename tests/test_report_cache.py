"""ReportCache (core/workspace.py): a report is reused while the module's files are unchanged on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

from modkit import clean_v22, make_module

from cogtui.core.workspace import ReportCache


def test_an_unchanged_module_is_not_loaded_again(tmp_path: Path) -> None:
    root = make_module(tmp_path, clean_v22())
    cache = ReportCache()
    first = cache.check(root)
    assert cache.check(root) is first
    assert (cache.hits, cache.misses) == (1, 1)


def test_an_edited_file_gives_a_fresh_report(tmp_path: Path) -> None:
    root = make_module(tmp_path, clean_v22())
    cache = ReportCache()
    assert cache.check(root).errors == 0
    (root / "schema.json").write_text("{ broken", encoding="utf-8")
    assert "P002" in {d.code for d in cache.check(root).diagnostics}
    fixed = clean_v22()["schema.json"]
    (root / "schema.json").write_text(json.dumps(fixed), encoding="utf-8")
    assert cache.check(root).errors == 0
    assert cache.misses == 3


def test_a_new_file_in_a_subfolder_counts(tmp_path: Path) -> None:
    root = make_module(tmp_path, clean_v22())
    cache = ReportCache()
    before = cache.check(root)
    (root / "tests" / "case2.input.json").write_text('{"text": 5}', encoding="utf-8")
    assert cache.check(root) is not before


def test_invalidate_forgets_a_rewrite_that_kept_size_and_mtime(tmp_path: Path) -> None:
    root = make_module(tmp_path, clean_v22())
    cache = ReportCache()
    target = root / "tests" / "case1.input.json"
    stat = target.stat()
    text = target.read_text(encoding="utf-8")
    cache.check(root)
    target.write_text(text.replace('"text"', '"TEXT"'), encoding="utf-8")  # same size
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache.check(root).errors == 0  # the cache cannot see it ...
    cache.invalidate([target])
    assert cache.check(root).errors > 0  # ... the watcher's invalidation does
