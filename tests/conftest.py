from __future__ import annotations

import atexit
import gc
import importlib
import os
import pkgutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the repository root: tools/

from llmserver import ScriptedLLMServer
from pgserver import scratch_parent

# The Hypothesis profiles (derandomized in the gate, `make fuzz` explores) and the rule that no test is skipped.
pytest_plugins = ("hypothesis_profiles", "no_skips")

# The replay provider paces its chunks (10 ms each) so a person can watch a run stream; a test that wants
# pacing sets it itself, every other replay run answers at once (subprocesses inherit this too).
os.environ.setdefault("COGTUI_REPLAY_INTERVAL", "0")


def _temporary_folders_in_memory() -> None:
    """The tests' temporary folders (tmp_path, tempfile, and so every process they start) go to a RAM-backed
    folder when the machine has one with room to spare, as the PostgreSQL server's files do, unless TMPDIR
    says where. The tests create and delete some 10,000 module folders, histories and venvs and the code under
    test syncs what it writes (atomic saves, SQLite): on this machine's disk (ext4 mounted with `discard`) that
    cost up to minutes of waiting when other processes used it (the commit that added this has the figures).
    What the tests check is unchanged: only where the folders live."""
    parent = scratch_parent()
    if "TMPDIR" in os.environ or parent is None:
        return
    folder = Path(parent) / f"cogtui-tests-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.environ["TMPDIR"] = str(folder)  # this process, its xdist workers and every process a test starts
    tempfile.tempdir = None  # tempfile reads TMPDIR again


_temporary_folders_in_memory()


def pytest_configure(config: pytest.Config) -> None:
    """Fewer garbage collections in each test process (the controller and every worker). A TUI test builds and
    drops tens of thousands of widgets, strips and styles; with the default thresholds (700, 10, 10) the
    collector ran a full collection some 50 times per 30 TUI tests, each walking Textual's bounded render caches
    (about 0.1 s), 20 % of those tests' CPU. At (10,000, 50, 100) the TUI tests took 17 % less CPU for about
    140 MB more memory per process; what the tests check is unchanged."""
    gc.set_threshold(10_000, 50, 100)
    _hear_ctrl_c()
    if hasattr(config, "workerinput"):  # an xdist worker
        atexit.register(_end_worker_now)  # registered before pytest's own exit handlers: runs after them


def pytest_unconfigure(config: pytest.Config) -> None:
    """One full collection at the session's end, then freeze what survives it. pytest's unraisable-exception
    check, which runs next, collects five times to find objects whose finalizers raise: the first collection
    here finds them (the check's hook is still in place), and its five then walk only what is new, instead of
    a worker's whole heap five times over (up to 3.5 s of CPU per worker after a TUI-heavy session)."""
    gc.collect()
    gc.freeze()


def _hear_ctrl_c() -> None:
    """Let the processes the tests start hear Ctrl-C. A shell without job control starts a background command
    (`make test &` in a script) with SIGINT ignored, and every process below inherits that: the tests that press
    Ctrl-C on a `cogn run` then saw it run on to the end (exit 0) or hang. A handler set here is reset to the
    default in each child at exec, as a terminal would start them."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _end_worker_now() -> None:
    """An xdist worker ends once its results are sent and pytest's exit handlers (temporary folders) have run,
    without Python's finalisation: freeing a worker's 0.5-1 GB heap object by object took seconds, all of it
    waited for by the controller; the operating system takes the memory back at once."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per CPU this process may use, plus one. Many tests wait on a terminal, a server,
    a subprocess or a debounce; the extra workers keep both cores busy meanwhile, and more than five gained
    little when this was measured on 2 idle cores, for about 0.5 GB each."""
    return 2 * len(os.sched_getaffinity(0)) + 1


@pytest.fixture(autouse=True)
def _private_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads or writes the user's real cache folder (the theme cache lives there) or state folder."""
    monkeypatch.setenv("COGTUI_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cogtui-cache"))
    # Nor its state folder (the notices it said once): tests that watch for one give the app a folder of their own.
    monkeypatch.setenv("COGTUI_STATE_DIR", str(tmp_path_factory.getbasetemp() / "cogtui-state"))
    # Nor a team's shared history: a developer's COGTUI_HISTORY_URL never reaches a test.
    monkeypatch.delenv("COGTUI_HISTORY_URL", raising=False)


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A scripted Anthropic/OpenAI HTTP server on 127.0.0.1; enqueue replies, then point real clients at base_url."""
    with ScriptedLLMServer() as server:
        yield server
    assert server.errors == [], "ScriptedLLMServer hit internal errors:\n" + "\n".join(server.errors)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL server for this test process (one per xdist worker), stopped at the end.
    If it cannot start, every test that uses it errors: PostgreSQL tests are never skipped."""
    from pgserver import PostgresServer

    server = PostgresServer()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], str]:
    """Makes fresh, empty history locations on one backend: a SQLite file path, or a
    new database on the real PostgreSQL server. The history suite runs on both."""
    if request.param == "sqlite":
        names = iter(range(1, 1_000_000))
        return lambda: str(tmp_path / f"store{next(names)}" / "history.sqlite3")
    server = request.getfixturevalue("pg_server")
    made: list[str] = []

    def new_database() -> str:
        made.append(server.new_database())
        return made[-1]

    request.addfinalizer(lambda: server.drop_databases(made))  # the server's files stay small
    return new_database


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """COGTUI_DATA_DIR in a temp folder, so backups and history never touch the developer's data."""
    folder = tmp_path / "cogtui-data"
    monkeypatch.setenv("COGTUI_DATA_DIR", str(folder))
    yield folder


# ------------------------------------------------------------------ the slowest tests start first
# xdist hands tests out one or two at a time (`--maxschedchunk 1` in pyproject.toml), in collection order: a
# long test collected last would run alone at the end while the other worker idles. These start first, the
# longest first (as `pytest --durations` ranks them); everything else keeps its order.
SLOW_FIRST = (
    "tests/tui/test_wheel_install.py",
    "tests/tui/test_wheel_postgres.py",
    "tests/tui/test_e2e_tmux.py",
    "tests/tui/test_e2e_bursts_tmux.py",
    "tests/tui/test_run_state_view.py",
    "tests/test_runtime_cli_history.py",
    "tests/tui/test_run_safety.py",
    "tests/tui/test_quit_runs.py",
    "tests/test_properties.py",
    "tests/test_runtime_fieldstream.py",
)


def slow_rank(nodeid: str) -> int:
    return next((i for i, prefix in enumerate(SLOW_FIRST) if nodeid.startswith(prefix)), len(SLOW_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: slow_rank(item.nodeid))  # stable: the rest keep their order
    import_every_module()


# ------------------------------------------------------------------ the same examples in every process
# Hypothesis draws some values from the constants of the project's own modules that are imported when it draws
# (not from tests). Which of cogtui's modules a worker has imported depends on the tests xdist gave it before, so
# a derandomized test could draw other examples in another run. Every module is imported before any test
# runs: each process draws from the same constants, whatever ran before.
def import_every_module() -> None:
    import cogtui

    for found in pkgutil.walk_packages(cogtui.__path__, "cogtui."):
        if not found.name.endswith(".__main__"):  # runs the program
            importlib.import_module(found.name)
