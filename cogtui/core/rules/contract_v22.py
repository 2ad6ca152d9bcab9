"""The v2.2 contract rules of `cogn validate` (module-formats.md "v2.2 验证检查", SPEC-v2.2 §1-§3)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cogtui.core.files.json_pointer import array_at, deref
from cogtui.core.module.tiers import EXPLAIN_MAX
from cogtui.core.rules.contract_base import PathT, RuleBase, file_unusable

EXPECTED_STRICTNESS = {"exec": "high", "decision": "medium", "exploration": "low"}
ENVELOPE_WORDS = ("meta", "confidence", "risk", "explain", "rationale")


class V22Checks(RuleBase):
    def check_v22(self) -> None:
        s = self.m.schemas
        schema_file = self.m.files.schema if self.m.files else None
        if s.meta is None:
            # A missing or unreadable schema.json is said once (FMT-17): "it has no meta schema" would restate it.
            if not self.schema_file_unusable:
                self.add_at(
                    "V001",
                    "schema.json has no meta schema",
                    schema_file,
                    hint='Add "meta" requiring confidence, risk and explain (SPEC-v2.2 §3.2).',
                )
        else:
            meta = deref(s.meta, s.root) or {}
            required = array_at(meta, "required")
            missing = [f for f in ("confidence", "risk", "explain") if f not in required]
            if missing and _required_is_a_list(meta):
                self.add_part(
                    "V002",
                    f"the meta schema does not require {', '.join(missing)}",
                    "meta",
                    ("required",) if "required" in meta else (),
                )
            explain = (
                deref(meta["properties"].get("explain"), s.root) if isinstance(meta.get("properties"), dict) else None
            )
            max_len = explain.get("maxLength") if isinstance(explain, dict) else None
            if not isinstance(max_len, int) or max_len > EXPLAIN_MAX:
                where = ("properties", "explain") if isinstance(explain, dict) else ()
                self.add_part("V003", f"meta.explain needs maxLength <= {EXPLAIN_MAX} (found {max_len})", "meta", where)
        if s.data is not None:
            data = deref(s.data, s.root) or {}
            required = array_at(data, "required")
            if "rationale" not in required and _required_is_a_list(data):
                self.add_part(
                    "V004",
                    "the data schema does not require rationale",
                    "data",
                    ("required",) if "required" in data else (),
                )
        self.check_manifest_v22()
        self.check_prompt()
        self.check_overflow_schema()
        self.check_tier_coherence()

    def check_manifest_v22(self) -> None:
        """Checklist item 1: module.yaml has tier, overflow and enums (tier itself is M001)."""
        if not self.v22:
            return
        missing = [name for name in ("overflow", "enums") if name not in self.m.manifest]
        if missing:
            self.add_at(
                "V011",
                f"module.yaml has no {' or '.join(missing)} (required by --v22)",
                self.m.files.manifest if self.m.files else None,
                hint="Add overflow: {enabled: ..., max_items: ...} and enums: {strategy: ...} (SPEC-v2.2 §1.2-1.3).",
            )

    def check_prompt(self) -> None:
        prompt_file = self.m.files.prompt if self.m.files else None
        if prompt_file is None or file_unusable(self.m, prompt_file):
            return  # refused, missing or not decoded (F001-F004, P003, P005): nothing can be said of what it says
        text = self.m.prompt.lower()
        missing = [w for w in ENVELOPE_WORDS if w not in text]
        if missing:
            self.add_at(
                "V005",
                f"prompt.md does not describe the envelope (no mention of {', '.join(missing)})",
                prompt_file,
                hint="Add a '## Response Format (Envelope v2.2)' section; `cogn migrate` can add it.",
                severity=self.v_severity,
            )

    def insights_schema(self) -> tuple[Any, PathT] | None:
        s = self.m.schemas
        data = deref(s.data, s.root)
        props = data.get("properties") if isinstance(data, dict) else None
        ext = deref(props.get("extensions"), s.root) if isinstance(props, dict) else None
        ext_props = ext.get("properties") if isinstance(ext, dict) else None
        ins = deref(ext_props.get("insights"), s.root) if isinstance(ext_props, dict) else None
        if not isinstance(ins, dict):
            return None
        return ins, ("properties", "extensions")

    def check_overflow_schema(self) -> None:
        c = self.m.contract
        if not c.known:  # the manifest could not be read: what it declares is unknown (FMT-16)
            return
        found = self.insights_schema()
        if found is None:
            if c.overflow_enabled.value and self.m.schemas.data is not None:
                self.add_part(
                    "V009",
                    "overflow is enabled but the data schema has no extensions.insights",
                    "data",
                    hint='Add "extensions": {"$ref": "#/$defs/extensions"} to data.properties.',
                )
            return
        ins, where = found
        max_items = ins.get("maxItems")
        if c.overflow_enabled.value and max_items != c.overflow_max_items.value:
            self.add_part(
                "V006",
                f"insights maxItems is {max_items} but overflow.max_items is {c.overflow_max_items.value}",
                "data",
                where,
                hint="Make the schema and module.yaml agree.",
            )
        items = deref(ins.get("items"), self.m.schemas.root)
        required = items.get("required", []) if isinstance(items, dict) else []
        requires_mapping = isinstance(required, list) and "suggested_mapping" in required
        if c.overflow_enabled.value and requires_mapping != c.overflow_require_suggested_mapping.value:
            self.add_part(
                "V007",
                f"overflow.require_suggested_mapping is {c.overflow_require_suggested_mapping.value} "
                f"but the insights schema {'requires' if requires_mapping else 'does not require'} it",
                "data",
                where,
            )

    def check_tier_coherence(self) -> None:
        c = self.m.contract
        if not c.known:
            return
        man_file = self.m.files.manifest if self.m.files else None
        tier = c.tier.value
        if c.schema_strictness.explicit and c.schema_strictness.value != EXPECTED_STRICTNESS[tier]:
            self.add_at(
                "V008",
                f"tier {tier} expects schema_strictness {EXPECTED_STRICTNESS[tier]}, not {c.schema_strictness.value}",
                man_file,
                ("schema_strictness",),
            )
        if tier == "exec" and c.overflow_enabled.explicit and c.overflow_enabled.value:
            self.add_at("V008", "the exec tier should keep overflow disabled", man_file, ("overflow", "enabled"))
        if tier == "exec" and c.enum_strategy.explicit and c.enum_strategy.value != "strict":
            self.add_at("V008", "the exec tier should use strict enums", man_file, ("enums", "strategy"))
        if c.enum_strategy.value == "strict" and self.m.schemas.data is not None:
            for path in _extensible_enum_paths(self.m.schemas.data):
                self.add_part(
                    "V010",
                    "enums are strict but the schema allows {custom, reason} values here",
                    "data",
                    path,
                    hint="Remove the custom branch, or set enums.strategy: extensible.",
                )
                break


def _extensible_enum_paths(node: Any, path: PathT = ()) -> Iterator[PathT]:
    if isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                for i, b in enumerate(branches):
                    if isinstance(b, dict) and isinstance(b.get("properties"), dict) and "custom" in b["properties"]:
                        yield (*path, key, i)
        for k, v in node.items():
            yield from _extensible_enum_paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _extensible_enum_paths(v, (*path, i))


def _required_is_a_list(schema: object) -> bool:
    """`required` is absent or a list: when it is anything else, S001 says so, and "does not require X" would
    only restate that fact (CODE-6)."""
    return not isinstance(schema, dict) or isinstance(schema.get("required", []), list)
