"""Load a module folder of any format into a Module.

Loading never raises for bad content: unreadable or malformed files become
located diagnostics on `Module.load_diagnostics`, and the Module holds what
could be read. Only a folder that is not a module at all raises NotAModule.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Severity, diag
from cogtui.core.files.json_pointer import object_at
from cogtui.core.files.module_folder import (
    MANIFEST_V0,
    MANIFEST_V1,
    MANIFEST_V2,
    folder_names,
    is_dir,
    is_module_dir,
    manifest_kind,
)
from cogtui.core.module.model import Example, GoldenTest, Module, ModuleFiles, ModuleFormat
from cogtui.core.module.reading import ReadContext
from cogtui.core.module.tiers import contract_settings

V0_FILES = ("input.schema.json", "output.schema.json", "constraints.yaml", "prompt.txt")


class NotAModule(Exception):
    """The path holds no module.yaml, MODULE.md or module.md."""


def load_module(path: Path | str) -> Module:
    root = Path(path).absolute()
    if not is_dir(root):
        raise NotAModule(f"{root} is not a folder")
    names = folder_names(root)
    kind = manifest_kind(names)
    if kind is None:
        raise NotAModule(f"{root} has no {MANIFEST_V2}, {MANIFEST_V1} or {MANIFEST_V0}")
    return _Loader(root, names).load(kind)


class _Loader(ReadContext):
    """Reads one module folder of any format into a Module."""

    # ------------------------------------------------------------ formats

    def load(self, kind: str) -> Module:
        if kind == "v2":
            return self.load_v2()
        if kind == "v1":
            return self.load_v1()
        return self.load_v0()

    def load_v2(self) -> Module:
        manifest_path = self.root / MANIFEST_V2
        manifest = self.mapping(self.parse(manifest_path, "yaml"), MANIFEST_V2)
        prompt_path, prompt = self.text_file("prompt.md", required=True)
        schema_path = self.root / "schema.json"
        io = object_at(manifest, "io")
        if "schema.json" not in self.names and needs_schema_json(io):
            # One diagnostic for the missing contract (FMT-17): the io references to it and the v2.2 rules about
            # its parts (S003, V001) would only restate it.
            self.diagnostics.append(
                diag(
                    "S010",
                    "schema.json is missing, so the module's contract (input, data, meta, error) cannot be known",
                    schema_path,
                    hint="Create schema.json with input, data, meta and error schemas; `cogn migrate` can write one.",
                )
            )
        schemas = _load_schemas(self.root, schema_path if "schema.json" in self.names else None, io, self)
        if "response" in manifest or "modalities" in manifest:
            fmt = ModuleFormat.V2_5
        elif any(k in manifest for k in ("tier", "overflow", "enums")) or schemas.meta is not None:
            fmt = ModuleFormat.V2_2
        else:
            fmt = ModuleFormat.V2_1
        files = ModuleFiles(self.root, manifest_path, prompt_path, schema_path if "schema.json" in self.names else None)
        return self.build(fmt, manifest, prompt, schemas, files)

    def load_v1(self) -> Module:
        manifest_path = self.root / MANIFEST_V1
        manifest, body = self.markdown_manifest(manifest_path, required=True)
        schema_path = self.root / "schema.json"
        has_schema = "schema.json" in self.names
        if not has_schema:
            self.diagnostics.append(
                diag("P003", "schema.json is missing", schema_path, hint="Create schema.json with input and output.")
            )
        schemas = _load_schemas(self.root, schema_path if has_schema else None, {}, self)
        files = ModuleFiles(self.root, manifest_path, manifest_path, schema_path if has_schema else None)
        return self.build(ModuleFormat.V1, manifest, body, schemas, files)

    def load_v0(self) -> Module:
        manifest_path = self.root / MANIFEST_V0
        manifest, _ = self.markdown_manifest(manifest_path, required=False)
        self.diagnostics.append(
            diag(
                "M014",
                "the v0 six-file layout is deprecated",
                manifest_path,
                1,
                1,
                hint=f"Run `cogn migrate {self.root.name}` to upgrade it to v2.2.",
            )
        )
        for name in V0_FILES:
            if name not in self.names:
                self.diagnostics.append(diag("P003", f"{name} is missing", self.root / name))
        constraints_path = self.root / "constraints.yaml"
        constraints: dict[str, Any] = {}
        if "constraints.yaml" in self.names:
            constraints = self.mapping(self.parse(constraints_path, "yaml"), "constraints.yaml")
            if set(constraints) == {"constraints"} and isinstance(constraints["constraints"], dict):
                constraints = constraints["constraints"]
        prompt_path, prompt = self.text_file("prompt.txt", required=False)
        schemas = _load_schemas(self.root, None, {}, self, v0_names=self.names)
        manifest = dict(manifest)
        if constraints:
            manifest.setdefault("constraints", constraints)
        files = ModuleFiles(
            self.root,
            manifest_path,
            prompt_path,
            None,
            _present(self.root, self.names, "input.schema.json"),
            _present(self.root, self.names, "output.schema.json"),
            _present(self.root, self.names, "constraints.yaml"),
        )
        return self.build(ModuleFormat.V0, manifest, prompt, schemas, files)

    # ------------------------------------------------------------ common

    def manifest_readable(self, manifest_path: Path | None) -> bool:
        """False when reading the manifest failed: an error of the file or parse families located in it."""
        return not any(
            d.file == manifest_path and d.severity is Severity.ERROR and d.code[:1] in ("F", "P")
            for d in self.diagnostics
        )

    def build(
        self, fmt: ModuleFormat, manifest: dict[str, Any], prompt: str, schemas: Any, files: ModuleFiles
    ) -> Module:
        from cogtui.core.module.golden_files import collect_examples, collect_tests

        tests, tests_declared = collect_tests(self, manifest)
        examples = collect_examples(self)
        version = manifest.get("version")
        responsibility = manifest.get("responsibility")
        return Module(
            name=self.root.name,
            path=self.root,
            format=fmt,
            version=str(version) if version is not None else None,
            responsibility=responsibility if isinstance(responsibility, str) else None,
            contract=contract_settings(manifest, known=self.manifest_readable(files.manifest)),
            excludes=tuple(str(x) for x in manifest.get("excludes") or () if isinstance(x, (str, int, float)))
            if isinstance(manifest.get("excludes"), list)
            else (),
            prompt=prompt,
            schemas=schemas,
            files=files,
            examples=examples,
            tests=tests,
            policies=object_at(manifest, "policies"),
            tools=object_at(manifest, "tools"),
            overflow=object_at(manifest, "overflow"),
            enums=object_at(manifest, "enums"),
            failure=object_at(manifest, "failure"),
            runtime_requirements=object_at(manifest, "runtime_requirements"),
            io=object_at(manifest, "io"),
            compat=object_at(manifest, "compat"),
            tests_declared=tests_declared,
            response=object_at(manifest, "response"),
            modalities=object_at(manifest, "modalities"),
            error_codes=_error_codes(manifest.get("error_codes")),
            constraints=object_at(manifest, "constraints"),
            invocation=object_at(manifest, "invocation"),
            context=normalize_context(manifest.get("context")),
            manifest=manifest,
            sources=self.sources,
            load_diagnostics=tuple(self.diagnostics),
        )


def _load_schemas(*args: Any, **kwargs: Any) -> Any:
    # Imported here: discovery needs the loader's names, not jsonschema (keeps `cogtui` fast to start).
    from cogtui.core.module.schemas import load_schemas

    return load_schemas(*args, **kwargs)


def needs_schema_json(io: dict[str, Any]) -> bool:
    """Whether a v2 module's contract lives in schema.json: input or data not referenced elsewhere by io."""
    refs = {part: io.get(part) for part in ("input", "meta", "error")}
    refs["data"] = io.get("data", io.get("output"))
    if not (isinstance(refs["input"], str) and isinstance(refs["data"], str)):
        return True
    files = [r.partition("#")[0].strip() for r in refs.values() if isinstance(r, str)]
    return any(not f or posixpath.normpath(f) == "schema.json" for f in files)


def _present(root: Path, names: set[str], name: str) -> Path | None:
    return root / name if name in names else None


def _error_codes(value: Any) -> dict[str, Any]:
    """error_codes may be a mapping {E5001: description} or a list of codes / {code, ...} items."""
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list):
        out: dict[str, Any] = {}
        for item in value:
            if isinstance(item, str):
                out[item] = ""
            elif isinstance(item, dict) and "code" in item:
                out[str(item["code"])] = item
        return out
    return {}


def normalize_context(value: Any) -> str:
    """`context: fork` or `context: {mode: fork}`; anything else means main (docs/spec-decisions.md)."""
    if isinstance(value, dict):
        value = value.get("mode", value.get("type"))
    return "fork" if value == "fork" else "main"


__all__ = ["Example", "GoldenTest", "NotAModule", "is_module_dir", "load_module", "normalize_context"]
