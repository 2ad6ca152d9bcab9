"""One path for a worker's unexpected failure: the app shows one error toast, sanitised, with no traceback,
and keeps running; every worker in the TUI runs with exit_on_error=False and its class reports failures."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from tuikit import copy_modules, isolate, make_app, toasts, tui_node_classes, until

from cogtui.core.history.store import History
from cogtui.tui import navigation as nav
from cogtui.tui.screens.history.screen import HistoryScreen
from cogtui.tui.worker_failures import ReportsWorkerFailures

TUI = Path(__file__).resolve().parents[2] / "cogtui" / "tui"
HOSTILE = "disk on fire \x1b]0;pwned\x07 \u202e [b]bold[/b]"


async def test_a_failing_worker_is_one_sanitised_error_toast_and_the_app_keeps_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")

    def broken(*_args: object, **_kwargs: object) -> list[object]:
        raise RuntimeError(HOSTILE)

    monkeypatch.setattr(History, "runs", broken)
    app = make_app(root, tmp_path)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        nav.history(app, module)
        await until(lambda: any("RuntimeError" in t for t in toasts(app)), pilot)
        [shown] = [t for t in toasts(app) if "RuntimeError" in t]
        assert "failed" in shown
        assert "RuntimeError: disk on fire \\x1b]0;pwned\\x07 \\u202e [b]bold[/b]" in shown  # escaped, literal
        assert "\x1b" not in shown and "\u202e" not in shown and "Traceback" not in shown
        assert isinstance(app.screen, HistoryScreen) and app.is_running


def _worker_calls(tree: ast.AST) -> list[ast.Call]:
    """`@work(...)` decorators and `.run_worker(...)` calls."""
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls += [d for d in node.decorator_list if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "work"]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run_worker":
            calls.append(node)
    return calls


def test_every_worker_runs_with_exit_on_error_false() -> None:
    """A worker's failure must reach the one handler, never exit the app with a traceback."""
    missing = []
    count = 0
    for path in sorted(TUI.rglob("*.py")):
        for call in _worker_calls(ast.parse(path.read_text(encoding="utf-8"))):
            count += 1
            flag = next((k.value for k in call.keywords if k.arg == "exit_on_error"), None)
            if not (isinstance(flag, ast.Constant) and flag.value is False):
                missing.append(f"{path.relative_to(TUI)}:{call.lineno}")
    assert count > 10  # the scan sees the workers
    assert not missing, f"workers without exit_on_error=False: {missing}"


def test_every_worker_is_named_in_words() -> None:
    """A worker's name is the title of its failure's notice ("read the history failed"): words a user reads, not
    a method's name (Textual names an unnamed `@work` worker after its method)."""
    unnamed = []
    for path in sorted(TUI.rglob("*.py")):
        for call in _worker_calls(ast.parse(path.read_text(encoding="utf-8"))):
            name = next((k.value for k in call.keywords if k.arg == "name"), None)
            words = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
            if name is None or (words is not None and (" " not in words or "_" in words)):
                unnamed.append(f"{path.relative_to(TUI)}:{call.lineno}")
    assert not unnamed, f"workers not named in words: {unnamed}"


def test_every_class_that_runs_workers_reports_their_failures() -> None:
    import cogtui.tui.app
    from cogtui.tui.screens.migrate.screen import MigrationScreen

    runs_workers = [
        cls
        for cls in tui_node_classes()
        if "@work" in inspect.getsource(cls) or "self.run_worker(" in inspect.getsource(cls)
    ]
    runs_workers += [cogtui.tui.app.CogtuiApp, MigrationScreen]  # watching.py and migrate/'s flows run theirs
    assert len(runs_workers) > 5
    silent = [cls.__qualname__ for cls in runs_workers if not issubclass(cls, ReportsWorkerFailures)]
    assert not silent, f"these run workers but do not report their failures: {silent}"
