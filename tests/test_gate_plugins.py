"""The gate's own plugins, each run in a pytest of its own on small test files: nothing skipped passes
(tests/no_skips.py), and property tests draw the same examples on every run (tests/hypothesis_profiles.py).

The pytest under test runs in a child process (not pytester in this one): its test files and conftest would
otherwise join this process's modules, which Hypothesis draws constants from (tests/conftest.py).
"""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import cogtui

TESTS = Path(__file__).resolve().parent


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest with only the gate's plugins, on the test files in `folder` (no ini file above it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS"))}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-rA"]
    argv += ["-p", "no_skips", "-p", "hypothesis_profiles", *args, str(folder)]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False)


# ---------------------------------------------------------------- no test is ever skipped

HIDERS = {
    "test_module_skip.py": 'import pytest\n\npytest.importorskip("no_such_module_7c2e")\n\n\ndef test_x():\n    pass\n',
    "test_skip.py": "import pytest\n\n\ndef test_skipped():\n    pytest.skip('not here')\n",
    "test_fixture_skip.py": "import pytest\n\n\n@pytest.fixture\ndef tool():\n    pytest.skip('no tool')\n\n\n"
    "def test_needs_tool(tool):\n    pass\n",
    "test_xfail.py": "import pytest\n\n\n@pytest.mark.xfail(reason='known')\ndef test_fails():\n    assert False\n",
    "test_xpass.py": "import pytest\n\n\n@pytest.mark.xfail(reason='known')\ndef test_passes():\n    pass\n",
}
LISTED = {
    "test_module_skip.py": "skipped while collected: test_module_skip.py",
    "test_skip.py": "skipped: test_skip.py::test_skipped",
    "test_fixture_skip.py": "skipped: test_fixture_skip.py::test_needs_tool",
    "test_xfail.py": "xfailed: test_xfail.py::test_fails",
    "test_xpass.py": "xpassed: test_xpass.py::test_passes",
}
PASSING = "def test_fine():\n    pass\n"


def test_each_way_of_hiding_a_test_fails_the_session_and_is_named(tmp_path: Path) -> None:
    for name, source in HIDERS.items():
        folder = tmp_path / name.removesuffix(".py")
        folder.mkdir()
        (folder / "test_fine.py").write_text(PASSING)
        (folder / name).write_text(source)
        proc = pytest_in(folder)
        assert proc.returncode == 1, (name, proc.stdout + proc.stderr)
        summary = proc.stdout.split("skipped tests fail the session", 1)[-1]
        assert LISTED[name] in summary, (name, proc.stdout)


def test_a_session_with_nothing_hidden_passes(tmp_path: Path) -> None:
    (tmp_path / "test_fine.py").write_text(PASSING)
    proc = pytest_in(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "skipped tests fail the session" not in proc.stdout


# ---------------------------------------------------------------- the same examples on every run

DRAWS = """
import os
from hypothesis import given, strategies as st
from hypothesis_profiles import property_settings


@property_settings(30)
@given(st.lists(st.integers(), max_size=5), st.text(max_size=5))
def test_draws(numbers, text):
    with open(os.environ["DRAWN"], "a", encoding="utf-8") as out:
        out.write(repr((numbers, text)) + "\\n")
"""


def drawn(folder: Path, *args: str) -> list[str]:
    out = folder / "drawn.txt"
    out.unlink(missing_ok=True)
    os.environ["DRAWN"] = str(out)
    try:
        proc = pytest_in(folder, *args)
    finally:
        del os.environ["DRAWN"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out.read_text(encoding="utf-8").splitlines()


def test_the_gate_draws_the_same_examples_on_every_run_and_fuzz_draws_new_ones(tmp_path: Path) -> None:
    (tmp_path / "test_draws.py").write_text(DRAWS)
    first, second = drawn(tmp_path), drawn(tmp_path)
    assert len(first) == 30 and first == second
    assert not (tmp_path / ".hypothesis" / "examples").exists()  # no example database in the gate
    fuzzed = drawn(tmp_path, "--hypothesis-profile=fuzz")
    assert len(fuzzed) >= 30 * 20 and set(fuzzed) != set(first)
    assert drawn(tmp_path, "--hypothesis-profile=fuzz") != fuzzed


OWN_SETTINGS = """
from hypothesis import given, settings, strategies as st


@settings(derandomize=False, max_examples=5)
@given(st.integers())
def test_own_seed_policy(n):
    pass


@settings(deadline=200, max_examples=5)
@given(st.integers())
def test_own_deadline(n):
    pass


@given(st.integers())
def test_profile_defaults(n):
    pass
"""


def test_a_property_test_that_leaves_the_profile_fails_naming_what_differs(tmp_path: Path) -> None:
    (tmp_path / "test_own.py").write_text(OWN_SETTINGS)
    proc = pytest_in(tmp_path)
    assert proc.returncode == 1
    assert "FAILED test_own.py::test_own_seed_policy" in proc.stdout
    assert "derandomize=False (profile 'gate': True)" in proc.stdout
    assert "FAILED test_own.py::test_own_deadline" in proc.stdout and "deadline=0:00:00.200000" in proc.stdout
    assert "PASSED test_own.py::test_profile_defaults" in proc.stdout


def test_every_module_whose_constants_hypothesis_draws_is_imported_before_the_tests_run() -> None:
    """tests/conftest.py imports all of cogtui at collection, so every test process draws from one pool."""
    names = [m.name for m in pkgutil.walk_packages(cogtui.__path__, "cogtui.") if not m.name.endswith("__main__")]
    assert len(names) > 100
    assert [n for n in names if n not in sys.modules] == []
