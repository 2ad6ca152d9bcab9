"""`cogn check --kind input` refuses the media URLs the runtime refuses, as far as that can be told offline (SEC-4).

The runtime judges every address a host resolves to (run/media_url.py); the checker, which does no
network or DNS, applies the same address rules (rules/media_address.py) to what needs no lookup: a
literal address in any spelling a resolver accepts, a `localhost` name, a cloud metadata name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from modkit import clean_v22, make_module, mapping_in, run_cogn

from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import check_document
from cogtui.core.run.media_fetch import MediaError, resolve_media

REFUSED = [
    "http://127.0.0.1/a.png",
    "http://10.1.2.3/a.png",
    "https://192.168.1.20:8443/a.png",
    "http://[::1]/a.png",
    "http://[::ffff:192.168.0.1]/a.png",
    "http://169.254.169.254/latest/meta-data",
    "http://metadata.google.internal/x.png",
    "http://localhost:8080/a.png",
    "http://media.localhost/a.png",
    "http://127.1/a.png",
    "http://0x7f.0.0.1/a.png",
    "http://2130706433/a.png",
    "http://100.100.100.200/a.png",
]
PUBLIC = ["https://93.184.216.34/a.png", "https://cdn.example.com/a.png", "https://[2606:4700::1111]/a.png"]


def _input(url: str) -> dict[str, Any]:
    return {"text": "look", "image": {"type": "url", "url": url}}


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    files = clean_v22("looker")
    mapping_in(files, "module.yaml")["modalities"] = {"input": ["text", "image"], "output": ["text"]}
    mapping_in(files, "module.yaml")["policies"] = {"network": "allow"}
    mapping_in(files, "schema.json")["input"]["properties"]["image"] = {"type": "object"}
    return load_module(make_module(tmp_path_factory.mktemp("m"), files, "looker"))


@pytest.mark.parametrize("url", REFUSED)
async def test_the_checker_refuses_what_the_runtime_refuses(module: Any, url: str) -> None:
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "url", "url": url}, ("image",), module)  # the runtime, default policy
    assert info.value.code == "E1012"
    verdict = check_document(_input(url), "input", module)
    assert [(v.code, v.path) for v in verdict.violations] == [("E1012", ("image", "url"))], verdict.violations
    assert "address" in verdict.violations[0].message or "metadata" in verdict.violations[0].message


@pytest.mark.parametrize("url", PUBLIC)
def test_public_and_unresolved_hosts_pass_the_checker(module: Any, url: str) -> None:
    assert check_document(_input(url), "input", module).valid


def test_cogn_check_kind_input(tmp_path: Path, module: Any) -> None:
    doc = tmp_path / "in.json"
    doc.write_text(json.dumps(_input("http://10.0.0.7/cat.png")), encoding="utf-8")
    proc = run_cogn(["check", str(doc), "--kind", "input", "--json"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "E1012" in proc.stdout and "private" in proc.stdout
