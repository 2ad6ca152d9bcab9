"""`cogn lsp` under test: the real server as a process, driven over stdio by pygls's own LanguageClient.

`Session` starts `python -m cogtui.cli lsp` with a private HOME and data folder, initializes it, and keeps every
publishDiagnostics it receives; `published` waits for the next publish that satisfies a condition (a bound of
HANG_S for a hang, never a speed). Documents are opened, changed (incrementally, as editors do) and closed by URI.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HANG_S = 60.0
ROOT = Path(__file__).resolve().parents[1]
MODULES = ROOT / "modules"
REALWORLD = Path(__file__).resolve().parent / "realworld"

Published = tuple[str, list[types.Diagnostic], int | None]  # uri, diagnostics, version


def uri(path: Path) -> str:
    return path.absolute().as_uri()


class Session:
    """One server and its client. Use as `async with Session(tmp_path) as s:`."""

    def __init__(self, tmp_path: Path, *args: str, options: dict[str, Any] | None = None) -> None:
        self.tmp_path, self.args, self.options = tmp_path, args, options
        self.client = LanguageClient("cogtui-tests", "1")
        self.log: list[Published] = []  # every publish, in order
        self.latest: dict[str, list[types.Diagnostic]] = {}
        self.changed = asyncio.Condition()
        self.versions: dict[str, int] = {}
        self.text: dict[str, str] = {}  # each open document's text as the client has it
        self.stderr = b""
        self.messages: list[str] = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def on_publish(params: types.PublishDiagnosticsParams) -> None:
            async with self.changed:
                self.log.append((params.uri, list(params.diagnostics), params.version))
                self.latest[params.uri] = list(params.diagnostics)
                self.changed.notify_all()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        async def on_log(params: types.LogMessageParams) -> None:
            self.messages.append(params.message)

    async def __aenter__(self) -> Session:
        env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "COGTUI_DOCS_URL")}
        env.update(HOME=str(self.tmp_path / "home"), COGTUI_DATA_DIR=str(self.tmp_path / "data"), NO_COLOR="1")
        env.update(COGTUI_CONFIG_FILE=str(self.tmp_path / "config.yaml"), PYTHONIOENCODING="utf-8")
        await self.client.start_io(sys.executable, "-m", "cogtui.cli", "lsp", *self.args, env=env, cwd=self.tmp_path)
        self.result = await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(),
                    initialization_options=self.options,
                    root_uri=uri(self.tmp_path),
                )
            ),
            HANG_S,
        )
        self.client.initialized(types.InitializedParams())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), HANG_S)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), HANG_S)  # waits for the server process to end

    # ------------------------------------------------------------ documents

    def open(self, path: Path, text: str | None = None, language: str = "") -> str:
        doc = uri(path)
        self.versions[doc] = 1
        body = path.read_text(encoding="utf-8") if text is None else text
        self.text[doc] = body
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=doc, language_id=language or _language(path), version=1, text=body
                )
            )
        )
        return doc

    def replace(self, path: Path, start: tuple[int, int], end: tuple[int, int], text: str) -> int:
        """An incremental change of the open document (0-based line and UTF-16 character); returns its version."""
        doc = uri(path)
        self.versions[doc] += 1
        lines = self.text[doc].split("\n")
        at = [sum(len(line) + 1 for line in lines[:row]) + col for row, col in (start, end)]  # ASCII lines only
        self.text[doc] = self.text[doc][: at[0]] + text + self.text[doc][at[1] :]
        rng = types.Range(start=types.Position(*start), end=types.Position(*end))
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=self.versions[doc]),
                content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)],
            )
        )
        return self.versions[doc]

    def whole(self, path: Path, text: str) -> int:
        """The whole text of the open document replaced (a full-text change)."""
        doc = uri(path)
        self.versions[doc] += 1
        self.text[doc] = text
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=self.versions[doc]),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[doc]

    def close(self, path: Path) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(path)))
        )

    # ------------------------------------------------------------ waits

    async def published(
        self,
        path: Path,
        condition: Callable[[list[types.Diagnostic]], bool] = lambda _d: True,
        after: int = 0,
        version: int | None = None,
    ) -> list[types.Diagnostic]:
        """The diagnostics of the first publish for `path`, from the `after`-th publish on, that meets `condition`
        (and is for `version` of the document, when given)."""
        doc = uri(path)

        def found() -> list[types.Diagnostic] | None:
            for published_uri, diags, published_version in self.log[after:]:
                if published_uri == doc and condition(diags) and version in (None, published_version):
                    return diags
            return None

        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: found() is not None), HANG_S)
        result = found()
        assert result is not None
        return result


def codes(diags: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diags)


def _language(path: Path) -> str:
    return {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".md": "markdown"}.get(path.suffix, "plaintext")
