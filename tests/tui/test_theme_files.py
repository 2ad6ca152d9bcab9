"""Theme files are read as module YAML is (TUI-18): bounded, a repeated key refused as P008, and every problem
located (file:line:col) with the parser's whole reason, in the notification and in `cogtui doctor` alike."""

from __future__ import annotations

from pathlib import Path

from cogtui.tui.themes import THEME_FILE_LIMIT, load_themes


def _problems(folder: Path, cache: Path | None = None) -> tuple[list[str], list[str]]:
    loaded = load_themes(folder, cache_file=cache)
    return [t.name for t in loaded.themes], loaded.problems


def _theme(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "themes"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_repeated_key_is_refused_at_the_repetition(tmp_path: Path) -> None:
    twice = _theme(tmp_path, "twice.yaml", "name: twice\nprimary: '#336699'\ndark: true\nprimary: '#ff0000'\n")
    folder = _theme(tmp_path, "good.yaml", "name: good\nprimary: '#336699'\n").parent
    for cache in (None, tmp_path / "themes.json", tmp_path / "themes.json"):  # parsed, then the cache's turn
        names, problems = _problems(folder, cache)
        assert names == ["good"]
        assert problems == [
            f"theme skipped: {twice}:4:1: key primary appears twice in this mapping (first at line 2) [P008]"
            " (Keep one of them: the last value silently replaced the first, and other readers may keep either.)"
        ]


def test_a_syntax_error_says_where_and_the_parsers_whole_reason(tmp_path: Path) -> None:
    broken = _theme(tmp_path, "broken.yaml", "name: broken\nprimary: [not, closed\n")
    names, problems = _problems(broken.parent)
    assert names == []
    # The context ("while parsing a flow sequence", where it started) was once dropped: only its second half
    # showed. Now the problem is said in the author's words, at the bracket that is never closed (CODE-7).
    assert problems == [
        f"theme skipped: {broken}:2:10: YAML syntax error: the [ that starts here is never closed [P001]"
        " (Close it with ] after the last item; items are separated by commas.)"
    ]


def test_a_small_file_that_expands_hugely_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """Aliases multiply a few lines into 7**6 values, which the theme's variables turned into one huge string."""
    lines = ["name: bomb", "primary: '#336699'", "a0: &a0 [x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 7)}]" for i in range(1, 6)]
    lines.append("variables: {big: *a5}")
    bomb = _theme(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")
    assert bomb.stat().st_size < 1024
    names, problems = _problems(bomb.parent)
    assert names == []
    (problem,) = problems
    assert problem.startswith(f"theme skipped: {bomb}:") and "aliases expand it to" in problem and "[P007]" in problem


def test_a_huge_file_is_refused_unread_with_its_size_and_the_theme_limit(tmp_path: Path) -> None:
    huge = _theme(tmp_path, "huge.yaml", "name: huge\nprimary: '#336699'\n" + "# padding\n" * (THEME_FILE_LIMIT // 10))
    size = huge.stat().st_size
    names, problems = _problems(huge.parent)
    assert names == []
    assert problems == [
        f"theme skipped: {huge}: cannot read: {size:,} bytes, over the {THEME_FILE_LIMIT:,} bytes limit"
        " for a theme file [F003]"
    ]
