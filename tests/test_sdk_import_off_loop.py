"""A provider's SDK is imported before a call's timers start and off the event loop's thread (D140).

The Anthropic SDK's first import is ~2 s of CPU. Imported inside the stream, it froze the TUI for that long on
the first Anthropic run of a session, and on a slow machine the stream's silence timeout (E2011) could fire
before a byte was asked for. Here a fresh `cogn` process is made to take three seconds over that import and is
given a second and a half of silence (room for a loaded machine to answer): the run must succeed, and the
import must not run on the loop's thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import ScriptedLLMServer
from rtkit import ANTHROPIC_KEY, MODULES, cli_env, golden, model_answer

SLOW_FIRST_IMPORT = """
import importlib.abc, sys, threading, time

class SlowFirstSDKImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "anthropic":
            sys.meta_path.remove(self)
            main = threading.current_thread() is threading.main_thread()
            sys.stderr.write("SDK import on the " + ("loop's thread" if main else "other thread") + "\\n")
            time.sleep(3.0)
        return None

sys.meta_path.insert(0, SlowFirstSDKImport())
from cogtui.cli import main
sys.argv[0] = "cogn"
sys.exit(main())
"""


def test_a_slow_first_sdk_import_is_not_silence_and_leaves_the_loop_free(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    case_input, expected = golden("code-reviewer")
    (tmp_path / "in.json").write_text(json.dumps(case_input), encoding="utf-8")
    llm_server.enqueue(json.dumps(model_answer(expected)))
    env = cli_env(tmp_path, ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=llm_server.base_url)
    argv = [sys.executable, "-c", SLOW_FIRST_IMPORT, "--path", str(MODULES), "run", "code-reviewer"]
    argv += ["--input", "in.json", "--provider", "anthropic", "--timeout", "1.5", "--json", "--no-history"]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert "SDK import on the other thread" in proc.stderr, proc.stderr
    envelope = json.loads(proc.stdout)
    assert proc.returncode == 0 and envelope["ok"] is True, (proc.stderr, envelope)
    assert llm_server.request_count == 1
