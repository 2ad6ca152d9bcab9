"""Applying plans: every migrated module passes `validate --v22`; what must survive does; atomicity, backups, undo."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_migration_kit import FIXTURE_NAMES, FIXTURES, MODULES, STYLES, copy_module, legacy_modules, reencode, tree

from cogtui.core.authoring.migration import MigrationError, apply_plan, backups_for, plan_migration, undo_latest
from cogtui.core.diagnostics import Severity
from cogtui.core.files.sourcemap import split_frontmatter
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module


def migrate(root: Path, to: str = "2.2", backup: bool = True) -> None:
    plan = plan_migration(load_module(root), to)
    assert plan.ok, [str(e) for e in plan.errors]
    apply_plan(plan, backup=backup)


def v22_errors(root: Path) -> list[str]:
    module = load_module(root)
    return [
        f"{d.code} {d.location} {d.message}" for d in validate_module(module, v22=True) if d.severity is Severity.ERROR
    ]


def test_the_legacy_examples_are_found() -> None:
    assert {"legacy-summarizer", "commit-message-writer", "api-naming-reviewer"} <= set(legacy_modules())


@pytest.mark.parametrize("to", ["2.2", "2.5"])
@pytest.mark.parametrize(
    "source", [f"modules/{n}" for n in legacy_modules()] + [f"fixtures/{n}" for n in FIXTURE_NAMES]
)
def test_every_migrated_module_passes_validate_v22(source: str, to: str, tmp_path: Path, data_dir: Path) -> None:
    kind, name = source.split("/")
    root = copy_module((MODULES if kind == "modules" else FIXTURES) / name, tmp_path)
    migrate(root, to)
    assert v22_errors(root) == []
    assert load_module(root).format.value == f"v{to}"
    assert plan_migration(load_module(root), to).already_current


# ---------------------------------------------------------------- what survives


# v1-triage's result fields, as its prompt lists them and as the migrated prompt does.
V1_TRIAGE_RESULT = ("`priority`, `rationale` and `confidence`", "`priority` and `rationale`")


def test_v1_comments_key_order_unknown_fields_and_prompt_survive(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    original = (root / "MODULE.md").read_text(encoding="utf-8")
    parts = split_frontmatter(original)
    assert parts is not None
    _front, body, _ = parts
    schema_before = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    migrate(root)
    manifest = (root / "module.yaml").read_text(encoding="utf-8")
    for line in (
        "# Ticket triage, v1 format",
        "# Runtime switches",
        "x-team: support-tools     # not a spec field; must survive",
        "  network: deny           # tickets may hold personal data",
        "context: fork",
    ):
        assert line in manifest.splitlines(), line
    keys = [line.split(":")[0] for line in manifest.splitlines() if line and line[0].isalpha()]
    assert keys[:3] == ["name", "version", "responsibility"] and keys[-2:] == ["x-team", "context"]
    # The prompt survives, but for its one line asking for confidence in the result, which v2.2 puts in meta (MIG-7).
    assert (root / "prompt.md").read_text(encoding="utf-8").startswith(body.replace(*V1_TRIAGE_RESULT))
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    assert schema["x-owner"] == "support-tools" and schema["$defs"]["label"] == schema_before["$defs"]["label"]
    assert list(schema) == ["$schema", "meta", "input", "data", "error", "$defs", "x-owner"]


def test_v0_prompt_bytes_and_chinese_text_survive(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v0-zh-defs", tmp_path)
    prompt = (root / "prompt.txt").read_bytes()
    parts = split_frontmatter((root / "module.md").read_text(encoding="utf-8"))
    assert parts is not None
    readme = parts[1]
    migrate(root)
    assert (root / "prompt.md").read_bytes().startswith(prompt)
    assert (root / "README.md").read_text(encoding="utf-8") == readme
    manifest = (root / "module.yaml").read_text(encoding="utf-8")
    assert (
        "# 旧版会议纪要模块（v0 六文件布局）" in manifest
        and "owner: 数据平台组   # 未知字段，迁移时原样保留" in manifest
    )
    assert "  network: allow           # 需要读取内部 wiki" in manifest.splitlines()
    schema_text = (root / "schema.json").read_text(encoding="utf-8")
    assert '"会议记录原文"' in schema_text and "\\u" not in schema_text
    schema = json.loads(schema_text)
    assert schema["input"]["properties"]["lang"] == {"$ref": "#/$defs/lang"}  # was #/definitions/lang in its own file
    assert schema["$defs"]["action"]["properties"]["kind"] == {"$ref": "#/$defs/kind"}
    assert not (root / "examples").exists()


def test_v21_json_indentation_and_yaml_comments_survive(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v21-reviewer", tmp_path)
    before = (root / "schema.json").read_text(encoding="utf-8")
    migrate(root)
    after = (root / "schema.json").read_text(encoding="utf-8")
    assert '\t\t\t"sql": {"type": "string"}' in after.splitlines()  # tabs and inline objects kept
    untouched = [line for line in before.splitlines() if '"changes": {' in line or '"statement"' in line]
    assert len(untouched) == 3 and all(line in after.splitlines() for line in untouched)
    manifest = (root / "module.yaml").read_text(encoding="utf-8")
    assert manifest.startswith("# Cognitive Module Manifest (v2.1)\n")
    assert "  network: deny   # the migration text is all we need" in manifest
    assert "  data: ./schema.json#/data       # v2.1 name" in manifest
    assert "x-review-board: dba   # unknown field" in manifest


@pytest.mark.parametrize("style", sorted(STYLES))
def test_encodings_and_line_endings_survive(style: str, tmp_path: Path, data_dir: Path) -> None:
    bom, codec, crlf = STYLES[style]
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    for rel in ("MODULE.md", "schema.json", "examples/input.json", "examples/output.json"):
        reencode(root / rel, bom, codec, crlf)
    body_bytes = (root / "MODULE.md").read_bytes().split(("---" + "\r\n").encode(codec), 2)[2]
    migrate(root)
    assert v22_errors(root) == []
    for rel in ("module.yaml", "prompt.md", "schema.json", "tests/example.expected.json", "tests/example.input.json"):
        raw = (root / rel).read_bytes()
        assert raw.startswith(bom) if bom else not raw.startswith(b"\xef\xbb\xbf"), rel
        text = raw[len(bom) :].decode(codec)
        assert text.count("\r\n") == text.count("\n") > 0, rel
    old, new = (part.encode(codec) for part in V1_TRIAGE_RESULT)  # the one line the migration rewrites (MIG-7)
    assert (root / "prompt.md").read_bytes()[len(bom) :].startswith(body_bytes.replace(old, new))


def test_mixed_line_endings_in_the_prompt_are_carried_verbatim(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v0-zh-defs", tmp_path)
    raw = (root / "prompt.txt").read_bytes().replace(b"\n", b"\r\n", 2)
    (root / "prompt.txt").write_bytes(raw)
    migrate(root)
    assert (root / "prompt.md").read_bytes().startswith(raw)


# ---------------------------------------------------------------- atomicity, backups, undo


def test_injected_failure_rolls_everything_back(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_module(MODULES / "commit-message-writer", tmp_path)
    before = tree(root)
    plan = plan_migration(load_module(root))
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(MigrationError, match="rolled back"):
        apply_plan(plan)
    assert calls["n"] == 2
    assert tree(root) == before  # byte-identical, no temp files left
    assert backups_for("commit-message-writer") == []


def test_failed_verification_rolls_back(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cogtui.core.authoring.migration.apply as apply_mod

    root = copy_module(FIXTURES / "v0-zh-defs", tmp_path)
    before = tree(root)

    def reject(plan: object) -> None:
        raise MigrationError("would not pass validate --v22: injected")

    monkeypatch.setattr(apply_mod, "_verify", reject)
    with pytest.raises(MigrationError, match="injected"):
        apply_plan(plan_migration(load_module(root)))
    assert tree(root) == before
    assert backups_for("v0-zh-defs") == [] and not any((data_dir / "backups").rglob("*"))


def test_a_stale_plan_is_refused(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    plan = plan_migration(load_module(root))
    (root / "schema.json").write_text((root / "schema.json").read_text(encoding="utf-8") + " ", encoding="utf-8")
    before = tree(root)
    with pytest.raises(MigrationError, match="changed after the plan"):
        apply_plan(plan)
    assert tree(root) == before


def test_backup_location_and_contents(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    originals = {rel: (root / rel).read_bytes() for rel in ("MODULE.md", "schema.json", "examples/output.json")}
    result = apply_plan(plan_migration(load_module(root)))
    assert result.backup_dir is not None and result.backup_dir.parent == data_dir / "backups" / "v1-triage"
    manifest = json.loads((result.backup_dir / "backup.json").read_text(encoding="utf-8"))
    assert manifest["module_path"] == str(root.resolve()) and manifest["from"] == "v1" and manifest["to"] == "v2.2"
    assert {c["path"]: c["action"] for c in manifest["changes"]}["module.yaml"] == "create"
    for rel, data in originals.items():
        assert (result.backup_dir / "files" / rel).read_bytes() == data


def test_no_backup(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    result = apply_plan(plan_migration(load_module(root)), backup=False)
    assert result.backup_dir is None and not (data_dir / "backups").exists()


def test_undo_restores_exactly(tmp_path: Path, data_dir: Path) -> None:
    roots = [copy_module(FIXTURES / n, tmp_path) for n in FIXTURE_NAMES]
    for root in roots:
        before = tree(root)
        migrate(root, "2.5")
        assert tree(root) != before
        result = undo_latest(root.name, root)
        assert tree(root) == before, root.name
        assert result.backup_dir.name.endswith(".undone")
        with pytest.raises(MigrationError, match="no migration backup"):
            undo_latest(root.name, root)


def test_undo_keeps_edits_made_after_the_migration(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(FIXTURES / "v1-triage", tmp_path)
    before = tree(root)
    migrate(root)
    (root / "module.yaml").write_text(
        (root / "module.yaml").read_text(encoding="utf-8") + "# my edit\n", encoding="utf-8"
    )
    result = undo_latest("v1-triage", root)
    assert tree(root) == before and result.edited_since == ("module.yaml",)
    assert (result.backup_dir / "edited" / "module.yaml").read_text(encoding="utf-8").endswith("# my edit\n")


def test_applying_an_already_current_plan_does_nothing(tmp_path: Path, data_dir: Path) -> None:
    root = copy_module(MODULES / "code-reviewer", tmp_path)
    before = tree(root)
    result = apply_plan(plan_migration(load_module(root)))
    assert result.backup_dir is None and tree(root) == before
