"""A module's schemas: where each part lives, and validators that resolve $ref safely.

Each schema file of a module is registered as a resource under its file URI
(and its `$id`, when it has one). A part (input, data, meta, error) is
validated through `{"$ref": "<file-uri>#/<part>"}`, so a `$ref` such as
`#/$defs/extensions` resolves against the document root from any sub-schema.
References to other files resolve only inside the module folder; remote
references are never fetched.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from cogtui.core.diagnostics import diag
from cogtui.core.files.confined import safe_resolve
from cogtui.core.files.module_folder import lexists
from cogtui.core.module.memo import memo
from cogtui.core.module.model import Schemas
from cogtui.core.module.schema_engine import (
    CompiledSchema,
    SchemaError,
    SchemaUnusable,
    compile_schema,
    draft_label,
    draft_of,
    metaschema_errors,
)

if TYPE_CHECKING:
    from cogtui.core.module.model import Module
    from cogtui.core.module.reading import ReadContext

PARTS = ("input", "data", "meta", "error")

# The schema cannot be used (an unresolvable $ref, an invalid pattern): callers catch this.
RefError = SchemaUnusable

__all__ = [
    "PARTS",
    "RefError",
    "SchemaError",
    "SchemaUnusable",
    "draft_label",
    "draft_of",
    "load_schemas",
    "metaschema_errors",
    "schemas_for",
]


def local_file_of(uri: str) -> Path | None:
    """The path a `file:` URI of this host names, or None for a remote one (another scheme, another host's
    file). The run (`_retrieve`) and `validate` (rules/ref_checks.py) read a `$ref` by this one rule (FMT-3)."""
    parsed = urlparse(uri)
    if parsed.scheme.lower() != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


def file_uri(path: Path) -> str:
    return path.absolute().as_uri()


# ---------------------------------------------------------------- loading


def load_schemas(
    root: Path, schema_path: Path | None, io: dict[str, Any], loader: ReadContext, v0_names: set[str] | None = None
) -> Schemas:
    parts: dict[str, Any] = {}
    locations: dict[str, tuple[Path, tuple[str | int, ...]]] = {}
    doc: dict[str, Any] = {}
    data_key: str | None = None
    unreadable = False
    if v0_names is not None:
        for part, name in (("input", "input.schema.json"), ("data", "output.schema.json")):
            if name in v0_names:
                src = loader.parse(root / name, "json")
                value = loader.mapping(src, name)
                if value:
                    parts[part] = value
                    locations[part] = (root / name, ())
        data_key = "output" if "data" in parts else None
        return Schemas(parts.get("input"), parts.get("data"), None, None, {}, data_key, locations)

    if schema_path is not None:
        src = loader.parse(schema_path, "json")
        unreadable = src is None or not isinstance(src.value, dict)  # said once, by its P or F diagnostic (FMT-17)
        if src is not None and src.value is None:  # `null`: no contract at all, not an empty one
            loader.diagnostics.append(diag("P004", "schema.json must be a mapping, found null", schema_path, 1, 1))
        doc = loader.mapping(src, "schema.json")
    real: tuple[Path, Path | None] | None = None  # (folder, schema.json) resolved once for every io reference
    for part in PARTS:
        ref = io.get(part) if part != "data" else io.get("data", io.get("output"))
        if isinstance(ref, str) and ref.strip():
            io_key = part if part != "data" or "data" in io else "output"
            real = real or (root.resolve(), safe_resolve(schema_path) if schema_path is not None else None)
            resolved = _resolve_io(root, real, ref, schema_path, doc, loader, io_key, unreadable)
            if resolved is not None:
                path, pointer, value = resolved
                parts[part] = value
                locations[part] = (path, pointer)
                if part == "data" and path == schema_path and pointer[:1] in (("data",), ("output",)):
                    data_key = str(pointer[0])
            continue
        key = part
        if part == "data" and "data" not in doc and "output" in doc:
            key = "output"
        if isinstance(doc.get(key), dict) and schema_path is not None:
            parts[part] = doc[key]
            locations[part] = (schema_path, (key,))
            if part == "data":
                data_key = key
    return Schemas(
        parts.get("input"), parts.get("data"), parts.get("meta"), parts.get("error"), doc, data_key, locations
    )


def _resolve_io(
    root: Path,
    real: tuple[Path, Path | None],
    ref: str,
    schema_path: Path | None,
    doc: dict[str, Any],
    loader: ReadContext,
    part: str,
    unreadable: bool = False,
) -> tuple[Path, tuple[str | int, ...], Any] | None:
    """The file, pointer and value an io reference names; `real` is (the folder, schema.json) resolved.

    `unreadable`: schema.json could not be read (its own diagnostic says so): a pointer into it is not reported."""
    manifest = root / "module.yaml"
    src = loader.sources.get(manifest)
    at = src.locate(("io", part)) if src is not None else (1, 1)
    file_part, _, fragment = ref.partition("#")
    try:
        target = (root / file_part).resolve() if file_part else (schema_path or root / "schema.json")
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop: no file can be read there
        loader.diagnostics.append(diag("S003", f"io.{part} is not a usable file name: {ref!r}", manifest, *at))
        return None
    try:
        target.relative_to(real[0])
    except ValueError:
        loader.diagnostics.append(
            diag(
                "S003",
                f"io.{part} points outside the module: {ref}",
                manifest,
                *at,
                hint="io references must stay inside the module folder.",
            )
        )
        return None
    if schema_path is not None and target == real[1]:
        target_doc, target_path = doc, schema_path
    else:
        src = loader.parse(target, "json") if lexists(target) else None
        if src is None:
            if target not in (
                root / "schema.json",
                real[0] / "schema.json",
            ):  # a missing schema.json is said once, by S010 (FMT-17)
                loader.diagnostics.append(diag("S003", f"io.{part} refers to a missing file: {ref}", manifest, *at))
            return None
        target_doc, target_path = src.value, target
    pointer = tuple(_unescape(p) for p in fragment.lstrip("/").split("/")) if fragment.strip("/") else ()
    value: Any = target_doc
    for token in pointer:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            if unreadable and target_path == schema_path:
                return None
            loader.diagnostics.append(
                diag(
                    "S003",
                    f"io.{part} does not resolve: {ref}",
                    manifest,
                    *at,
                    hint=f"{target.name} has no {fragment!r}.",
                )
            )
            return None
    if not isinstance(value, dict):
        loader.diagnostics.append(diag("S003", f"io.{part} does not point at a schema object: {ref}", manifest, *at))
        return None
    return target_path, pointer, value


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


# ---------------------------------------------------------------- validating


class ModuleSchemas:
    """Compiled validators for one module's parts, built on first use (schema_engine.py)."""

    def __init__(self, module: Module) -> None:
        # What the validators need of the module, not the module itself: the module keeps this object (memo.py),
        # and a reference back made every loaded module a reference cycle, ~90 KB (its files' sources) left for
        # the cyclic collector after each `validate --all` module instead of freed at once.
        self.schemas = module.schemas
        self.sources = module.sources
        self.path = module.path
        self._validators: dict[str, CompiledSchema | SchemaUnusable | None] = {}
        self._documents: dict[str, Any] | None = None

    def draft(self, part: str | None = None) -> str:
        """The draft the part's document declares (the module's schema.json when no part is named)."""
        loc = self.schemas.locations.get(part) if part else None
        src = self.sources.get(loc[0]) if loc is not None else None
        return draft_of(src.value if src is not None else self.schemas.root)

    def _known_documents(self) -> dict[str, Any]:
        if self._documents is None:
            docs: dict[str, Any] = {}
            for path, _pointer in self.schemas.locations.values():
                src = self.sources.get(path)
                contents = src.value if src is not None else self.schemas.root
                docs[file_uri(path)] = contents
                if isinstance(contents, dict) and isinstance(contents.get("$id"), str):
                    docs.setdefault(contents["$id"].split("#", 1)[0], contents)
            self._documents = docs
        return self._documents

    def _retrieve(self, uri: str) -> Any:
        docs = self._known_documents()
        base = uri.split("#", 1)[0]
        if base in docs:
            return docs[base]
        local = local_file_of(base)
        if local is None:
            raise LookupError(f"{uri} is outside the module: remote references are never fetched")
        root = self.path.resolve()
        target = safe_resolve(local)
        if not target.is_relative_to(root):
            raise LookupError(f"{uri} is not a file inside the module")
        from cogtui.core.files.sourcemap import ParseFailure, load_file

        try:  # confined: a FIFO, device or loop is refused, never read; a repeated key is P008 (FMT-5)
            return load_file(target, "json", root).value
        except ParseFailure as refused:
            raise LookupError(f"{uri}: {refused.diagnostic.message}") from None
        except RecursionError:
            raise LookupError(f"{uri} is nested too deeply") from None

    def validator(self, part: str) -> CompiledSchema | None:
        """The part's compiled schema; None when the module has no such part. Raises SchemaUnusable."""
        if part not in self._validators:
            loc = self.schemas.locations.get(part)
            built: CompiledSchema | SchemaUnusable | None = None
            if loc is not None:
                path, pointer = loc
                frag = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in pointer)
                try:
                    built = compile_schema(
                        {"$ref": f"{file_uri(path)}#{frag}"}, draft=self.draft(part), retrieve=self._retrieve
                    )
                except SchemaUnusable as exc:
                    built = exc
            self._validators[part] = built
        found = self._validators[part]
        if isinstance(found, SchemaUnusable):
            raise found
        return found

    def errors(self, part: str, instance: Any) -> list[SchemaError]:
        """Why `instance` does not satisfy the part (empty when it does). Raises SchemaUnusable."""
        validator = self.validator(part)
        return validator.errors(instance) if validator is not None else []

    def iter_errors(self, part: str, instance: Any) -> list[SchemaError]:
        return self.errors(part, instance)

    def is_valid(self, part: str, instance: Any) -> bool:
        validator = self.validator(part)
        return validator is None or validator.is_valid(instance)


def schemas_for(module: Module) -> ModuleSchemas:
    """The module's schemas, compiled once per loaded module (memo.py)."""
    return memo(module, "compiled_schemas", lambda: ModuleSchemas(module))
