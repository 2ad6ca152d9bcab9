"""The language server: pygls's LanguageServer with cogtui's features, one handler each.

Documents are synchronised incrementally (pygls keeps the open buffers). A file belongs to the module whose folder
holds it (`module_root`), on the search path or not; any change to it is a change of its module (`checks.py`).
Requests (hover, completion, definition, code actions) answer from the open buffers on the loop; the checks run
in a worker thread.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from cogtui import __version__
from cogtui.core.assist.checked import Checked, Located, module_root
from cogtui.core.assist.links import code_href
from cogtui.core.files.terminal_text import visible
from cogtui.core.module.model import Module
from cogtui.lsp import convert, features
from cogtui.lsp.checks import Checker, ModuleChecks

log = logging.getLogger(__name__)


class CognServer(LanguageServer):
    """`cogn lsp`. `paths` are the search roots given on the command line (`--path`), before the standard ones."""

    def __init__(self, paths: list[str] | None = None) -> None:
        super().__init__("cogn", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.paths = list(paths or [])
        self.docs_url: str | None = None
        self.checker = Checker(self.open_buffers, self.publish, self.check_failed)
        self.located: dict[Path, list[Located]] = {}  # what was published last, per file (hover, code actions)

    # ------------------------------------------------------------ documents

    def encoding(self) -> str:
        return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    def open_text(self, path: Path) -> str | None:
        """The text of the open buffer of `path`; None when it is not open (never read from disk here)."""
        doc = self.workspace.text_documents.get(convert.uri_of(path))
        return None if doc is None else doc.source

    def open_buffers(self, root: Path) -> dict[Path, str]:
        out: dict[Path, str] = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = convert.path_of(uri)
            if path is not None and path.is_relative_to(root):
                out[path] = doc.source
        return out

    def all_buffers(self) -> dict[Path, str]:
        out: dict[Path, str] = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            path = convert.path_of(uri)
            if path is not None:
                out[path] = doc.source
        return out

    def module_names(self, root: Path | None) -> list[str]:
        """The modules an `@call:` may name: those beside the module at `root`, then the search path's."""
        from cogtui.core.workspace import Workspace

        extra: list[str | Path] = [*self.paths, *([root.parent] if root is not None else [])]
        return Workspace.from_environment(extra).names()

    def load_module(self, root: Path) -> Module | None:
        """The module at `root` as the open buffers have it."""
        from cogtui.core.files.sourcemap import file_overlay
        from cogtui.core.module.loader import NotAModule
        from cogtui.core.module.loader import load_module as load

        try:
            with file_overlay(self.all_buffers()):
                return load(root)
        except (NotAModule, OSError):
            return None

    def changed(self, uri: str, at_once: bool = False) -> None:
        path = convert.path_of(uri)
        root = module_root(path) if path is not None else None
        if root is not None:
            self.checker.changed(root, at_once)

    # ------------------------------------------------------------ diagnostics

    def publish(self, checked: Checked | None, state: ModuleChecks) -> set[Path]:
        """Publish a check (None: clear what the module had); returns the paths that now hold diagnostics."""
        now: dict[Path, list[types.Diagnostic]] = {}
        if checked is not None:
            for path, located in checked.by_file.items():
                self.located[path] = located
                lines = convert.Lines(self._text_for(path, checked), self.encoding())
                now[path] = [convert.diagnostic(x, lines, code_href(x.diagnostic.code, self.docs_url)) for x in located]
        targets = set(now) | state.published
        if checked is not None:
            targets |= set(self.open_buffers(state.root))
        for path in sorted(targets):
            if path not in now:
                self.located.pop(path, None)
            uri = convert.uri_of(path)
            doc = self.workspace.text_documents.get(uri)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=now.get(path, []), version=doc.version if doc is not None else None
                )
            )
        return set(now)

    def _text_for(self, path: Path, checked: Checked) -> str | None:
        text = checked.texts.get(path)
        return text if text is not None else self.open_text(path)

    def check_failed(self, root: Path, error: BaseException) -> None:
        detail = visible(f"{type(error).__name__}: {error}", single_line=True)
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Error, message=f"checking {root} failed: {detail}")
        )

    def shutdown(self) -> None:
        self.checker.shutdown()
        super().shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated


def make_server(paths: list[str] | None = None) -> CognServer:
    server = CognServer(paths)

    @server.feature(types.INITIALIZE)
    def initialize(ls: CognServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict):
            docs = options.get("docsUrl")
            ls.docs_url = docs if isinstance(docs, str) and docs else None
            extra = options.get("paths")
            if isinstance(extra, list):
                ls.paths += [p for p in extra if isinstance(p, str)]

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CognServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, at_once=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CognServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CognServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, at_once=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CognServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.changed(params.text_document.uri, at_once=True)  # the disk's text counts again

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: CognServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            ls.changed(change.uri)

    features.register(server)
    return server


def serve(paths: list[str] | None = None, stdin: Any = None, stdout: Any = None) -> None:
    """Run the server over stdio until the client says exit (or the pipe closes)."""
    logging.basicConfig(level=logging.WARNING)
    make_server(paths).start_io(stdin, stdout)
