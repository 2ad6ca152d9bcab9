"""`cogn lsp`'s hover, completion, go to definition and code actions, asked by a real client over stdio.

Each answer is checked against the source it must come from: the manifest field data and the docs' words, the
docs' row of a code, the schema a `$ref` names, the called module's manifest. A code action's edit, applied to the
text, makes its diagnostic go away (checked by validating the result), and the file on disk is never touched.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from lspkit import MODULES, Session, codes, uri
from lsprotocol import types

from cogtui.core.assist.checked import check_buffers
from cogtui.core.assist.fields import BY_PATH
from cogtui.core.assist.reference import code_help
from cogtui.core.authoring.migration.prompt_section import envelope_section
from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings
from cogtui.core.module.loader import load_module
from cogtui.core.run.providers import PROVIDERS

HANG_S = 60.0


def modules(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "mods"
    for name in names:
        shutil.copytree(MODULES / name, root / name)
    return root


def position_of(text: str, needle: str, offset: int = 0) -> types.Position:
    at = text.index(needle) + offset
    line = text.count("\n", 0, at)
    return types.Position(line=line, character=at - text.rfind("\n", 0, at) - 1)


def td(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri(path))


async def hover(s: Session, path: Path, position: types.Position) -> str:
    result = await asyncio.wait_for(
        s.client.text_document_hover_async(types.HoverParams(text_document=td(path), position=position)), HANG_S
    )
    assert result is not None
    contents = result.contents
    assert isinstance(contents, types.MarkupContent)
    return contents.value


async def completions(s: Session, path: Path, position: types.Position) -> list[str]:
    result = await asyncio.wait_for(
        s.client.text_document_completion_async(types.CompletionParams(text_document=td(path), position=position)),
        HANG_S,
    )
    assert isinstance(result, types.CompletionList)
    return [item.label for item in result.items]


async def definition(s: Session, path: Path, position: types.Position) -> list[types.Location]:
    result = await asyncio.wait_for(
        s.client.text_document_definition_async(types.DefinitionParams(text_document=td(path), position=position)),
        HANG_S,
    )
    assert isinstance(result, list)
    return result


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[: p.line]) + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def fix(s: Session, path: Path, code: str) -> tuple[types.CodeAction, str]:
    """The code action for `code` in the open document `path`, and the document's text once its edit applied."""
    diags = await s.published(path, lambda d: code in codes(d))
    diagnostic = next(d for d in diags if d.code == code)
    params = types.CodeActionParams(
        text_document=td(path), range=diagnostic.range, context=types.CodeActionContext(diagnostics=[diagnostic])
    )
    actions = await asyncio.wait_for(s.client.text_document_code_action_async(params), HANG_S)
    assert actions, f"no fix offered for {code}"
    (action,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert action.kind == types.CodeActionKind.QuickFix and action.edit is not None and action.edit.changes
    (edits,) = action.edit.changes.values()
    return action, apply(s.text[uri(path)], list(edits))


# ---------------------------------------------------------------- hover


async def test_hover_on_a_manifest_key_diagnostic_ref_and_call(tmp_path: Path) -> None:
    root = modules(tmp_path, "code-reviewer", "release-notes")
    manifest = root / "code-reviewer" / "module.yaml"
    text = manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: fast")
    schema = root / "code-reviewer" / "schema.json"
    prompt = root / "release-notes" / "prompt.md"
    async with Session(tmp_path) as s:
        s.open(manifest, text)
        await s.published(manifest, lambda d: "M003" in codes(d))
        on_key = await hover(s, manifest, position_of(text, "schema_strictness:"))
        assert "**schema_strictness**" in on_key and "`high`, `medium`, `low`" in on_key
        assert BY_PATH["schema_strictness"].default in on_key
        assert BY_PATH["schema_strictness"].meaning()[:40] in on_key  # the docs' words
        on_problem = await hover(s, manifest, position_of(text, "fast", 1))
        help_m003 = code_help("M003")
        assert help_m003 is not None and "**M003**" in on_problem and help_m003.meaning in on_problem
        assert "diagnostics.md#m003" in on_problem
        s.open(schema)
        schema_text = schema.read_text(encoding="utf-8")
        on_ref = await hover(s, schema, position_of(schema_text, '"#/$defs/extensions"', 2))
        assert "`#/$defs/extensions`" in on_ref and '"insights"' in on_ref  # the target schema, shown
        s.open(prompt)
        on_call = await hover(s, prompt, position_of(prompt.read_text(encoding="utf-8"), "@call:code-reviewer", 8))
        responsibility = load_module(root / "code-reviewer").responsibility
        assert responsibility is not None and responsibility in on_call


# ---------------------------------------------------------------- completion


async def test_completion_of_keys_values_refs_calls_and_providers(tmp_path: Path) -> None:
    root = modules(tmp_path, "code-reviewer", "release-notes")
    manifest = root / "code-reviewer" / "module.yaml"
    base = manifest.read_text(encoding="utf-8")
    without_enums = "\n".join(line for line in base.split("\n") if not line.startswith(("enums:", "  strategy:")))
    text = without_enums + "\nen"
    async with Session(tmp_path) as s:
        s.open(manifest, text)
        last = types.Position(line=text.count("\n"), character=2)
        top = await completions(s, manifest, last)
        assert "enums" in top and "tier" not in top  # only what the manifest lacks, at the top level
        inside = text.replace("\nen", "\noverflow:\n  ")
        s.whole(manifest, inside)
        overflow_keys = await completions(s, manifest, types.Position(line=inside.count("\n"), character=2))
        assert set(overflow_keys) <= {"enabled", "max_items", "recoverable", "require_suggested_mapping"}
        assert overflow_keys
        for line, expected in [
            ("tier: ", ["exec", "decision", "exploration"]),
            ("schema_strictness: ", ["high", "medium", "low"]),
            ("enums:\n  strategy: ", ["strict", "extensible"]),
            ("response:\n  mode: ", ["sync", "streaming", "both"]),
            ("overflow:\n  enabled: ", ["true", "false"]),
            ("failure:\n  contract: ", ["error_union"]),
        ]:
            typed = "name: x\n" + line
            s.whole(manifest, typed)
            end = types.Position(line=typed.count("\n"), character=len(typed.split("\n")[-1]))
            assert await completions(s, manifest, end) == expected, line
        schema = root / "code-reviewer" / "schema.json"
        schema_text = schema.read_text(encoding="utf-8")
        s.open(schema, schema_text.replace('"#/$defs/extensions"', '"#/'))
        refs = await completions(s, schema, position_of(schema_text, '"#/$defs/extensions"', 3))
        assert "#/$defs/extensions" in refs and "#/data" in refs
        prompt = root / "release-notes" / "prompt.md"
        s.open(prompt, "Ask @call:")
        assert {"code-reviewer", "release-notes"} <= set(
            await completions(s, prompt, types.Position(line=0, character=10))
        )
        config = tmp_path / "config.yaml"
        s.open(config, "provider: ")
        assert await completions(s, config, types.Position(line=0, character=10)) == list(PROVIDERS)


# ---------------------------------------------------------------- definition


async def test_definitions_of_a_ref_a_call_a_tests_entry_and_a_golden_field(tmp_path: Path) -> None:
    root = modules(tmp_path, "code-reviewer", "release-notes")
    reviewer = root / "code-reviewer"
    async with Session(tmp_path) as s:
        schema_text = (reviewer / "schema.json").read_text(encoding="utf-8")
        s.open(reviewer / "schema.json")
        (ref,) = await definition(s, reviewer / "schema.json", position_of(schema_text, '"#/$defs/extensions"', 2))
        target_line = schema_text.split("\n")[ref.range.start.line]
        assert ref.uri == uri(reviewer / "schema.json") and '"extensions"' in target_line
        prompt = root / "release-notes" / "prompt.md"
        s.open(prompt)
        (call,) = await definition(s, prompt, position_of(prompt.read_text(encoding="utf-8"), "@call:code-", 9))
        assert call.uri == uri(reviewer / "module.yaml")
        manifest_text = (reviewer / "module.yaml").read_text(encoding="utf-8")
        s.open(reviewer / "module.yaml")
        files = await definition(s, reviewer / "module.yaml", position_of(manifest_text, "tests/case2.input.json", 3))
        assert [f.uri for f in files] == [
            uri(reviewer / "tests" / n) for n in ("case2.input.json", "case2.expected.json")
        ]
        golden = reviewer / "tests" / "case1.expected.json"
        golden_text = golden.read_text(encoding="utf-8")
        s.open(golden)
        (prop,) = await definition(s, golden, position_of(golden_text, '"verdict"', 2))
        assert prop.uri == uri(reviewer / "schema.json")
        assert '"verdict"' in schema_text.split("\n")[prop.range.start.line]
        data_at = schema_text.index('"data"')
        assert prop.range.start.line > schema_text.count("\n", 0, data_at)  # data's verdict, not another


# ---------------------------------------------------------------- code actions


async def test_fixes_are_previewed_edits_that_clear_their_diagnostic(tmp_path: Path) -> None:
    root = modules(tmp_path, "code-reviewer")
    folder = root / "code-reviewer"
    on_disk = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    manifest, schema, prompt = folder / "module.yaml", folder / "schema.json", folder / "prompt.md"
    async with Session(tmp_path) as s:
        cases = [
            (manifest, "M003", manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: decison")),
            (schema, "S001", schema.read_text(encoding="utf-8").replace('"type": "string"', '"type": "strng"', 1)),
            (prompt, "V005", "Review the diff and report issues.\n"),
        ]
        explain = '"maxLength": 280'
        assert explain in schema.read_text(encoding="utf-8")
        cases.append((schema, "V003", schema.read_text(encoding="utf-8").replace(explain + ",", "", 1)))
        lines = [ln for ln in manifest.read_text(encoding="utf-8").split("\n") if not ln.startswith("tier:")]
        no_tier = "\n".join(ln for ln in lines if not ln.startswith(("enums:", "  strategy:")))
        cases.append((manifest, "M001", no_tier))
        for path, code, broken in cases:
            s.open(path, broken) if uri(path) not in s.versions else s.whole(path, broken)
            action, fixed = await fix(s, path, code)
            after = check_buffers(folder, {path: fixed})
            assert code not in [x.diagnostic.code for x in after.by_file.get(path, [])], (code, action.title)
            s.whole(path, on_disk[path].decode("utf-8"))
            if code == "V005":  # the very text cogn migrate appends
                module = load_module(folder)
                c = module.contract
                section = envelope_section(
                    OverflowSettings(
                        c.overflow_enabled.value, c.overflow_max_items.value, c.overflow_require_suggested_mapping.value
                    )
                )
                assert fixed.endswith(section)
            if code == "M001":
                assert "tier: decision" in fixed and "strategy: extensible" in fixed
            if code == "M003":
                assert "tier: decision" in fixed and action.title == "Change decison to decision"
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == on_disk  # nothing written
