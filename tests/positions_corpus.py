"""A corpus of real diagnostics and the positions they were located at, to pin them (issue 31 item 1).

Every located diagnostic asks its file's source map for a position (`SourceFile.locate(parts, key)`). This
module builds a corpus of module folders (the bundled modules, the real-world ones, the hostile ones of the TUI
tests, the public conformance vectors, and broken modules generated from all of these by seeded mutations),
validates each one while recording every question put to `locate` and its answer, and writes them down:
`tests/fixtures/positions/pinned.json`. `tests/test_pinned_positions.py` asks the same questions of the same
files and expects the same answers, so a new locator cannot move a position.

    .venv/bin/python tests/positions_corpus.py --write    # record the pins again (only to add questions)

What is pinned is each question and its answer, not the list of diagnostics: a change to which diagnostics
a module gets or to their wording leaves the pins as they are. A parse error (P001, P002) is located by its
parser, never by the source map, so it is not among them.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE / "tui"))  # hostile_world, and the tuikit it imports
PINNED = HERE / "fixtures" / "positions" / "pinned.json"
BUNDLED = REPO / "modules"
VARIANTS = 5  # broken variants of each module
SAMPLED = 8  # paths of each parsed file asked besides the diagnostics' (each as a value, a key, and a child)
REALWORLD = HERE / "realworld"


def conformance_vectors() -> Path:
    """The public envelope vectors: beside the repository (a checkout next to `shared/`) or one level up (a
    worktree under `wt/`)."""
    for base in (REPO.parent, REPO.parent.parent):
        folder = base / "shared" / "conformance" / "envelope-vectors"
        if folder.is_dir():
            return folder
    raise AssertionError(f"the conformance vectors were not found beside {REPO}")


# ---------------------------------------------------------------- the corpus


def build(root: Path) -> list[Path]:
    """Write the corpus under `root`; the module folders (and the vectors' folder) in a stable order."""
    folders: list[Path] = []
    for group, source in (("bundled", BUNDLED), ("realworld", REALWORLD)):
        for module in sorted(p for p in source.iterdir() if p.is_dir()):
            target = root / group / module.name
            shutil.copytree(module, target)
            folders.append(target)
    from hostile_world import hostile_legacy, hostile_module

    (root / "hostile").mkdir()
    folders += [hostile_module(root / "hostile"), hostile_legacy(root / "hostile")]
    originals = list(folders)
    for index, module in enumerate(originals):
        for variant in range(VARIANTS):
            folders.append(_broken(module, root / "broken" / f"{index:02d}-{variant}" / module.name, index, variant))
    folders.append(_many_stale_items(root / "broken" / "many" / "api-naming-reviewer"))
    shutil.copytree(conformance_vectors(), root / "vectors")
    return folders


def _broken(source: Path, target: Path, index: int, variant: int) -> Path:
    """`source` with one to four seeded mutations in its JSON and YAML files."""
    shutil.copytree(source, target)
    rng = random.Random(f"{source.name}/{index}/{variant}")
    files = sorted(p for p in target.rglob("*") if p.is_file() and p.suffix in (".json", ".yaml", ".yml", ".md"))
    for path in rng.sample(files, min(len(files), rng.randint(1, 4))):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            text = _mutate_json(text, rng)
        elif path.suffix in (".yaml", ".yml") or text.startswith("---"):
            text = _mutate_yaml(text, rng)
        path.write_text(text, encoding="utf-8")
    return target


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*at, i))


def _mutate_json(text: str, rng: random.Random) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    for _ in range(rng.randint(1, 6)):
        paths = [p for p in _paths(value) if p]
        if not paths:
            break
        where = rng.choice(paths)
        parent = value
        for part in where[:-1]:
            parent = parent[part]
        old = parent[where[-1]]
        change = rng.choice(("delete", "type", "type", "rename", "extra"))
        if change == "delete":
            del parent[where[-1]]
        elif change == "type":
            parent[where[-1]] = {str: 7, int: "seven", float: [0.5], bool: "yes", list: {}, dict: []}.get(type(old))
        elif change == "rename" and isinstance(parent, dict):
            parent[f"{where[-1]}_x"] = parent.pop(where[-1])
        elif isinstance(old, dict):
            old["unexpected_extra"] = {"nested": [1, "two"]}
    style = rng.choice(({"indent": 2}, {"indent": None}, {"indent": "\t"}, {"indent": 4, "separators": (",", ": ")}))
    return json.dumps(value, ensure_ascii=rng.random() < 0.5, **style) + "\n"


_YAML_VALUE = re.compile(r"^(\s*(?:- )?[A-Za-z_][\w-]*:) (.+)$")


def _mutate_yaml(text: str, rng: random.Random) -> str:
    """Line edits: a value replaced, a line dropped, a key renamed (text in, text out, no dumper's style)."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        valued = [n for n, line in enumerate(lines) if _YAML_VALUE.match(line)]
        if not valued:
            break
        n = rng.choice(valued)
        match = _YAML_VALUE.match(lines[n])
        assert match is not None
        change = rng.choice(("value", "value", "drop", "rename"))
        if change == "value":
            lines[n] = f"{match.group(1)} {rng.choice(('[1, 2]', 'yes', '~', '3.5', 'E1234', 'maybe', '{a: 1}'))}"
        elif change == "drop":
            del lines[n]
        else:
            lines[n] = re.sub(r"([A-Za-z_][\w-]*):", r"\1_renamed:", lines[n], count=1)
    return "\n".join(lines)


def _many_stale_items(target: Path, count: int = 60) -> Path:
    """api-naming-reviewer whose example answer lists `count` changes, each without its required `risk`."""
    sys.path.insert(0, str(REPO / "bench"))
    from genmodules import stale_example

    return stale_example(target, count)


# ---------------------------------------------------------------- questions and answers


def encode_part(part: Any) -> Any:
    """A path part as JSON that keeps its type: a string or an int as itself, a YAML key that is a bool, null or
    a float tagged (`{"b": true}`)."""
    if isinstance(part, bool):
        return {"b": part}
    if isinstance(part, (str, int)):
        return part
    if part is None:
        return {"n": None}
    if isinstance(part, float):
        return {"f": part}
    return {"r": repr(part)}  # a date or a timestamp key: kept as text, never asked again


def decode_part(encoded: Any) -> Any:
    if isinstance(encoded, dict):
        ((_tag, value),) = encoded.items()
        return value
    return encoded


@contextmanager
def recording(sink: list[tuple[Any, tuple[Any, ...], bool, tuple[int, int]]]) -> Iterator[None]:
    """Every `SourceFile.locate` call inside the block, with its answer, appended to `sink`."""
    from cogtui.core.files.sourcemap import SourceFile

    real: Callable[..., tuple[int, int]] = SourceFile.locate

    def locate(self: SourceFile, parts: Any = (), key: bool = False) -> tuple[int, int]:
        found = real(self, parts, key)
        sink.append((self, tuple(parts), key, found))
        return found

    SourceFile.locate = locate  # type: ignore[method-assign]  # a recorder wrapped round the real method
    try:
        yield
    finally:
        SourceFile.locate = real  # type: ignore[method-assign]


def ask(root: Path, folders: list[Path]) -> list[tuple[Any, tuple[Any, ...], bool, tuple[int, int]]]:
    """Validate every module (default and --v22 --strict) and check every vector, recording each question."""
    from cogtui.core.files.sourcemap import load_file
    from cogtui.core.module.loader import NotAModule, load_module
    from cogtui.core.rules.document_checker import check_document
    from cogtui.core.rules.validate_module import validate_module

    asked: list[tuple[Any, tuple[Any, ...], bool, tuple[int, int]]] = []
    with recording(asked):
        for folder in folders:
            try:
                module = load_module(folder)
            except NotAModule:
                continue
            validate_module(module)
            validate_module(module, v22=True, strict=True)
            if "broken" not in folder.parts:  # their diagnostics' questions are enough
                for src in list(module.sources.values()):
                    _sampled(src, root)
        for vector in sorted((root / "vectors").rglob("*.json")):
            src = load_file(vector, "json")
            for violation in check_document(src.value["envelope"], "envelope").violations:
                for key in (False, True):
                    src.locate(("envelope", *violation.path), key)
    return asked


def _sampled(src: Any, root: Path) -> None:
    """Some paths of the file's value asked too: each as a value, as a key, and with a child it lacks."""
    if src.kind == "text":
        return
    rng = random.Random(Path(src.path).resolve().relative_to(root.resolve()).as_posix())
    paths = list(_paths(src.value))
    for parts in rng.sample(paths, min(len(paths), SAMPLED)):
        src.locate(parts)
        src.locate(parts, True)
        src.locate((*parts, "no-such-key", 0))
        src.locate((*parts, 10_000))


def pins(root: Path, asked: list[tuple[Any, tuple[Any, ...], bool, tuple[int, int]]]) -> dict[str, Any]:
    """The questions by file (relative to `root`), each file with its kind and its text's digest; a question and
    its answer are `[line, column, key, part, ...]`."""
    files: dict[str, dict[str, Any]] = {}
    for src, parts, key, (line, col) in asked:
        if any(isinstance(encode_part(p), dict) and "r" in encode_part(p) for p in parts):
            continue
        name = Path(src.path).resolve().relative_to(root.resolve()).as_posix()
        digest = hashlib.sha256(src.text.encode("utf-8", "surrogatepass")).hexdigest()
        entry = files.setdefault(
            name, {"kind": src.kind, "line_offset": src.line_offset, "sha256": digest, "located": []}
        )
        assert (entry["kind"], entry["sha256"]) == (src.kind, digest), f"{name} was parsed two ways"
        answer = [line, col, int(key), *(encode_part(p) for p in parts)]
        if answer not in entry["located"]:
            entry["located"].append(answer)
    return {name: files[name] for name in sorted(files)}


def dump(found: dict[str, Any]) -> str:
    """The pins as JSON with one question per line (a diff shows which answers moved)."""
    out = ["{"]
    for n, (name, entry) in enumerate(found.items()):
        head = {k: v for k, v in entry.items() if k != "located"}
        out.append(f"{json.dumps(name, ensure_ascii=False)}: {json.dumps(head, ensure_ascii=False)[:-1]}, ")
        out[-1] += '"located": ['
        answers = sorted(entry["located"], key=lambda a: json.dumps(a[2:], ensure_ascii=False))
        for m, answer in enumerate(answers):
            out.append(json.dumps(answer, ensure_ascii=False) + ("," if m < len(answers) - 1 else ""))
        out.append("]}" + ("," if n < len(found) - 1 else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    import tempfile

    if argv != ["--write"]:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        found = pins(root, ask(root, build(root)))
    PINNED.parent.mkdir(parents=True, exist_ok=True)
    PINNED.write_text(dump(found), encoding="utf-8")
    questions = sum(len(f["located"]) for f in found.values())
    print(f"{PINNED.relative_to(REPO)}: {questions} questions in {len(found)} files")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main(sys.argv[1:]))
