"""An output schema whose `$ref` cannot be resolved is refused before the model is paid (RUN-1).

Each module is the clean v2.2 module with one `$ref` broken. The provider is the
real anthropic SDK against the scripted server, which counts requests: a refused
run makes none. Where the broken `$ref` is only the input's, or in a `$defs` entry
nothing uses, the run is not refused for it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document as cli_document
from cli_json import envelope
from modkit import GOOD_EXPECTED, GOOD_INPUT, clean_v22, make_module, pos
from rtkit import ANTHROPIC_KEY, assert_failure, cli_env, cogn, options, provider, set_keys

from cogtui.core.module.loader import load_module
from cogtui.core.rules.output_refs import unusable_output_refs
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.runner import run_module

Schema = dict[str, Any]


def broken(tmp_path: Path, change: Callable[[Schema], None], extra: dict[str, Any] | None = None) -> Path:
    files = clean_v22()
    schema: Any = files["schema.json"]
    change(schema)
    files.update(extra or {})
    return make_module(tmp_path, files)


def in_data(schema: Schema) -> None:
    schema["data"]["properties"]["label"] = {"$ref": "#/$defs/nowhere"}


def in_meta(schema: Schema) -> None:
    schema["meta"]["properties"]["note"] = {"$ref": "#/$defs/nowhere"}


def through_defs_to_a_missing_file(schema: Schema) -> None:  # data → #/$defs/extensions → other.json (absent)
    schema["$defs"]["extensions"]["properties"]["more"] = {"$ref": "other.json#/x"}


def through_a_file_to_a_missing_pointer(schema: Schema) -> None:  # data → parts.json#/label → #/nowhere in it
    schema["data"]["properties"]["label"] = {"$ref": "parts.json#/label"}


PARTS_JSON = {"parts.json": {"label": {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}}}}

CASES = [
    (in_data, None, "data", "#/$defs/nowhere", "schema.json"),
    (in_meta, None, "meta", "#/$defs/nowhere", "schema.json"),
    (through_defs_to_a_missing_file, None, "data", "other.json#/x", "schema.json"),
    (through_a_file_to_a_missing_pointer, PARTS_JSON, "data", "#/nowhere", "parts.json"),
]


@pytest.mark.parametrize(("change", "extra", "part", "ref", "file"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_the_run_is_refused_before_the_call_naming_the_ref_and_where_it_is(
    tmp_path: Path,
    llm_server: Any,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Schema], None],
    extra: dict[str, Any] | None,
    part: str,
    ref: str,
    file: str,
) -> None:
    set_keys(monkeypatch)
    root = broken(tmp_path, change, extra)
    llm_server.enqueue(json.dumps(GOOD_EXPECTED))  # what the model would answer, were it asked
    result = await run_module(load_module(root), GOOD_INPUT, options(provider("anthropic", llm_server)))
    assert llm_server.request_count == 0  # nothing paid for
    err = assert_failure(result.envelope, "E4000")
    line, col = pos((root / file).read_text(encoding="utf-8"), f'"{ref}"')  # validate locates the value
    at = f"{root / file}:{line}:{col}"
    assert err["message"].startswith(f"module mod cannot run: its output schema ({part}) cannot be used: $ref '{ref}'")
    assert err["message"].endswith(f"({at})")
    assert err["suggestion"].startswith(f"Fix the $ref '{ref}' at {at}: ") and "cogn validate mod" in err["suggestion"]
    [found] = [d for d in validate_module(load_module(root)) if d.severity.value == "error"]
    assert (found.code, found.location) == ("S002", at)  # validate locates the same $ref


def test_a_broken_ref_only_the_input_uses_or_nothing_uses_is_no_output_refusal(tmp_path: Path) -> None:
    def in_input(schema: Schema) -> None:
        schema["input"]["properties"]["text"] = {"$ref": "#/$defs/nowhere"}

    def unused(schema: Schema) -> None:
        schema["$defs"]["unused"] = {"$ref": "#/$defs/nowhere"}

    for change in (in_input, unused):
        root = broken(tmp_path / change.__name__, change)
        module = load_module(root)
        assert unusable_output_refs(module) == []
        assert [d.code for d in validate_module(module) if d.severity.value == "error"] == ["S002"]


def test_cogn_run_test_and_eval_make_no_request(tmp_path: Path, llm_server: Any) -> None:
    root = broken(tmp_path / "mods", in_data)
    llm_server.respond_with(lambda _request: json.dumps(GOOD_EXPECTED))
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url, ANTHROPIC_API_KEY=ANTHROPIC_KEY)
    given = ("--provider", "anthropic")
    run = cogn(tmp_path, "run", str(root), "--input", json.dumps(GOOD_INPUT), *given, "--json", env=env, path=None)
    test = cogn(tmp_path, "test", str(root), *given, "--json", env=env, path=None)
    evaluated = cogn(tmp_path, "eval", str(root), *given, "--no-history", env=env, path=None)
    assert llm_server.request_count == 0
    assert run.returncode == test.returncode == evaluated.returncode == 1
    assert envelope(run.stdout)["error"]["code"] == "E4000"
    [blocked] = cli_document(test.stdout, "test")["modules"]
    assert blocked["cannot_run"]["code"] == "E4000" and "$ref '#/$defs/nowhere'" in blocked["cannot_run"]["suggestion"]
    assert "E4000" in evaluated.stdout


def test_cogn_check_gives_no_verdict_on_an_output_against_it_but_still_judges_an_input(tmp_path: Path) -> None:
    """An envelope, a chunk, a stream or a conformance vector checked against such a module gets no verdict (exit 2,
    the `$ref` and where it is, ENV-19), not an E3001 that blames the document; an input is judged as before."""
    root = broken(tmp_path / "mods", in_data)
    line, col = pos((root / "schema.json").read_text(encoding="utf-8"), '"#/$defs/nowhere"')
    at = f"{root / 'schema.json'}:{line}:{col}"
    chunk = {"chunk": {"seq": 1, "type": "snapshot", "field": "meta.confidence", "data": 0.5}}
    vector = {"$test": {"expects": "accept"}, "envelope": GOOD_EXPECTED}
    documents = {"envelope": GOOD_EXPECTED, "chunk": chunk, "stream": [chunk], "vector": vector}
    for kind, document in documents.items():
        (tmp_path / f"{kind}.json").write_text(json.dumps(document), encoding="utf-8")
        checked = cogn(tmp_path, "check", "--module", str(root), str(tmp_path / f"{kind}.json"), path=None)
        assert checked.returncode == 2, (kind, checked.stdout)
        assert checked.stdout == ""
        assert (
            f"module mod's output contract (data) cannot be used: S002 {at}  $ref '#/$defs/nowhere'" in checked.stderr
        )
        assert "nothing is checked" in checked.stderr
    (tmp_path / "input.json").write_text(json.dumps(GOOD_INPUT), encoding="utf-8")
    judged = cogn(tmp_path, "check", "--module", str(root), str(tmp_path / "input.json"), path=None)
    assert (judged.returncode, judged.stdout.startswith("✓ valid input")) == (0, True)
