"""`cogn check [--kind K] [--module NAME|PATH] [--json] FILE|-`: never touches the network."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import Printer, err


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE|-", help="the document to check (JSON, NDJSON or SSE); - reads standard input")
    p.add_argument(
        "--kind", choices=("envelope", "chunk", "stream", "input"), help="what the document is (detected when omitted)"
    )
    p.add_argument(
        "--module",
        metavar="NAME|PATH",
        help="also apply this module's schemas and contract (an input is judged only against one)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from cogtui.core.files.decoding import decode_bytes
    from cogtui.core.files.positions import JsonPositions
    from cogtui.core.files.sourcemap import ParseFailure
    from cogtui.core.module.loader import NotAModule
    from cogtui.core.rules.document_checker import (
        UnjudgedInput,
        UnusableDocument,
        UnusableModule,
        check_document,
        parse_document,
    )
    from cogtui.core.rules.envelope_rules import dotted

    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else open(args.file, "rb").read()  # noqa: SIM115
        text = decode_bytes(raw, Path(args.file))
        doc = parse_document(text)
    except OSError as exc:
        err(f"cannot read {args.file}: {exc.strerror or exc}")
        return 2
    except ParseFailure as exc:
        err(f"{args.file}: {exc.diagnostic.message}")
        return 2
    except UnusableDocument as exc:
        err(f"{args.file}: {exc}")
        return 2
    module = None
    if args.module:
        from cogtui.core.workspace import Workspace

        try:
            module = Workspace.from_environment(args.paths).load(args.module)
        except NotAModule as exc:
            err(str(exc))
            return 2
    try:
        result = check_document(doc, args.kind, module, JsonPositions(text))
    except UnusableModule as exc:
        err(f"{exc}\n  hint: Run `cogn validate {exc.module.name}` and fix the errors first; nothing is checked.")
        return 2
    except UnjudgedInput as exc:  # no verdict without a module's input schema (ENV-18)
        err(f"{args.file}: {exc}")
        return 2
    p = Printer()
    if args.json:
        summary = {
            "valid": result.valid,
            "kind": result.kind,
            "violations": len(result.violations),
            "warnings": len(result.warnings),
        }
        p.document("check", "items", [{"file": args.file, **result.to_json()}], summary)
        return 0 if result.valid else 1
    for w in result.warnings:
        p.parts(("  ", None), ("warning", "warning"), (f" {dotted(w.path)}", "bold"), (f"  {w.message}", None))
    if result.valid:
        p.parts(("✓ ", "ok"), (f"valid {result.kind}", "ok"), (f" ({args.file})", "dim"))
    else:
        p.parts(
            ("✗ ", "error"),
            (f"invalid {result.kind}", "error"),
            (f": {len(result.violations)} violation{'s' * (len(result.violations) != 1)} ({args.file})", None),
        )
    for v in result.violations:
        line = result.line_of(v)
        where = f" (line {line})" if line is not None else ""
        p.parts(("  ", None), (v.code, "error"), (f" {v.rule}", "bold"), (f"{where}  {v.message}", None))
    if result.vector is not None:  # a conformance vector: does the verdict meet its $test? (ENV-17)
        style = {True: "ok", False: "error", None: "warning"}[result.vector.agrees]
        p.parts(("  ", None), (result.vector.summary(), style))
    return 0 if result.valid else 1
