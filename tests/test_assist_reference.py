"""What the language server says of each diagnostic code and manifest field comes from the docs, and every code's
link resolves (issue 33: every diagnostic code's hover text and documentation link resolve)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest

from cogtui.core.assist.links import code_href
from cogtui.core.assist.reference import code_help, field_help, reference
from cogtui.core.diagnostics import CATALOGUE
from tools.assist_reference import rendered

ROOT = Path(__file__).resolve().parents[1]
DIAGNOSTICS_MD = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")


def test_the_shipped_reference_is_the_docs_as_they_are() -> None:
    shipped = (ROOT / "cogtui" / "core" / "assist" / "reference.json").read_text(encoding="utf-8")
    assert shipped == rendered(), "cogtui/core/assist/reference.json is stale: python -m tools.assist_reference"


def test_the_docs_document_exactly_the_catalogue() -> None:
    assert set(reference()["codes"]) == set(CATALOGUE)


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_has_its_hover_text_and_a_link_that_resolves(code: str) -> None:
    help_ = code_help(code)
    assert help_ is not None, f"docs/diagnostics.md has no row for {code} with its anchor <a id=...>"
    summary = (
        CATALOGUE[code].summary.replace("`", "").split(" (")[0]
    )  # M021's row says the parenthesis in its own words
    assert help_.meaning.replace("`", "").startswith(summary), "the docs' row begins with the catalogue's summary"
    assert help_.severity == CATALOGUE[code].severity.value
    href = code_href(code)
    assert href is not None and href.startswith("file:")
    url = urlparse(href)
    target = Path(url2pathname(url.path))
    assert target == ROOT / "docs" / "diagnostics.md"
    assert f'<a id="{url.fragment}"></a>`{code}`' in target.read_text(encoding="utf-8")


def test_a_configured_docs_url_is_the_links_base(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (
        code_href("M001", "https://example.org/cogtui/docs/") == "https://example.org/cogtui/docs/diagnostics.md#m001"
    )
    monkeypatch.setenv("COGTUI_DOCS_URL", "https://docs.example/x")
    assert code_href("S002") == "https://docs.example/x/diagnostics.md#s002"


def test_anchors_are_unique() -> None:
    anchors = re.findall(r'<a id="([^"]+)"></a>', DIAGNOSTICS_MD)
    assert len(anchors) == len(set(anchors)) == len(CATALOGUE)


def test_every_field_row_reaches_its_fields() -> None:
    helped = field_help("overflow.max_items")
    assert helped is not None and "E3004" in helped.what
    assert field_help("policies.side_effects") is not None  # a bare name after a dotted one, in its section
    assert field_help("io.output") is not None
    assert field_help("no.such") is None
