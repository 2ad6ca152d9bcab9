"""Where a diagnostic code's documentation is: its row of docs/diagnostics.md, whose anchor is the code in lower
case (`<a id="m001"></a>`, tested for every code of the catalogue).

cogtui's docs have no public web home, so the base is, in order (D281): the client's `docsUrl` initialization
option, the environment's COGTUI_DOCS_URL, else the docs folder of the source tree cogtui runs from (a `file:` URI).
An installed wheel has no docs folder: without a configured base its diagnostics carry no link (the hover on a
code still explains it, from data the package ships). The language server's `codeDescription` and SARIF's
`helpUri` both come from here.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path


@cache
def source_docs() -> str | None:
    """The `file:` URI of the source tree's docs folder, when cogtui runs from one."""
    docs = Path(__file__).resolve().parents[3] / "docs"
    return docs.as_uri() if (docs / "diagnostics.md").is_file() else None


def docs_base(configured: str | None = None) -> str | None:
    return configured or os.environ.get("COGTUI_DOCS_URL") or source_docs()


def code_href(code: str, configured: str | None = None) -> str | None:
    base = docs_base(configured)
    return f"{base.rstrip('/')}/diagnostics.md#{code.lower()}" if base else None
