"""Terminal output for the headless commands.

On a terminal: colour (through Rich, imported only then). Otherwise, plain
text that reads well in CI logs. NO_COLOR disables colour; FORCE_COLOR forces it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import IO, TYPE_CHECKING, Any

from cogtui.core.diagnostics import plural
from cogtui.core.files.terminal_text import terminal_json, visible

if TYPE_CHECKING:
    from cogtui.core.diagnostics import Diagnostic
    from cogtui.core.settings.config import Config
    from cogtui.core.workspace import Workspace

STYLES = {
    "error": "bold red",
    "warning": "yellow",
    "info": "cyan",
    "ok": "green",
    "dim": "dim",
    "bold": "bold",
    "add": "green",
    "remove": "red",
    "hunk": "cyan",
}


JSON_FORMAT = 1  # the version of the document every `--json` prints (docs/cli.md); a change of shape raises it


def json_document(command: str, key: str, entries: list[Any], summary: dict[str, Any]) -> dict[str, Any]:
    """The one shape of every command's `--json` output (docs/cli.md): its format version, the command, the
    list it reports on (`modules` for a command about modules, else `items`) and a summary of that list."""
    if key not in ("modules", "items"):
        raise ValueError(f"a --json document lists modules or items, not {key!r}")
    return {"format": JSON_FORMAT, "command": command, key: entries, "summary": summary}


def use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


class Printer:
    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.color = use_color(self.stream)
        self._console: Any = None

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stream, highlight=False, soft_wrap=True)
        return self._console

    def line(self, text: str = "", style: str | None = None) -> None:
        text = visible(text)
        if self.color and style:
            from rich.markup import escape

            self.console.print(f"[{STYLES.get(style, style)}]{escape(text)}[/]")
        else:
            self.stream.write(text + "\n")

    def parts(self, *chunks: tuple[str, str | None]) -> None:
        """One line from (text, style) pieces."""
        chunks = tuple((visible(text, single_line=True), style) for text, style in chunks)
        if self.color:
            from rich.text import Text

            t = Text()
            for text, style in chunks:
                t.append(text, STYLES.get(style, style) if style else "")
            self.console.print(t)
        else:
            self.stream.write("".join(text for text, _ in chunks) + "\n")

    def diff(self, text: str, dim_headers: bool = False) -> None:
        """A unified diff, indented, each line coloured by its mark: + added, - removed, @@ a hunk, the rest dim
        (and the `---`/`+++` file headers too, with `dim_headers`)."""
        from cogtui.core.files.text_codec import diff_line_style  # only when a diff is shown

        for line in text.splitlines():
            self.line(f"    {line}", diff_line_style(line, "dim" if dim_headers else None, "dim"))

    def json(self, value: Any) -> None:
        self.stream.write(terminal_json(value, indent=2) + "\n")

    def document(self, command: str, key: str, entries: list[Any], summary: dict[str, Any]) -> None:
        """A command's `--json` output: `json_document`, printed."""
        self.json(json_document(command, key, entries, summary))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> None:
        headers = [visible(h, single_line=True) for h in headers]
        rows = [[visible(c, single_line=True) for c in row] for row in rows]
        title = visible(title, single_line=True) if title else title
        if self.color:
            from rich.table import Table

            table = Table(title=title, header_style="bold", box=None, pad_edge=False)
            for h in headers:
                table.add_column(h)
            for row in rows:
                table.add_row(*row)
            self.console.print(table)
            return
        if title:
            self.stream.write(title + "\n")
        widths = [len(h) for h in headers]
        for row in rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row, strict=False)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        self.stream.write(fmt.format(*headers).rstrip() + "\n")
        for row in rows:
            self.stream.write(fmt.format(*row).rstrip() + "\n")


def print_diagnostic(p: Printer, d: Diagnostic) -> None:
    """`  error   M001 file:line:col  message`, then its hint on a line of its own."""
    p.parts(
        ("  ", None),
        (f"{d.severity.value:<7}", d.severity.value),
        (f" {d.code} ", "bold"),
        (d.location, "dim"),
        ("  " + d.message, None),
    )
    if d.hint:
        p.parts(("          hint: ", "dim"), (d.hint, None))


def target_problem(command: str, target: str | None, every: bool) -> str | None:
    """Why a command's module argument is unusable: neither NAME|PATH nor --all, or both at once."""
    if target and every:
        return f"{command}: give a module NAME|PATH or --all, not both"
    if not target and not every:
        return f"{command} needs a module NAME|PATH, or --all"
    return None


def output_file_problem(target: str) -> str | None:
    """Why `target` (`-o`, `--json FILE`, `--junit FILE`) cannot be written, said before any model call is
    paid for; None when it can (folders missing on the way are made when it is written)."""
    from pathlib import Path

    path = Path(target).absolute()
    try:
        if path.is_dir():
            return f"cannot write {target}: it is a folder"
        folder = path.parent
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir():
            return f"cannot write {target}: {folder} is a file, not a folder"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"cannot write {target}: {folder} is not writable"
    except (OSError, ValueError) as exc:
        return f"cannot write {target}: {getattr(exc, 'strerror', None) or exc}"
    return None


def write_output_file(target: str, text: str) -> bool:
    """`-o`, `--json FILE`, `--junit FILE`: `text` written atomically (missing folders made); False, with a
    message and not a traceback, when it cannot be (the caller still shows the result on stdout)."""
    from pathlib import Path

    from cogtui.core.files.editor_snapshot import atomic_write

    try:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8", "surrogatepass"))
    except OSError as exc:  # the path's problem, when one shows now ("File exists" would say nothing)
        err(output_file_problem(target) or f"cannot write {target}: {exc.strerror or exc}")
        return False
    return True


def config_warnings(config: Config) -> None:
    """What config.yaml gets wrong, as warnings on stderr, for the commands that use it (run, test, eval): a
    file that does not parse is otherwise ignored without a word, and the configured provider with it."""
    for problem in config.problems:
        err(f"warning: {problem}")


def err(message: str) -> None:
    """Usage errors and fatal messages, on stderr."""
    p = Printer(sys.stderr)
    p.line(f"cogn: {message}", "error")


def open_workspace(paths: list[str], judging_all: bool = False) -> Workspace:
    """The search path and the modules on it. What is wrong with a root (a --path that does not exist or is a
    file, a folder that cannot be read) is said on stderr: a mistyped path never reads as an empty search path.
    For a command judging every module (`judging_all`), a folder that cannot be read is an error: the modules
    in it go unjudged, and `unjudged_folders` makes the verdict a failure (PATH-3)."""
    from cogtui.core.workspace import Workspace

    ws = Workspace.from_environment(paths)
    failing = set(ws.index.unreadable) if judging_all else set()
    for d in ws.index.diagnostics:
        kind = "error" if d.file in failing else "warning"
        err(f"{kind}: {d.message}" + (f" ({d.hint})" if d.hint else ""))
    return ws


def mistyped_module(name: str, recorded: Iterable[str], paths: list[str]) -> str:
    """For a module name that matched nothing in the history: `; did you mean 'x'?` when it is no module on the
    search path either and a recorded or found name is near it (a typo, CLI-3); "" when it may just have no runs."""
    from cogtui.core.diagnostics import did_you_mean
    from cogtui.core.workspace import Workspace

    known = [*recorded, *Workspace.from_environment(paths).names()]
    return "" if name in known else did_you_mean(name, known)


def unjudged_folders(ws: Workspace) -> int:
    """The exit code an `--all` command adds for the folders on the search path it could not read: 1 (not
    judged is not passed), said again on stderr after the results, where a CI log is read (PATH-3); else 0."""
    folders = ws.index.unreadable
    if not folders:
        return 0
    err(
        f"{plural(len(folders), 'folder')} on the search path could not be read, so the modules in "
        f"{'them' if len(folders) > 1 else 'it'} were not judged: {', '.join(str(f) for f in folders)}"
    )
    return 1


def nothing_found(ws: Workspace) -> int:
    """`--all` on a search path without a single module: an error (exit 1), so CI does not pass on nothing."""
    from cogtui.core.module.discovery import unsearched_modules

    err(f"no modules on the search path (searched: {', '.join(str(r.path) for r in ws.search_path.roots)})")
    unsearched = unsearched_modules(ws.search_path)
    if unsearched is not None:
        err(f"note: {unsearched.note}")
    unjudged_folders(ws)
    return 1


def deprecation_notice(module: Any) -> None:
    """One line on stderr for a v1 or v2.1 module (v0 has its own diagnostic, M014), naming the migrate command."""
    fmt = getattr(getattr(module, "format", None), "value", None)
    contract = getattr(module, "contract", None)
    if contract is not None and not contract.known:  # the manifest cannot be read: its format is a guess (FMT-16)
        return
    if fmt in ("v1", "v2.1"):
        Printer(sys.stderr).line(
            f"note: {module.name} is in the {fmt} format, which is deprecated; "
            f"upgrade it with `cogn migrate {module.name}` (preview: --dry-run)",
            "warning",
        )
