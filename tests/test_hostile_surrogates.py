"""Lone surrogates in an input file (issue 11: they crashed hashing, history and NDJSON output): the run
streams NDJSON that is valid JSON, is recorded, and reads back from the history with the same text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from rtkit import cli_env, cogn

DIFF = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-x = 1\n+x = '\ud800 lone \udfff'\n"


def test_lone_surrogates_in_an_input_file_stream_record_and_read_back(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps({"diff": DIFF}), encoding="utf-8")  # JSON escapes: "\ud800" as text
    assert "\\ud800" in inp.read_text(encoding="utf-8")
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", str(inp), "--stream", "ndjson", env=env)
    assert "Traceback" not in proc.stderr and proc.stdout.strip(), proc.stderr
    chunks = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]  # every line is JSON
    assert chunks
    proc = cogn(tmp_path, "history", "--json", env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert len(document(proc.stdout, "history")["items"]) == 1
    exported = cogn(tmp_path, "history", "export", env=env)  # NDJSON again, one run per line
    assert exported.returncode == 0 and "Traceback" not in exported.stderr, exported.stderr
    (run,) = [json.loads(line) for line in exported.stdout.splitlines() if line.strip()]
    assert run["input"]["diff"] == DIFF  # the same text, lone surrogates and all
