"""What was typed on each module's run screen, and chosen on its eval screen, kept until cogtui quits.

Escape closes the run screen; opening it again on the same module brings back
the input, the provider, the model and `$ARGUMENTS` as they were left. The
app holds one `RunDrafts`; the run screen writes its draft as the fields
change and reads it when it opens (unless it was opened with an input of its
own: a re-run from the history, a golden's input). The eval screen keeps its
targets and response-cache mode the same way (issue 14). Nothing is written to disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from cogtui.core.eval.targets import EvalChoice


class RunDraft(NamedTuple):  # a NamedTuple: a tenth of a frozen dataclass's cost to define, at start-up
    input_text: str
    provider: str
    model: str = ""
    args: str = ""


class RunDrafts:
    def __init__(self) -> None:
        self._by_module: dict[Path, RunDraft] = {}
        self._evals: dict[Path, EvalChoice] = {}

    def get(self, module_path: Path) -> RunDraft | None:
        return self._by_module.get(module_path)

    def keep(self, module_path: Path, draft: RunDraft) -> None:
        self._by_module[module_path] = draft

    def eval_choice(self, module_path: Path) -> EvalChoice | None:
        return self._evals.get(module_path)

    def keep_eval_choice(self, module_path: Path, choice: EvalChoice) -> None:
        self._evals[module_path] = choice
