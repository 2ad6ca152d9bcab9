"""Hover, completion, go to definition and code actions: each the core's answer (`cogtui/core/assist/`) in the
protocol's types. They answer from the open buffer of the document asked about (never a document that is not
open), with the other open buffers laid over the disk as the checks read them.

A code action is a workspace edit the editor previews and applies: the server never writes a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from cogtui.core.assist.checked import Located, module_root
from cogtui.core.assist.complete import Item, complete
from cogtui.core.assist.documents import Doc, Span, parse
from cogtui.core.assist.fixes import fixes
from cogtui.core.assist.goto import definition
from cogtui.core.assist.hover import hover
from cogtui.core.files.confined import ParseFailure
from cogtui.core.files.sourcemap import file_overlay, read_text
from cogtui.lsp import convert

if TYPE_CHECKING:
    from cogtui.lsp.server import CognServer

KINDS = {
    "field": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.EnumMember,
    "reference": types.CompletionItemKind.Reference,
    "module": types.CompletionItemKind.Module,
}


class Request:
    """One request about an open document: its parse and the conversions of its positions."""

    def __init__(self, ls: CognServer, uri: str) -> None:
        self.ls = ls
        self.path = convert.path_of(uri)
        text = ls.open_text(self.path) if self.path is not None else None
        self.doc: Doc | None = parse(self.path, text) if self.path is not None and text is not None else None
        self.lines = convert.Lines(text, ls.encoding())
        self.root = module_root(self.path) if self.path is not None else None

    def point(self, position: types.Position) -> tuple[int, int]:
        return self.lines.from_client(position)

    def located(self) -> list[tuple[Any, Span]]:
        found: list[Located] = self.ls.located.get(self.path, []) if self.path is not None else []
        return [(x.diagnostic, (x.start, x.end)) for x in found]

    def range_in(self, path: Path, span: Span) -> types.Range:
        lines = self.lines if path == self.path else convert.Lines(self._text(path), self.ls.encoding())
        return lines.range(*span)

    def _text(self, path: Path) -> str | None:
        text = self.ls.open_text(path)
        if text is not None or self.root is None:
            return text
        try:
            return read_text(path, self.root)
        except (ParseFailure, OSError, ValueError):
            return None


@contextmanager
def buffers_over_disk(ls: CognServer) -> Iterator[None]:
    """The open buffers read instead of the disk (a `$ref` to an unsaved schema file, a module being edited)."""
    with file_overlay(ls.all_buffers()):
        yield


def register(server: CognServer) -> None:
    """Add the request handlers to `server`."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: CognServer, params: types.HoverParams) -> types.Hover | None:
        req = Request(ls, params.text_document.uri)
        if req.doc is None:
            return None
        with buffers_over_disk(ls):
            found = hover(req.doc, req.point(params.position), req.located(), "", ls.docs_url, ls.paths)
        if found is None:
            return None
        contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown)
        return types.Hover(contents=contents, range=req.lines.range(*found.span) if found.span else None)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[":", " ", '"', "#", "/", "-"])
    )
    def on_completion(ls: CognServer, params: types.CompletionParams) -> types.CompletionList | None:
        req = Request(ls, params.text_document.uri)
        if req.doc is None:
            return None
        from cogtui.core.run.providers import PROVIDERS  # the provider names, read from one place

        names = ls.module_names(req.root) if req.doc.role in ("prompt", "frontmatter") else []
        items = complete(req.doc, req.point(params.position), names, tuple(PROVIDERS))
        return types.CompletionList(is_incomplete=False, items=[_item(req, item) for item in items])

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: CognServer, params: types.DefinitionParams) -> list[types.Location] | None:
        req = Request(ls, params.text_document.uri)
        if req.doc is None:
            return None
        with buffers_over_disk(ls):
            targets = definition(req.doc, req.point(params.position), req.root, ls.paths)
        return [types.Location(uri=convert.uri_of(t.path), range=req.range_in(t.path, t.span)) for t in targets]

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )
    def on_code_action(ls: CognServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        req = Request(ls, params.text_document.uri)
        if req.doc is None or req.path is None:
            return None
        start, end = req.point(params.range.start), req.point(params.range.end)
        wanted = [(d, span) for d, span in req.located() if span[0] <= end and start <= span[1]]
        if not wanted:
            return []
        module = ls.load_module(req.root) if req.root is not None and req.doc.role == "prompt" else None
        actions = []
        uri = params.text_document.uri
        for fix in fixes(req.doc, wanted, module):
            edits = [types.TextEdit(range=req.lines.range(*e.span), new_text=e.text) for e in fix.edits]
            diagnostic = next((d for d in params.context.diagnostics if d.code == fix.diagnostic.code), None)
            actions.append(
                types.CodeAction(
                    title=fix.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic] if diagnostic is not None else None,
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                    is_preferred=True,
                )
            )
        return actions


def _item(req: Request, item: Item) -> types.CompletionItem:
    edit = None
    if item.span is not None:
        edit = types.TextEdit(range=req.lines.range(*item.span), new_text=item.insert or item.label)
    docs = types.MarkupContent(kind=types.MarkupKind.Markdown, value=item.documentation) if item.documentation else None
    return types.CompletionItem(
        label=item.label,
        kind=KINDS.get(item.kind),
        detail=item.detail or None,
        documentation=docs,
        text_edit=edit,
        insert_text=None if edit is not None else item.insert or None,
    )
