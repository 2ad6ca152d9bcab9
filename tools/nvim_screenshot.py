"""The screenshot of docs/editors.md: Neovim showing `cogn lsp`'s diagnostics, taken in tmux.

A copy of a reference-like module (tests/realworld/sql-guard) with a mistyped type in schema.json opens in Neovim
(Debian's, with editors/neovim/cogn.lua, as docs/editors.md sets it up) inside a detached tmux session of 100x30.
Once the pane shows the diagnostic, the pane is captured with its colours (`tmux capture-pane -e`) and drawn as SVG
by Rich (`screenshots/neovim-diagnostics.svg`); the plain text goes beside it (`.txt`), so the picture can be read
and diffed. `python -m tools.nvim_screenshot [OUT_DIR]` (default: screenshots/).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "tests" / "realworld" / "sql-guard"
SETUP = ROOT / "editors" / "neovim" / "cogn.lua"
WIDTH, HEIGHT = 100, 30
WAIT_S = 60.0  # a bound for a hang: the diagnostic shows within a second or two


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True, timeout=30).stdout


def shoot(out: Path) -> list[Path]:
    from rich.console import Console
    from rich.text import Text

    with tempfile.TemporaryDirectory(prefix="cogtui-nvim-") as tmp:
        work = Path(tmp) / "modules" / MODULE.name
        shutil.copytree(MODULE, work)
        schema = work / "schema.json"
        text = schema.read_text(encoding="utf-8")
        first = text.index('"type": "string"')
        schema.write_text(text[:first] + '"type": "strng"' + text[first + len('"type": "string"') :], "utf-8")
        line = text.count("\n", 0, first) + 1
        init = Path(tmp) / "init.lua"
        init.write_text(
            f'dofile("{SETUP}").setup({{ cmd = {{ "{sys.executable}", "-m", "cogtui.cli", "lsp" }} }})\n'
            "vim.o.number = true\nvim.o.signcolumn = 'yes'\nvim.o.termguicolors = false\n"
            # once the diagnostic is there, its whole message in a float under the cursor, as `K`-style help shows
            "local function show()\n"
            "  if #vim.diagnostic.get(0) > 0 then vim.diagnostic.open_float(nil, { scope = 'line', source = 'always',\n"
            "    format = function(d) return d.code .. ' ' .. d.message end })\n"
            "  else vim.defer_fn(show, 100) end\n"
            "end\n"
            "vim.defer_fn(show, 100)\n",
            encoding="utf-8",
        )
        session = f"cogtui-nvim-{os.getpid()}"
        env = {"HOME": tmp, "XDG_CONFIG_HOME": f"{tmp}/xdg", "XDG_STATE_HOME": f"{tmp}/state", "TERM": "xterm-256color"}
        nvim = ["nvim", "--clean", "-n", "-i", "NONE", "-u", str(init), f"+{line}", "modules/sql-guard/schema.json"]
        command = " ".join([*(f"{k}={v}" for k, v in env.items()), *nvim])
        tmux("new-session", "-d", "-s", session, "-x", str(WIDTH), "-y", str(HEIGHT), "-c", tmp, command)
        try:
            deadline = time.monotonic() + WAIT_S
            plain = ""
            while time.monotonic() < deadline:
                plain = tmux("capture-pane", "-p", "-t", session)
                if "is not a JSON Schema type" in plain:
                    break
                time.sleep(0.2)
            else:
                raise SystemExit(f"the diagnostic never showed:\n{plain}")
            coloured = tmux("capture-pane", "-p", "-e", "-t", session)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], check=False, capture_output=True, timeout=30)
    out.mkdir(parents=True, exist_ok=True)
    console = Console(record=True, width=WIDTH, file=open(os.devnull, "w"), force_terminal=True)  # noqa: SIM115
    console.print(Text.from_ansi(coloured.rstrip("\n")), soft_wrap=True)
    svg = out / "neovim-diagnostics.svg"
    svg.write_text(console.export_svg(title="Neovim 0.7 · cogn lsp"), encoding="utf-8")
    txt = out / "neovim-diagnostics.txt"
    txt.write_text("\n".join(row.rstrip() for row in plain.rstrip("\n").split("\n")) + "\n", encoding="utf-8")
    return [svg, txt]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else ROOT / "screenshots"
    for path in shoot(out.resolve()):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
