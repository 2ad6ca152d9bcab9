"""The docs' links lead somewhere: every relative link in README.md, the other top-level docs and docs/*.md is
a file or folder of the repository, every `#anchor` is a heading of the file it names, and a link that is not
relative goes to a public web address (never a path outside the checkout, as `../shared/spec` once did)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("README.md", "AGENTS.md", "CHANGELOG.md", "modules/README.md")
DOCS = sorted([*(ROOT / name for name in TOP_LEVEL), *(ROOT / "docs").glob("*.md")])
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I)
PUBLIC_SCHEMES = ("https", "http", "mailto")
PRIVATE_HOSTS = re.compile(r"^(localhost|127\.|0\.0\.0\.0|\[::1\]|.*\.local$|.*\.internal$)", re.I)


def prose(text: str) -> str:
    """The text without its code blocks and code spans: a link shown as code is an example, not a link."""
    return CODE_SPAN.sub("code", FENCE.sub("", text))


def links(text: str) -> list[str]:
    body = prose(text)
    return [m.group(1) for m in LINK.finditer(body)] + [m.group(1) for m in HTML_LINK.finditer(body)]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors by its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file, a repeated one numbered as GitHub numbers it (-1, -2...)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def problem(doc: Path, target: str) -> str | None:
    """What is wrong with one link of `doc`, or None."""
    parts = urlsplit(target)
    if parts.scheme:
        if parts.scheme not in PUBLIC_SCHEMES:
            return f"{target}: a {parts.scheme}: link leaves the repository and is no public address"
        if parts.scheme != "mailto" and (not parts.hostname or PRIVATE_HOSTS.match(parts.hostname)):
            return f"{target}: not a public address"
        return None
    if target.startswith("/"):
        return f"{target}: an absolute path leads outside the repository"
    path = unquote(parts.path)
    file = (doc.parent / path).resolve() if path else doc
    if not file.is_relative_to(ROOT):
        return f"{target}: leads outside the repository"
    if not file.exists():
        return f"{target}: no such file in the repository"
    if parts.fragment and file.suffix == ".md" and unquote(parts.fragment) not in anchors(file):
        return f"{target}: no heading of {file.relative_to(ROOT)} has the anchor #{parts.fragment}"
    return None


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_the_repository_or_a_public_address(doc: Path) -> None:
    assert doc.exists(), f"{doc.relative_to(ROOT)} is missing"
    found = links(doc.read_text(encoding="utf-8"))
    problems = [p for p in (problem(doc, target) for target in found) if p]
    assert not problems, f"{doc.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


def test_the_readme_is_a_front_page() -> None:
    """A reader's first page: short, the detail in the guides, and the two commands a developer needs."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150, f"README.md has {len(text.splitlines())} lines: move detail to docs/"
    assert "make run" in text and "make test" in text


def test_the_checker_finds_what_it_must() -> None:
    """The rules above on a made-up page: each kind of bad link is found, each good one passes."""
    doc = ROOT / "docs" / "cli.md"
    assert problem(doc, "../../shared/spec/README.md") is not None  # outside the checkout
    assert problem(doc, "missing.md") is not None
    assert problem(doc, "configuration.md#no-such-heading") is not None
    assert problem(doc, "file:///etc/passwd") is not None
    assert problem(doc, "http://localhost:8000/modules") is not None
    assert problem(doc, "configuration.md#the-search-path") is None
    assert problem(doc, "#exit-status") is None
    assert problem(doc, "https://github.com/Cognary/cognitive") is None
    assert slug("`cogn serve`: the HTTP API") == "cogn-serve-the-http-api"
    assert slug("3. When the database is away: the outbox") == "3-when-the-database-is-away-the-outbox"
    assert links("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n![d](e.svg)") == ["x.md", "e.svg"]
