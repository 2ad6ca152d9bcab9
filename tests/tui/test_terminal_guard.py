"""The TUI's one choke point to the terminal (cogtui/tui/terminal_guard.py) and the one way text is built (shown.py).

Every line any widget renders passes the app's line filters, the guard first; nothing in cogtui/tui may
bypass it, and nothing there builds `Content`/`Text` from anything but a literal except through shown.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from tuikit import isolate, make_app, tui_node_classes

import cogtui.tui
from cogtui.core.files.terminal_text import visible
from cogtui.tui import shown
from cogtui.tui.terminal_guard import KEPT, TerminalGuard

EVIL = "\x1b]0;PWNED\x07\x1b]52;c;cHduZWQ=\x07\x9b2J\x85\x08\r\t\u202eevil\ud800"
TUI = Path(cogtui.tui.__file__).parent
BUILDERS = {
    "Content": {"from_markup", "assemble", "styled"},
    "Text": {"from_markup", "from_ansi", "assemble", "styled"},
}


def test_the_guard_removes_what_a_terminal_acts_on_and_says_what() -> None:
    guard = TerminalGuard()
    bold = Style(bold=True)
    clean = [Segment("plain ", bold), Segment("text")]
    assert guard.apply(clean, Color(0, 0, 0)) is clean and guard.caught == []  # nothing to do: the same line
    out = guard.apply([Segment("ok ", bold), Segment(f"a{EVIL}b", bold)], Color(0, 0, 0))
    assert [s.text for s in out] == ["ok ", "a]0;PWNED]52;c;cHduZWQ=2Jevilb"] and out[1].style == bold
    assert guard.caught == ["a\\x1b]0;PWNED\\x07\\x1b]52;c;cHduZWQ=\\x07\\x9b2J\\x85\\x08\\r\\t\\u202eevil\\ud800b"]
    for _ in range(KEPT + 5):  # however much leaks, what it keeps is bounded; the count is not
        guard.apply([Segment("\x07")], Color(0, 0, 0))
    assert len(guard.caught) == KEPT and guard.caught_count == KEPT + 6


def test_the_app_runs_every_line_through_the_guard_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app = make_app(isolate(monkeypatch, tmp_path), tmp_path)
    assert app.get_line_filters()[0] is app.terminal_guard
    # A widget, screen or app class that answered get_line_filters itself would bypass it.
    own = [cls.__name__ for cls in tui_node_classes() if "get_line_filters" in vars(cls)]
    assert own == ["CogtuiApp"]


def _violations(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in BUILDERS:
            if node.args and not isinstance(node.args[0], ast.Constant):
                out.append(f"{path.name}:{node.lineno}: {func.id}({ast.unparse(node.args[0])[:40]})")
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            builders = BUILDERS.get(func.value.id, set())
            if func.attr in builders:
                out.append(f"{path.name}:{node.lineno}: {func.value.id}.{func.attr}")
    return out


def test_text_reaches_widgets_only_through_shown() -> None:
    """Content/Text from anything but a literal is built by shown.py, which escapes it visibly."""
    found = [v for path in sorted(TUI.rglob("*.py")) if path.name != "shown.py" for v in _violations(path)]
    assert found == [], "build it with cogtui.tui.shown (markup, line, block, styled, assemble, cell, rich_assemble)"


def test_the_checker_sees_each_kind_of_violation(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "Content(name)\nText(f'{x}')\nContent.from_markup(t, v=x)\nText.assemble(x)\nContent.styled(x, 's')\n"
        "Content('literal')\nText()\nshown.block(x)\n",
        encoding="utf-8",
    )
    assert [v.split(": ", 1)[1] for v in _violations(sample)] == [
        "Content(name)",
        "Text(f'{x}')",
        "Content.from_markup",
        "Text.assemble",
        "Content.styled",
    ]


def test_shown_builders_escape_every_value_and_keep_styles() -> None:
    assert shown.markup("[b]$v[/]", v=f"[/]{EVIL}").plain == "[/]" + visible(EVIL)
    assert shown.line("a\nb\x1b").plain == "a\\nb\\x1b" and shown.block("a\nb\x1b").plain == "a\nb\\x1b"
    assembled = shown.assemble("\x1b", ("\x07", "bold"), shown.markup("[i]$x[/]", x="\x9b"))
    assert assembled.plain == "\\x1b\\x07\\x9b"
    assert shown.styled("\u202e", "bold").plain == "\\u202e"
    assert shown.cell("a\nb\x1b", "bold").plain == "a\\nb\\x1b"
    assert shown.rich_assemble("\x1b", ("\x07", Style(bold=True)), shown.cell("\x9b")).plain == "\\x1b\\x07\\x9b"
