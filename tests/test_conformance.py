"""The public envelope conformance vectors: each is judged as its `$test.expects` says, in the core and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_json import checked
from modkit import run_cogn

from cogtui.core.rules.document_checker import check_document

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "envelope-vectors"
FILES = sorted(p.relative_to(VECTORS).as_posix() for p in VECTORS.rglob("*") if p.is_file()) if VECTORS.is_dir() else []
# A missing folder must fail, not skip: parametrize over a placeholder that the test rejects.
PARAMS = FILES or ["<envelope-vectors folder missing>"]


def load_vector(name: str) -> dict[str, Any]:
    path = VECTORS / name
    assert path.is_file(), f"conformance vectors not found at {VECTORS}"
    vector = json.loads(path.read_text(encoding="utf-8"))
    assert set(vector) == {"$test", "envelope"}, name
    assert vector["$test"]["expects"] in ("accept", "reject"), name
    return vector


def test_vectors_are_present() -> None:
    assert VECTORS.is_dir(), f"conformance vectors not found at {VECTORS}"
    assert any(f.startswith("valid/") for f in FILES) and any(f.startswith("invalid/") for f in FILES)
    assert all(f.endswith(".json") for f in FILES), FILES


@pytest.mark.parametrize("name", PARAMS)
def test_vector_folder_agrees_with_expects(name: str) -> None:
    vector = load_vector(name)
    expects = vector["$test"]["expects"]
    assert name.startswith("valid/" if expects == "accept" else "invalid/")


@pytest.mark.parametrize("name", PARAMS)
def test_vector_core(name: str) -> None:
    vector = load_vector(name)
    spec = vector["$test"]
    result = check_document(vector["envelope"], "envelope")
    assert check_document(vector["envelope"]).kind == "envelope"  # detected without --kind too
    if spec["expects"] == "accept":
        assert result.valid, [(v.rule, v.code, v.message) for v in result.violations]
    else:
        assert not result.valid
        assert set(spec.get("error_codes", [])) <= set(result.codes), (spec.get("error_codes"), result.codes)


@pytest.mark.parametrize("name", PARAMS)
def test_vector_cli(name: str, tmp_path: Path) -> None:
    vector = load_vector(name)
    spec = vector["$test"]
    doc = tmp_path / "envelope.json"
    doc.write_text(json.dumps(vector["envelope"], ensure_ascii=False), encoding="utf-8")
    proc = run_cogn(["check", "--json", str(doc)], cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    expected_rc = 0 if spec["expects"] == "accept" else 1
    assert proc.returncode == expected_rc, proc.stdout + proc.stderr
    out = checked(proc.stdout)
    assert out["kind"] == "envelope" and out["valid"] is (expected_rc == 0)
    assert set(spec.get("error_codes", [])) <= set(out["codes"])


@pytest.mark.parametrize("name", PARAMS)
def test_vector_file_cli(name: str, tmp_path: Path) -> None:
    """`cogn check VECTOR.json` judges the vector's envelope (detected, or with --kind envelope) and says whether
    the verdict is the one its `$test` expects (ENV-17)."""
    spec = load_vector(name)["$test"]
    expected_rc = 0 if spec["expects"] == "accept" else 1
    for kind in ([], ["--kind", "envelope"]):
        proc = run_cogn(["check", "--json", *kind, str(VECTORS / name)], cwd=tmp_path)
        assert proc.returncode == expected_rc, proc.stdout + proc.stderr
        out = checked(proc.stdout)
        assert out["kind"] == "envelope" and out["valid"] is (expected_rc == 0)
        assert out["vector"] == {
            "name": spec["name"],
            "expects": spec["expects"],
            "error_codes": spec.get("error_codes", []),
            "agrees": True,
        }
    proc = run_cogn(["check", str(VECTORS / name)], cwd=tmp_path)
    assert proc.returncode == expected_rc
    verdict = "✓ valid envelope" if expected_rc == 0 else "✗ invalid envelope"
    assert verdict in proc.stdout and f"conformance vector {spec['name']} expects" in proc.stdout
    assert "the verdict agrees" in proc.stdout
