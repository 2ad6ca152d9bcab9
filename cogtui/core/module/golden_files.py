"""Golden tests and examples: which files pair up, and their parsed contents.

Golden tests come from module.yaml `tests:` (entries `in -> expected`, or
mappings with `input` and `expected`) and from tests/*.input.json paired with
tests/*.expected.json. Examples are examples/input.json + output.json and
examples/NAME.input.json + NAME.output.json.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cogtui.core.diagnostics import diag
from cogtui.core.files.module_folder import is_dir, is_file, lexists
from cogtui.core.module.model import UNPARSED, Example, GoldenTest

if TYPE_CHECKING:
    from cogtui.core.module.reading import ReadContext


def _json(loader: ReadContext, path: Path | None) -> Any:
    if path is None or not lexists(path):  # a FIFO or an outside link is read (and refused) by the loader
        return UNPARSED
    src = loader.parse(path, "json")
    return UNPARSED if src is None else src.value


def _parse_entry(entry: Any) -> tuple[str, str] | None:
    if isinstance(entry, str) and "->" in entry:
        left, _, right = entry.partition("->")
        if left.strip() and right.strip():
            return left.strip(), right.strip()
    if isinstance(entry, dict):
        inp, exp = entry.get("input"), entry.get("expected", entry.get("output"))
        if isinstance(inp, str) and isinstance(exp, str):
            return inp, exp
    return None


def _inside(root: Path, real_root: Path, rel: str) -> tuple[Path, Path] | None:
    """(the path, its resolved form) of `rel` under `root` (whose resolved form is `real_root`); None outside it."""
    try:
        candidate = (root / rel).resolve()
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop: the confined reader reports it
        return root / rel, root / rel
    try:
        candidate.relative_to(real_root)
    except ValueError:
        return None
    return root / rel, candidate


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
        return path


def test_name(input_path: Path) -> str:
    name = input_path.name
    for suffix in (".input.json", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def collect_tests(loader: ReadContext, manifest: dict[str, Any]) -> tuple[tuple[GoldenTest, ...], tuple[str, ...]]:
    root = loader.root
    manifest_path = root / "module.yaml"
    src = loader.sources.get(manifest_path)
    declared_raw = manifest.get("tests")
    declared_text: list[str] = []
    tests: list[GoldenTest] = []
    seen: set[Path] = set()
    declared_inputs: set[Path] = set()  # as written: the folder scan below skips them without resolving
    real_root = _resolved(root)  # once for every test path, not once per path
    if isinstance(declared_raw, list):
        for i, entry in enumerate(declared_raw):
            line, col = src.locate(("tests", i)) if src else (1, 1)
            pair = _parse_entry(entry)
            if pair is None:
                loader.diagnostics.append(
                    diag(
                        "T006",
                        f"tests[{i}] is not of the form 'input -> expected'",
                        manifest_path,
                        line,
                        col,
                        hint="Write e.g. tests/case1.input.json -> tests/case1.expected.json",
                    )
                )
                continue
            declared_text.append(f"{pair[0]} -> {pair[1]}")
            paths: list[Path] = []
            resolved: list[Path] = []
            for rel in pair:
                found = _inside(root, real_root, rel)
                if found is None:
                    loader.diagnostics.append(
                        diag(
                            "T005",
                            f"test path {rel!r} escapes the module folder",
                            manifest_path,
                            line,
                            col,
                            hint="Keep golden tests inside the module, e.g. under tests/.",
                        )
                    )
                    break
                if not is_file(found[0]) and not lexists(found[0]):  # a FIFO or a device is F002, said where read
                    loader.diagnostics.append(diag("T004", f"test file {rel} does not exist", manifest_path, line, col))
                paths.append(found[0])
                resolved.append(found[1])
            if len(paths) != 2:
                continue
            seen.add(resolved[0])
            declared_inputs.add(paths[0])
            tests.append(
                GoldenTest(
                    test_name(paths[0]),
                    paths[0],
                    paths[1],
                    _json(loader, paths[0]),
                    _json(loader, paths[1]),
                    declared=True,
                )
            )
    elif declared_raw is not None:
        line, col = src.locate(("tests",)) if src else (1, 1)
        loader.diagnostics.append(diag("M007", "tests must be a list", manifest_path, line, col))

    tests_dir = root / "tests"
    if "tests" in loader.names and is_dir(tests_dir):
        try:
            names = sorted(p.name for p in tests_dir.iterdir())
        except OSError:
            names = []
        for name in names:
            if not name.endswith(".input.json"):
                continue
            inp = tests_dir / name
            if inp in declared_inputs or _resolved(inp) in seen:  # the same path, or the same file by a link
                continue
            exp = tests_dir / (name[: -len(".input.json")] + ".expected.json")
            # Any entry by that name pairs (a FIFO, a link outside or to nothing): reading it says what it is.
            if not lexists(exp):
                loader.diagnostics.append(
                    diag(
                        "T008",
                        f"{name} has no matching .expected.json",
                        inp,
                        1,
                        1,
                        hint=f"Create {exp.name} with the envelope this input should produce.",
                    )
                )
                tests.append(GoldenTest(test_name(inp), inp, None, _json(loader, inp), UNPARSED))
                continue
            tests.append(GoldenTest(test_name(inp), inp, exp, _json(loader, inp), _json(loader, exp)))
    return tuple(tests), tuple(declared_text)


def collect_examples(loader: ReadContext) -> tuple[Example, ...]:
    folder = loader.root / "examples"
    if "examples" not in loader.names or not is_dir(folder):
        return ()
    try:
        names = set(p.name for p in folder.iterdir())
    except OSError:
        return ()
    examples: list[Example] = []
    if "input.json" in names or "output.json" in names:
        inp = folder / "input.json" if "input.json" in names else None
        out = folder / "output.json" if "output.json" in names else None
        examples.append(Example("example", inp, out, _json(loader, inp), _json(loader, out)))
    for name in sorted(names):
        if name.endswith(".input.json"):
            stem = name[: -len(".input.json")]
            out_name = next((f"{stem}{s}" for s in (".output.json", ".expected.json") if f"{stem}{s}" in names), None)
            inp = folder / name
            out = folder / out_name if out_name else None
            examples.append(Example(stem, inp, out, _json(loader, inp), _json(loader, out)))
    return tuple(examples)
