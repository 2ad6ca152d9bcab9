"""`cogn run NAME|PATH [--input FILE|-|'{json}'] [--args TEXT] [--provider P] [--model M] [--json] [--stream ndjson|sse] [--no-validate] [--fix NAME] [--strict]`.

Exit codes: 0 ok, 1 not ok, 2 usage errors (bad flags, unreadable input, unknown module, a history location that
cannot be used at all), 130 on Ctrl-C. A run the history cannot take is kept in its outbox: the status is unchanged.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogtui.core.rules.stream_text import ndjson_line, sse_frame
from cogtui.core.run.providers import PROVIDERS

from .output import (
    Printer,
    config_warnings,
    deprecation_notice,
    err,
    open_workspace,
    output_file_problem,
    write_output_file,
)

if TYPE_CHECKING:
    from cogtui.core.settings.config import Config


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="NAME|PATH", help="a module name on the search path, or a module folder")
    p.add_argument(
        "input_file",
        nargs="?",
        metavar="INPUT",
        help="the input file (the v0.1 form `cogn run MODULE INPUT -o OUTPUT`)",
    )
    p.add_argument("--input", metavar="FILE|-|JSON", help="the input: a JSON file, - for stdin, or inline JSON")
    p.add_argument("-a", "--args", metavar="TEXT", help="text for $ARGUMENTS in the prompt (and a $ARGUMENTS input)")
    p.add_argument(
        "-s",
        "--subagent",
        action="store_true",
        help="run the prompt's @call: subagents (SPEC-v0.1's flag, kept for its scripts: cogtui always runs them)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="also write the final envelope as JSON to FILE")
    p.add_argument("--provider", choices=PROVIDERS, help="default: $COGNITIVE_PROVIDER, config, else replay")
    p.add_argument("--model", metavar="M", help="model name for the provider")
    p.add_argument("--json", action="store_true", help="print the final envelope as JSON")
    p.add_argument("--stream", choices=("ndjson", "sse"), help="print v2.5 chunks as they arrive")
    p.add_argument("--no-validate", action="store_true", help="skip output validation and contract rules")
    p.add_argument(
        "--timeout", type=seconds, default=60.0, metavar="S", help="stream silence timeout in seconds (default 60)"
    )
    p.add_argument(
        "--deadline",
        type=seconds,
        metavar="S",
        help="end the whole run after S seconds with E2002 (default: run_deadline in config.yaml, else 600)",
    )
    p.add_argument("--no-history", action="store_true", help="do not record this run")
    p.add_argument(
        "--fix",
        action="append",
        default=[],
        metavar="NAME",
        help="an output fix beyond the spec's repair pass (confidence_clamp, confidence_text, enum_hyphens, "
        "corrective_retry, or all); adds to config output_fixes; recorded in meta.warnings when it acts",
    )
    p.add_argument("--strict", action="store_true", help="no output fix at all, whatever --fix or the config says")


def seconds(text: str) -> float:
    """A time limit given on the command line: a number of seconds above 0 (a usage error otherwise, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return value


def read_input(spec: str | None) -> Any:
    """The input document; raises ValueError with a message fit for the user."""
    if spec is None:
        return {}
    if spec.lstrip().startswith(("{", "[")):
        text = spec
    else:
        text = _input_text(spec)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the input is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ValueError("the input is nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise ValueError(f"the input is not usable JSON: {exc}") from None


def _input_text(spec: str) -> str:
    """The text of an input file (or of stdin for `-`): UTF-8, with or without a BOM, or BOM-marked UTF-16;
    anything else is said with its place, as `cogn check` says it (P005), never as a codec's error."""
    from cogtui.core.files.confined import ParseFailure
    from cogtui.core.files.decoding import decode_bytes

    name = "stdin" if spec == "-" else spec
    try:
        if spec != "-":
            raw = Path(spec).read_bytes()
        elif (stdin := getattr(sys.stdin, "buffer", None)) is not None:
            raw = stdin.read()
        else:  # a text stream without bytes beneath (an embedding caller's): already decoded
            return sys.stdin.read()
        return decode_bytes(raw, Path(name))
    except OSError as exc:
        raise ValueError(f"cannot read input file {spec}: {exc.strerror or exc}") from None
    except ParseFailure as exc:
        d = exc.diagnostic
        raise ValueError(f"{name}:{d.line}:{d.column}: the input is {d.message}") from None


def run(args: argparse.Namespace) -> int:
    from cogtui.core.module.loader import NotAModule
    from cogtui.core.run.envelope_builder import failure
    from cogtui.core.run.providers import UnknownProvider, make_provider
    from cogtui.core.settings.config import load_config

    cfg = load_config()  # once: the fixes, the provider and the run's options all come from it
    config_warnings(cfg)
    if args.input_file is not None and args.input is not None:
        err("give the input once: either INPUT or --input")
        return 2
    if args.output and (problem := output_file_problem(args.output)) is not None:  # before the model is paid
        err(problem)
        return 2
    if (problem := _history_problem(args)) is not None:
        err(problem)
        return 2
    try:
        input_value = read_input(args.input if args.input is not None else args.input_file)
    except ValueError as exc:
        err(str(exc))
        return 2
    ws = open_workspace(args.paths)
    try:
        module = ws.load(args.target)
    except NotAModule as exc:
        err(str(exc))
        if args.json:
            print_run_json(args.target, None, failure("E4006", str(exc)), None)
        return 2
    from cogtui.core.run.output_fixes import parse_fixes

    args.fixes, problems = parse_fixes([*cfg.output_fixes, *args.fix])
    if problems:
        for problem in problems:
            err(problem)
        return 2
    deprecation_notice(module)
    try:
        provider = make_provider(args.provider, args.model, cfg)
    except UnknownProvider as exc:
        err(str(exc))
        return 2
    return asyncio.run(_run(module, input_value, provider, ws, args, cfg))


async def _run(module: Any, input_value: Any, provider: Any, ws: Any, args: argparse.Namespace, cfg: Config) -> int:
    from cogtui.core.run.envelope_builder import failure
    from cogtui.core.run.runner import RunOptions, RunSession

    options = RunOptions(
        provider,
        args=args.args,
        validate=not args.no_validate,
        stream_requested=bool(args.stream),
        stream_timeout=args.timeout,
        resolver=ws.find,
        fixes=args.fixes,
        strict=args.strict,
        deadline=args.deadline if args.deadline is not None else cfg.run_deadline,
        media_roots=cfg.media_roots,
    )
    from cogtui.core.run.arguments import fill_arguments

    input_value = fill_arguments(module, input_value, args.args)
    session = RunSession(module, input_value, options)
    out = sys.stdout
    try:
        async for ev in session.events():
            if args.stream and not ev.path:
                out.write(sse_frame(ev.chunk) if args.stream == "sse" else ndjson_line(ev.chunk))
                out.flush()
    except asyncio.CancelledError:
        result = session.result
        if args.stream and result is not None:
            env = result.envelope
            chunk = {
                "ok": False,
                "streaming": True,
                "session_id": session.session_id,
                "meta": env.get("meta"),
                "error": env.get("error") or failure("E2010", "interrupted")["error"],
            }
            if env.get("partial_data"):  # what had streamed, like every other error chunk (STREAM-5)
                chunk["partial_data"] = env["partial_data"]
            out.write(sse_frame(chunk) if args.stream == "sse" else ndjson_line(chunk))
        elif result is not None:  # Ctrl-C still answers: the cancelled envelope, as asked for
            if args.output:
                _write_output(args.output, result.envelope)
            if args.json:
                print_run_json(module.name, module.path, result.envelope, provider)
        _record(module, input_value, args, session)
        raise
    finally:
        await provider.aclose()
    result = session.result
    assert result is not None
    _record(module, input_value, args, session)
    written = not args.output or _write_output(args.output, result.envelope)
    if args.json or not written:  # a file that could not be written after all: the envelope is not lost
        print_run_json(module.name, module.path, result.envelope, provider)
    elif not args.stream:
        from .runview import print_result

        print_result(Printer(), module, result)
    if args.json or args.stream:  # stdout is machine output: warnings go to stderr
        for warning in result.warnings:
            err(f"warning: {warning}")
    if not written:
        return 2
    return 0 if result.ok else 1


def print_run_json(name: str, path: Any, envelope: dict[str, Any], provider: Any) -> None:
    """`run --json`: the run's envelope as the spec defines it, in the one document every `--json` prints."""
    error = envelope.get("error")
    summary = {
        "ok": envelope.get("ok") is True,
        "error_code": error.get("code") if isinstance(error, dict) else None,
        "provider": getattr(provider, "name", None),
        "model": getattr(provider, "model", None),
    }
    entry = {"module": name, "path": str(path) if path is not None else None, "envelope": envelope}
    Printer().document("run", "modules", [entry], summary)


def _record(module: Any, input_value: Any, args: argparse.Namespace, session: Any) -> None:
    """Into the history, else its outbox (run_record.record_run); the exit status never depends on it."""
    if args.no_history or session.result is None:
        return
    from cogtui.core.history.run_record import record_run, to_record
    from cogtui.core.history.store import HistoryError

    try:
        recorded = record_run(to_record(module, input_value, args.args, session.result))
    except HistoryError as exc:
        err(f"warning: the run was not recorded: {exc}")
        return
    for note in recorded.notes:
        err(f"note: {note}")
    if (warning := recorded.warning()) is not None:
        err(f"warning: {warning}")


def _history_problem(args: argparse.Namespace) -> str | None:
    """Why the configured history cannot be used at all (a URL cogtui does not read, no PostgreSQL support
    installed): said before the run, which then does not start and writes nothing."""
    if args.no_history:
        return None
    from cogtui.core.history.location import default_location
    from cogtui.core.history.records import HistoryConfigError

    try:
        default_location().check_driver()
    except HistoryConfigError as exc:
        return str(exc)
    return None


def _write_output(target: str, envelope: dict[str, Any]) -> bool:
    return write_output_file(target, json.dumps(envelope, ensure_ascii=False, indent=2) + "\n")
