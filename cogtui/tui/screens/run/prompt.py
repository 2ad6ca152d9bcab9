"""`p` on the run screen: the prompt as a run of the form would send it, its tokens and cost; nothing is sent.

The request is built off the UI thread by the runner's own steps (core/run/prompt_preview.py), with the module
read afresh from disk; Anthropic's token count is asked when it is the provider and its key is set (it generates
nothing). The screen draws one `PromptViewState`: building, then the request (system, user, the structured-output
schema, attachments by reference) under its token and cost line, or why a run would be refused. Text from the
module and the input is shown literally. A screen of its own over the run screen, which only hands it the form.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker

from cogtui.core.module.loader import NotAModule, load_module
from cogtui.core.run.prompt_preview import PromptPreview, PromptViewState, prompt_as_sent
from cogtui.core.run.providers import make_provider
from cogtui.core.run.runner import RunOptions

from ...keys import KeySpec, bindings, register
from ...mounting import while_open
from ...shown import block, line
from ...widgets.key_footer import KeyFooter
from ...widgets.text_views import CodeView
from ...workbench import Workbench
from ...worker_failures import ReportsWorkerFailures

register(KeySpec("prompt.close", "escape,p", "close", "Back", main=True, doc="prompt as sent: back"))


class PromptScreen(ReportsWorkerFailures, ModalScreen[None]):
    BINDINGS = bindings("prompt.close")
    title_line = getters.query_one("#prompt-title", Static)
    body = getters.query_one("#prompt-body", CodeView)

    class Built(Message):
        def __init__(self, preview: PromptPreview | None, problem: str = "") -> None:
            super().__init__()
            self.preview, self.problem = preview, problem

    def __init__(
        self, module_path: Path, input_value: Any, provider: str, model: str | None, args: str | None, bench: Workbench
    ) -> None:
        super().__init__()
        self.module_path, self.input_value, self.args = module_path, input_value, args
        self.provider, self.model, self.bench = provider, model, bench
        self.state = PromptViewState(module_path.name)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog prompt-dialog"):
            yield Static("", id="prompt-title", classes="dialog-title")
            yield CodeView(id="prompt-body")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self.draw()
        _build: Worker[None] = self.run_worker(self._build, group="prompt", exit_on_error=False, name="the prompt")

    async def _build(self) -> None:
        try:
            module = load_module(self.module_path)
            provider = make_provider(self.provider, self.model, self.bench.config)
        except (NotAModule, OSError, ValueError) as exc:
            self.post_message(self.Built(None, str(exc)))
            return
        config = self.bench.config
        options = RunOptions(provider, args=self.args, resolver=self.bench.store.load, media_roots=config.media_roots)
        try:
            preview = await prompt_as_sent(module, self.input_value, options, config.prices)
        finally:
            await provider.aclose()
        self.post_message(self.Built(preview))

    @on(Built)
    def _built(self, message: Built) -> None:
        if message.preview is not None:
            self.state.ready(message.preview)
        else:
            self.state.failed(message.problem)
        self.draw()

    def draw(self) -> None:
        self.title_line.update(line(self.state.title()))
        self.body.show_content(block(self.state.text()))

    def action_close(self) -> None:
        self.dismiss(None)
