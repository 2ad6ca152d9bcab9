"""Located diagnostics keep their line and column: the questions real diagnostics asked of the source map, on a
corpus of bundled, real-world, hostile and generated broken modules and the conformance vectors, get the
answers pinned in tests/fixtures/positions/pinned.json (recorded by tests/positions_corpus.py)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from positions_corpus import PINNED, ask, build, decode_part, encode_part

from cogtui.core.files.sourcemap import SourceFile, parse_json, read_text
from cogtui.core.module.loader import NotAModule, load_module

Pins = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("positions")
    return root, build(root)


@pytest.fixture(scope="module")
def pinned() -> Pins:
    found: Pins = json.loads(PINNED.read_text(encoding="utf-8"))
    return found


def _sources(root: Path, folders: list[Path]) -> dict[str, SourceFile]:
    """Every module file as the loader parsed it, by its name under `root`."""
    sources: dict[str, SourceFile] = {}
    for folder in folders:
        try:
            module = load_module(folder)
        except NotAModule:
            continue
        for path, src in module.sources.items():
            sources[Path(path).resolve().relative_to(root.resolve()).as_posix()] = src
    return sources


def _source(sources: dict[str, SourceFile], root: Path, name: str) -> SourceFile:
    """A module file as the loader parsed it, or a JSON file the `$ref` walk (or `cogn check`) reads itself."""
    return sources.get(name) or parse_json(read_text(root / name), root / name)


def _digest(src: SourceFile) -> str:
    import hashlib

    return hashlib.sha256(src.text.encode("utf-8", "surrogatepass")).hexdigest()


def test_the_corpus_is_what_was_pinned(corpus: tuple[Path, list[Path]], pinned: Pins) -> None:
    """Each pinned file is still the text its answers were recorded from (else: record the pins again)."""
    root, folders = corpus
    sources = _sources(root, folders)
    changed = []
    for name, entry in pinned.items():
        src = _source(sources, root, name)
        if (src.kind, src.line_offset, _digest(src)) != (entry["kind"], entry["line_offset"], entry["sha256"]):
            changed.append(name)
    assert not changed, f"regenerate with `python tests/positions_corpus.py --write`: {changed[:5]}"
    assert sum(len(entry["located"]) for entry in pinned.values()) > 3000


def test_every_pinned_question_gets_its_answer(corpus: tuple[Path, list[Path]], pinned: Pins) -> None:
    root, folders = corpus
    sources = _sources(root, folders)
    moved = []
    for name, entry in pinned.items():
        src = _source(sources, root, name)
        for line, col, key, *parts in entry["located"]:
            where = tuple(decode_part(p) for p in parts)
            found = src.locate(where, key=bool(key))
            if found != (line, col):
                moved.append(f"{name} {where} key={bool(key)}: {found}, pinned {(line, col)}")
    assert not moved, f"{len(moved)} positions moved:\n" + "\n".join(moved[:20])


def test_validation_asks_with_the_pinned_answers(corpus: tuple[Path, list[Path]], pinned: Pins) -> None:
    """End to end: validating the corpus again, each question it asks that is pinned gets the pinned answer."""
    root, folders = corpus
    answers: dict[str, dict[tuple[Any, ...], tuple[int, int]]] = defaultdict(dict)
    for name, entry in pinned.items():
        for line, col, key, *parts in entry["located"]:
            answers[name][(bool(key), *(json.dumps(p) for p in parts))] = (line, col)
    checked = 0
    moved = []
    for src, parts, key, found in ask(root, folders):
        name = Path(src.path).resolve().relative_to(root.resolve()).as_posix()

        want = answers.get(name, {}).get((key, *(json.dumps(encode_part(p)) for p in parts)))
        if want is not None:
            checked += 1
            if want != found:
                moved.append(f"{name} {parts} key={key}: {found}, pinned {want}")
    assert not moved, "\n".join(moved[:20])
    assert checked > 3000
