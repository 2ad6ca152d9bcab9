"""`cogn lsp` publishes validate's diagnostics, driven over stdio by a real client (pygls's LanguageClient).

The same codes, messages, severities and start positions as `cogn validate --json`, from the open buffers; a change
to schema.json republishes and clears the goldens' diagnostics although they are not open; a module outside the
search path works; a newer edit supersedes an older check (no publish ever answers a text older than the one it is
published for); columns are the client's UTF-16 units; hostile text arrives escaped and a file leading out of the
module is never read.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from lspkit import MODULES, REALWORLD, Session, codes, uri
from lsprotocol import types

BROKEN_MANIFEST = ("tier: exec\n", "tier: fast\n")
BROKEN_SCHEMA = ('"type": "string"', '"type": "strng"')


def copy(tmp_path: Path, source: Path, where: str = "elsewhere") -> Path:
    """A copy of a module in a folder that is not on any search path."""
    target = tmp_path / where / source.name
    shutil.copytree(source, target)
    return target


def validate_json(module: Path) -> dict[str, list[tuple[str, str, str, int | None, int | None]]]:
    env = {k: v for k, v in os.environ.items() if k != "COGNITIVE_MODULES_PATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "cogtui.cli", "validate", str(module), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**env, "NO_COLOR": "1", "HOME": str(module.parent)},
    )
    out: dict[str, list[tuple[str, str, str, int | None, int | None]]] = {}
    for d in json.loads(proc.stdout)["modules"][0]["diagnostics"]:
        out.setdefault(d["file"], []).append((d["code"], d["message"], d["severity"], d["line"], d["column"]))
    return {k: sorted(v) for k, v in out.items()}


SEVERITY = {1: "error", 2: "warning", 3: "info"}


def as_validate(diags: list[types.Diagnostic]) -> list[tuple[str, str, str, int | None, int | None]]:
    return sorted(
        (
            str(d.code),
            d.message.split("\n")[0],
            SEVERITY[int(d.severity or 1)],
            d.range.start.line + 1,
            d.range.start.character + 1,
        )
        for d in diags
    )


def edit(path: Path, old: str, new: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


async def test_open_buffers_get_validates_diagnostics_on_every_file_of_the_module(tmp_path: Path) -> None:
    module = copy(tmp_path, REALWORLD / "sql-guard")
    (module / "module.yaml").write_text(edit(module / "module.yaml", *BROKEN_MANIFEST) + "colour: red\n", "utf-8")
    (module / "schema.json").write_text(edit(module / "schema.json", *BROKEN_SCHEMA), encoding="utf-8")
    golden = sorted((module / "tests").glob("*.expected.json"))[0]
    golden.write_text('{"ok": true, "meta": {}, "data": ', encoding="utf-8")  # cut short: P002
    expected = validate_json(module)
    assert len(expected) == 3  # the manifest, the schema and the golden each have problems
    async with Session(tmp_path) as s:
        s.open(module / "module.yaml")
        s.open(module / "schema.json")
        for file, want in expected.items():
            got = await s.published(Path(file), lambda d: bool(d))
            assert as_validate(got) == want, file
            assert all(d.source == "cogn" and d.code_description is not None for d in got)
        # the end of a range: the value the diagnostic is about
        tier = next(d for d in s.latest[uri(module / "module.yaml")] if d.code == "M003")
        assert (tier.range.start.character, tier.range.end.character) == (6, 10)  # `fast`


async def test_a_schema_change_republishes_and_clears_goldens_that_are_not_open(tmp_path: Path) -> None:
    module = copy(tmp_path, MODULES / "code-reviewer")
    schema = module / "schema.json"
    golden = module / "tests" / "case1.expected.json"
    async with Session(tmp_path) as s:
        s.open(schema)
        assert await s.published(schema) == []
        text = schema.read_text(encoding="utf-8")
        at = text.index('"request_changes"\n')
        line = text.count("\n", 0, at)
        column = at - text.rfind("\n", 0, at) - 1
        mark = len(s.log)
        s.replace(schema, (line, column), (line, column + len('"request_changes"')), '"reject"')
        broken = await s.published(golden, lambda d: bool(d), after=mark)
        assert "T003" in codes(broken)  # the golden's verdict is no longer one of the schema's
        mark = len(s.log)
        s.replace(schema, (line, column), (line, column + len('"reject"')), '"request_changes"')
        assert await s.published(golden, after=mark) == []  # cleared, though never opened


async def test_each_publish_answers_the_text_of_its_version(tmp_path: Path) -> None:
    """A burst of incremental edits, alternately breaking and fixing one value: whatever the server checked and
    dropped, each publish carries the diagnostics of the text its version had (a newer edit supersedes)."""
    module = copy(tmp_path, MODULES / "code-reviewer")
    manifest = module / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    at = text.index("tier: ") + len("tier: ")
    line = text.count("\n", 0, at)
    column = at - text.rfind("\n", 0, at) - 1
    tier = text[at : text.index("\n", at)]
    broken_at: dict[int, bool] = {1: False}
    async with Session(tmp_path) as s:
        s.open(manifest)
        current = tier
        for step in range(30):
            new = "fast" if step % 2 == 0 else tier
            version = s.replace(manifest, (line, column), (line, column + len(current)), new)
            broken_at[version] = new == "fast"
            current = new
            await asyncio.sleep(0.04)  # typing: checks start between the edits and newer edits overtake them
        final = s.versions[uri(manifest)]
        await s.published(manifest, version=final)
        mine = [(diags, version) for u, diags, version in s.log if u == uri(manifest)]
        assert mine and mine[-1][1] == final
        for diags, published in mine:
            assert published is not None
            assert ("M003" in codes(diags)) == broken_at[published], published


async def test_a_module_outside_the_search_path_and_a_closed_buffer_read_from_disk_again(tmp_path: Path) -> None:
    module = copy(tmp_path, MODULES / "code-reviewer", "not/on/any/path")
    manifest = module / "module.yaml"
    async with Session(tmp_path) as s:
        s.open(manifest, edit(manifest, "tier: decision\n", "tier: fast\n"))
        assert "M003" in codes(await s.published(manifest, lambda d: bool(d)))
        mark = len(s.log)
        s.close(manifest)  # the unsaved edit is gone: the disk's text counts again
        assert await s.published(manifest, after=mark) == []


async def test_columns_are_utf16_units(tmp_path: Path) -> None:
    module = copy(tmp_path, MODULES / "code-reviewer")
    manifest = module / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    text += 'modalities: {input: ["😀", "smell"]}\n'
    async with Session(tmp_path) as s:
        s.open(manifest, text)
        found = await s.published(manifest, lambda d: "M011" in codes(d))
        m011 = max((d for d in found if d.code == "M011"), key=lambda d: d.range.start.character)  # the 2nd
        row = text.split("\n")[m011.range.start.line]
        assert row.startswith("modalities:")
        at = row.index('"smell"')  # in code points; the emoji before it is two UTF-16 units
        assert (m011.range.start.character, m011.range.end.character) == (at + 1, at + 1 + len('"smell"'))


async def test_hostile_text_arrives_escaped_and_a_link_out_is_never_read(tmp_path: Path) -> None:
    module = copy(tmp_path, MODULES / "code-reviewer")
    secret = tmp_path / "secret.md"
    secret.write_text("TOP SECRET CONTENT\n", encoding="utf-8")
    (module / "prompt.md").unlink()
    (module / "prompt.md").symlink_to(secret)
    manifest = module / "module.yaml"
    text = edit(manifest, "name: code-reviewer\n", 'name: "evil\\e[2J\\u202e"\n')
    async with Session(tmp_path) as s:
        s.open(manifest, text)
        got = await s.published(manifest, lambda d: "M009" in codes(d))
        message = next(d.message for d in got if d.code == "M009")
        assert "\x1b" not in message and "\u202e" not in message
        assert "\\x1b" in message and "\\u202e" in message
        linked = await s.published(module / "prompt.md", lambda d: bool(d))
        assert codes(linked) == ["F001"]
        assert all("TOP SECRET" not in str(entry) for entry in s.log)


async def test_files_of_no_module_and_other_schemes_are_left_alone(tmp_path: Path) -> None:
    loose = tmp_path / "notes.yaml"
    loose.write_text("a: [\n", encoding="utf-8")
    module = copy(tmp_path, MODULES / "code-reviewer")
    async with Session(tmp_path) as s:
        s.open(loose)
        s.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri="untitled:Untitled-1", language_id="yaml", version=1, text="x")
            )
        )
        s.open(module / "module.yaml")  # answered after the two above: they published nothing
        await s.published(module / "module.yaml")
        assert {u for u, _d, _v in s.log} <= {uri(p) for p in module.rglob("*")}
