"""Messages quote module file values as the author wrote them, and say all the parser said (CODE-9, CODE-10, CODE-7).

`version: 2024-01-01` is a date to YAML: the message says 2024-01-01, never `datetime.date(2024, 1, 1)`;
a `null:` key is `null` at its own line, not `None` at the top of the file.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from modkit import MANIFEST_V22, clean_v22, make_module, pos

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.sourcemap import ParseFailure, parse_yaml
from cogtui.core.files.written import as_written, yaml_kind, yaml_text
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.settings.config import load_config


def manifest_text(extra: str = "", **changes: Any) -> str:
    man = {**MANIFEST_V22, **changes}
    return "# manifest\n" + yaml.safe_dump(man, sort_keys=False) + extra


def diagnostics(tmp_path: Path, text: str) -> list[Diagnostic]:
    files = clean_v22()
    files["module.yaml"] = text
    return validate_module(load_module(make_module(tmp_path, files)))


def said(found: list[Diagnostic], code: str) -> list[tuple[str, int | None, int | None]]:
    return [(d.message, d.line, d.column) for d in found if d.code == code]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (1.5, "1.5"),
        (float("inf"), ".inf"),
        (float("-inf"), "-.inf"),
        (float("nan"), ".nan"),
        (datetime.date(2024, 1, 1), "2024-01-01"),
        (datetime.datetime(2024, 1, 1, 10, 30), "2024-01-01 10:30:00"),
        (b"hi", "!!binary aGk="),
        (["a", None, 1], '["a", null, 1]'),
        ({"mode": True, None: 2}, '{"mode": true, null: 2}'),
    ],
)
def test_yaml_text_is_never_a_python_repr(value: Any, text: str) -> None:
    assert yaml_text(value) == text


def test_as_written_prefers_the_files_own_text() -> None:
    text = "a: ~\nb: yes\nc: 0x1F\nd: 2024-01-01\ne: [Null, NO]\nf: 'q'\n~: k\n"
    src = parse_yaml(text, Path("module.yaml"))
    shown = [as_written(src.value[k], src, (k,)) for k in "abcdf"]
    assert shown == ["~", "yes", "0x1F", "2024-01-01", "'q'"]
    assert [as_written(v, src, ("e", i)) for i, v in enumerate(src.value["e"])] == ["Null", "NO"]
    assert as_written(None, src, (None,), key=True) == "~"
    assert as_written("q", src, ("f",), quote=False) == "q"
    values: list[object] = [None, [], {}, "s", 1, True, datetime.date(2024, 1, 1)]
    assert [yaml_kind(v) for v in values] == ["null", "a list", "a mapping", "text", "a number", "a boolean", "a date"]


def test_a_date_version_is_quoted_as_written(tmp_path: Path) -> None:
    text = manifest_text().replace("version: 1.0.0", "version: 2024-01-01")
    assert said(diagnostics(tmp_path, text), "M002") == [
        ("version 2024-01-01 is not a semantic version", *pos(text, "2024-01-01"))
    ]


def test_unknown_keys_are_named_as_written_at_their_own_line(tmp_path: Path) -> None:
    text = manifest_text(extra="null: y\n0x7b: z\n'quoted': w\n")
    found = said(diagnostics(tmp_path, text), "M008")
    assert found == [
        ("null is not a field the spec defines", *pos(text, "null: y")),
        ("0x7b is not a field the spec defines", *pos(text, "0x7b")),
        ("'quoted' is not a field the spec defines", *pos(text, "'quoted'")),
    ]


def test_other_manifest_values_are_quoted_as_written(tmp_path: Path) -> None:
    extra = (
        "context: 2024-01-02\nmodalities:\n  input: [text, ~]\nerror_codes:\n  null: x\n"
        "constraints:\n  no_network: ~\ncompat:\n  schema_output_alias: NULL\nfailure:\n  ~: 1\n"
    )
    text = manifest_text(extra=extra).replace("network: deny", "network: yes").replace("tier: decision", "tier: 3.0")
    found = diagnostics(tmp_path, text)
    messages = {d.message for d in found}
    assert {
        "tier 3.0 is not one of exec, decision, exploration",
        "policy network: yes is not recognised",
        "context 2024-01-02 is not fork or main",
        "unknown modality ~",
        "null is not a module error code (E5000-E9999)",
        "constraint no_network: ~ is not recognised",
        "failure.~ is not a field the spec defines; it has no effect",
    } <= messages, messages
    alias = [d.message for d in found if d.message.startswith("compat.schema_output_alias")]
    assert alias and alias[0].startswith("compat.schema_output_alias NULL: the only alias is data")
    assert not any("None" in m or "True" in m or "datetime" in m for m in messages), messages


def test_wrong_shapes_are_named_in_yaml_words(tmp_path: Path) -> None:
    text = manifest_text(policies=["deny"])
    assert [m for m, *_ in said(diagnostics(tmp_path, text), "M007")] == ["policies must be a mapping, not a list"]
    found = diagnostics(tmp_path, "- name\n- version\n")
    assert [m for m, *_ in said(found, "P004")] == ["module.yaml must be a mapping, found a list"]


def test_an_unknown_null_setting_is_said_as_written(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("theme: nord\n~: 1\n", encoding="utf-8")
    problems = load_config(path).problems
    assert len(problems) == 1 and problems[0].startswith(f"{path}:2:1: unknown setting ~ ignored (known: "), problems


# ---------------------------------------------------------------- parser messages and hints


def test_a_second_document_keeps_the_parsers_context_and_problem() -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_yaml("---\nname: x\n---\nname: y\n", Path("module.yaml"))
    found = caught.value.diagnostic
    assert found.message == (
        "YAML syntax error: expected a single document in the stream (line 2), but found another document"
    )
    assert (found.line, found.column) == (3, 1) and "one document" in found.hint


def test_an_unclosed_quote_says_where_it_opened() -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_yaml('a: 1\nb: "open\nc: 2\n', Path("module.yaml"))
    # Said, and located, at the quote that opens the value, not at the end of the file (CODE-7).
    d = caught.value.diagnostic
    assert (d.message, d.line, d.column) == ('YAML syntax error: the " that starts this value is never closed', 2, 4)


def test_a_folder_where_a_file_belongs_has_a_hint(tmp_path: Path) -> None:
    files = clean_v22()
    files["prompt.md"] = None
    root = make_module(tmp_path, files)
    (root / "prompt.md").mkdir()
    found = [d for d in load_module(root).load_diagnostics if d.code == "P003"]
    assert [d.message for d in found] == ["prompt.md is a directory, not a file"]
    assert "write prompt.md as a file" in found[0].hint
