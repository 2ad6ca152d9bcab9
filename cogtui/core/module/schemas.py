"""A module's schemas: where each part lives, and validators that resolve $ref safely.

Each schema file of a module is registered as a resource under its file URI
(and its `$id`, when it has one). A part (input, data, meta, error) is
validated through `{"$ref": "<file-uri>#/<part>"}`, so a `$ref` such as
`#/$defs/extensions` resolves against the document root from any sub-schema.
References to other files resolve only inside the module folder; remote
references are never fetched.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import ValidationError

from cogtui.core.diagnostics import diag
from cogtui.core.files.module_folder import is_file
from cogtui.core.module.model import Schemas

if TYPE_CHECKING:
    from cogtui.core.module.model import Module
    from cogtui.core.module.reading import ReadContext

PARTS = ("input", "data", "meta", "error")

# jsonschema ships no type information: its validator classes are `Any` to mypy.
_DRAFTS: dict[str, Any] = {
    "http://json-schema.org/draft-04/schema": jsonschema.Draft4Validator,
    "http://json-schema.org/draft-06/schema": jsonschema.Draft6Validator,
    "http://json-schema.org/draft-07/schema": jsonschema.Draft7Validator,
    "https://json-schema.org/draft/2019-09/schema": jsonschema.Draft201909Validator,
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
}


def validator_class(root: dict[str, Any] | None) -> Any:
    """The draft a document declares in $schema; Draft 2020-12 otherwise (docs/spec-decisions.md)."""
    uri = root.get("$schema") if isinstance(root, dict) else None
    if isinstance(uri, str):
        return _DRAFTS.get(uri.rstrip("#"), jsonschema.Draft202012Validator)
    return jsonschema.Draft202012Validator


@cache
def metaschema_validator(cls: Any) -> Any:
    if cls is jsonschema.Draft202012Validator:
        return cls(flat_metaschema_2020_12())
    return cls(cls.META_SCHEMA)


def flat_metaschema_2020_12() -> dict[str, Any]:
    """The 2020-12 metaschema with its vocabularies merged and `$dynamicRef: #meta` as `$ref: #`.

    The same constraints as the official document, without dynamic-scope
    resolution across seven vocabulary documents: about five times faster to
    evaluate, which `validate --all` over a large search path needs.
    tests/test_schemas.py checks that both agree.
    """
    from jsonschema_specifications import REGISTRY

    base = "https://json-schema.org/draft/2020-12/"
    main = REGISTRY.contents(base + "schema")
    flat: dict[str, Any] = {"type": ["object", "boolean"], "properties": {}, "$defs": {}}
    for ref in main["allOf"]:
        vocab = REGISTRY.contents(base + ref["$ref"])
        flat["properties"].update(vocab.get("properties", {}))
        flat["$defs"].update(vocab.get("$defs", {}))
    flat["properties"].update(main.get("properties", {}))

    def static(node: Any) -> Any:
        if isinstance(node, dict):
            if node.get("$dynamicRef") == "#meta":
                return {"$ref": "#"}
            return {k: static(v) for k, v in node.items()}
        if isinstance(node, list):
            return [static(v) for v in node]
        return node

    flattened: dict[str, Any] = static(flat)
    return flattened


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
        doc = loader.mapping(loader.parse(schema_path, "json"), "schema.json")
    for part in PARTS:
        ref = io.get(part) if part != "data" else io.get("data", io.get("output"))
        if isinstance(ref, str) and ref.strip():
            io_key = part if part != "data" or "data" in io else "output"
            resolved = _resolve_io(root, ref, schema_path, doc, loader, io_key)
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
    root: Path, ref: str, schema_path: Path | None, doc: dict[str, Any], loader: ReadContext, part: str
) -> tuple[Path, tuple[str | int, ...], Any] | None:
    manifest = root / "module.yaml"
    src = loader.sources.get(manifest)
    at = src.locate(("io", part)) if src is not None else (1, 1)
    file_part, _, fragment = ref.partition("#")
    try:
        target = (root / file_part).resolve() if file_part else (schema_path or root / "schema.json")
    except (OSError, ValueError):  # e.g. a NUL byte: no file can have that name
        loader.diagnostics.append(diag("S003", f"io.{part} is not a usable file name: {ref!r}", manifest, *at))
        return None
    try:
        target.relative_to(root.resolve())
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
    if schema_path is not None and target == schema_path.resolve():
        target_doc, target_path = doc, schema_path
    else:
        src = loader.parse(target, "json") if is_file(target) else None
        if src is None:
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
    """Compiled validators for one module's parts, built on first use."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._validators: dict[str, Any] = {}
        self._registry: referencing.Registry | None = None

    def _build_registry(self) -> referencing.Registry:
        root = self.module.path.resolve()
        spec = referencing.jsonschema.specification_with(
            _spec_id(validator_class(self.module.schemas.root)), default=referencing.jsonschema.DRAFT202012
        )
        resources: list[tuple[str, referencing.Resource[Any]]] = []
        seen: set[Path] = set()
        for path, _pointer in self.module.schemas.locations.values():
            if path in seen:
                continue
            seen.add(path)
            src = self.module.sources.get(path)
            contents = src.value if src is not None else self.module.schemas.root
            resource = spec.create_resource(contents)
            resources.append((file_uri(path), resource))
            if isinstance(contents, dict) and isinstance(contents.get("$id"), str):
                resources.append((contents["$id"].rstrip("#"), resource))

        def retrieve(uri: str) -> referencing.Resource[Any]:
            parsed = urlparse(uri)
            if parsed.scheme != "file":
                raise referencing.exceptions.NoSuchResource(uri)
            target = Path(unquote(parsed.path)).resolve()
            try:
                target.relative_to(root)
            except ValueError:
                raise referencing.exceptions.NoSuchResource(uri) from None
            import json

            try:
                return spec.create_resource(json.loads(target.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                raise referencing.exceptions.NoSuchResource(uri) from None

        return referencing.Registry(retrieve=retrieve).with_resources(resources)  # type: ignore[call-arg]

    def validator(self, part: str) -> Any | None:
        if part in self._validators:
            return self._validators[part]
        loc = self.module.schemas.locations.get(part)
        validator = None
        if loc is not None:
            if self._registry is None:
                self._registry = self._build_registry()
            path, pointer = loc
            frag = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in pointer)
            cls = validator_class(self.module.schemas.root)
            validator = cls({"$ref": f"{file_uri(path)}#{frag}"}, registry=self._registry)
        self._validators[part] = validator
        return validator

    def iter_errors(self, part: str, instance: Any) -> Iterator[ValidationError]:
        """Validation errors of `instance` against the part; unresolvable refs surface as RefError."""
        validator = self.validator(part)
        if validator is None:
            return iter(())
        return _safe_iter(validator, instance)

    def is_valid(self, part: str, instance: Any) -> bool:
        return next(iter(self.iter_errors(part, instance)), None) is None


class RefError(Exception):
    def __init__(self, ref: str, detail: str) -> None:
        super().__init__(f"$ref {ref!r} does not resolve: {detail}")
        self.ref = ref


def _safe_iter(validator: Any, instance: Any) -> Iterator[ValidationError]:
    try:
        yield from validator.iter_errors(instance)
    except referencing.exceptions.Unresolvable as exc:
        raise RefError(getattr(exc, "ref", "?"), str(exc)) from None
    except RecursionError:
        raise RefError("?", "recursive $ref") from None


def _spec_id(cls: Any) -> str:
    return str(cls.META_SCHEMA.get("$schema", "https://json-schema.org/draft/2020-12/schema"))


def schemas_for(module: Module) -> ModuleSchemas:
    # A frozen dataclass cannot take new attributes through setattr; its __dict__ can hold a cache.
    cached = module.__dict__.get("_compiled_schemas")
    if cached is None:
        cached = module.__dict__["_compiled_schemas"] = ModuleSchemas(module)
    return cached
