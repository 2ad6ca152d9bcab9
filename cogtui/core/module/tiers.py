"""Tier defaults (SPEC-v2.5 §5.2) and the effective contract a manifest yields.

A manifest may leave any of these settings out; the tier fills them in. The
resulting `ContractSettings` records, per value, whether it was written in the
manifest ("explicit"), inherited from the tier ("tier"), or a spec-wide
default ("default"), so the UI can show both.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from cogtui.core.records import record

T = TypeVar("T")
Origin = Literal["explicit", "tier", "default"]

TIERS = ("exec", "decision", "exploration")
STRICTNESS = ("high", "medium", "low")
ENUM_STRATEGIES = ("strict", "extensible")
RESPONSE_MODES = ("sync", "streaming", "both")
CHUNK_TYPES = ("delta", "snapshot")
RISK_LEVELS = ("none", "low", "medium", "high")
MODALITIES = ("text", "image", "audio", "video", "document")

# Tier used when a manifest has none (v0, v1, v2.1): see docs/spec-decisions.md.
DEFAULT_TIER = "decision"

TIER_DEFAULTS: dict[str, dict[str, Any]] = {
    "exec": {
        "schema_strictness": "high",
        "overflow.enabled": False,
        "overflow.max_items": 0,
        "enums.strategy": "strict",
        "response.mode": "sync",
    },
    "decision": {
        "schema_strictness": "medium",
        "overflow.enabled": True,
        "overflow.max_items": 5,
        "enums.strategy": "extensible",
        "response.mode": "both",
    },
    "exploration": {
        "schema_strictness": "low",
        "overflow.enabled": True,
        "overflow.max_items": 20,
        "enums.strategy": "extensible",
        "response.mode": "streaming",
    },
}

# Exec-tier gate (SPEC-v2.5 §5.1): see docs/spec-decisions.md for the 0.9 vs 0.7 decision.
EXEC_MIN_CONFIDENCE = 0.9
EXEC_ALLOWED_RISK = ("none", "low")
EXPLAIN_MAX = 280
V21_WRAP_EXPLAIN = 200
LOOSEST_MAX_INSIGHTS = 20


@record
class Setting(Generic[T]):
    """A contract setting's value and where it came from (written in the manifest, or the tier's default)."""

    value: T
    origin: Origin

    @property
    def explicit(self) -> bool:
        return self.origin == "explicit"


@record
class ContractSettings:
    """A module's contract settings after its tier's defaults are applied."""

    tier: Setting[str]
    schema_strictness: Setting[str]
    overflow_enabled: Setting[bool]
    overflow_max_items: Setting[int]
    overflow_recoverable: Setting[bool]
    overflow_require_suggested_mapping: Setting[bool]
    enum_strategy: Setting[str]
    response_mode: Setting[str]
    response_chunk_type: Setting[str]
    # False when the manifest could not be read (a syntax error, not a mapping, unreadable bytes): every value
    # is then a default the author may well have declared otherwise, and no rule compares a file with it (FMT-16).
    known: bool = True

    def items(self) -> list[tuple[str, Setting[Any]]]:
        """(dotted manifest name, setting) pairs, in manifest order, for display."""
        return [
            ("tier", self.tier),
            ("schema_strictness", self.schema_strictness),
            ("overflow.enabled", self.overflow_enabled),
            ("overflow.max_items", self.overflow_max_items),
            ("overflow.recoverable", self.overflow_recoverable),
            ("overflow.require_suggested_mapping", self.overflow_require_suggested_mapping),
            ("enums.strategy", self.enum_strategy),
            ("response.mode", self.response_mode),
            ("response.chunk_type", self.response_chunk_type),
        ]


def _choice(value: Any, legal: tuple[str, ...], fallback: str, origin: Origin) -> Setting[str]:
    return Setting(value, "explicit") if value in legal else Setting(fallback, origin)


def _typed(value: Any, kind: type, fallback: Any, origin: Origin) -> Setting[Any]:
    # bool is an int subclass; `max_items: true` is not a count.
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return Setting(value, "explicit")
    return Setting(fallback, origin)


def contract_settings(manifest: dict[str, Any], known: bool = True) -> ContractSettings:
    """Effective settings for a manifest; illegal explicit values fall back (and are diagnosed elsewhere).
    `known` is False when the manifest could not be read (see ContractSettings.known)."""
    raw_tier = manifest.get("tier")
    tier = Setting(raw_tier, "explicit") if raw_tier in TIERS else Setting(DEFAULT_TIER, "default")
    d = TIER_DEFAULTS[tier.value]
    overflow = _mapping(manifest.get("overflow"))
    enums = _mapping(manifest.get("enums"))
    response = _mapping(manifest.get("response"))
    enabled = _typed(overflow.get("enabled"), bool, d["overflow.enabled"], "tier")
    # An exec module that turns overflow on explicitly gets the decision tier's cap.
    max_items_default = (d["overflow.max_items"] or 5) if enabled.value else 0
    max_items = _typed(overflow.get("max_items"), int, max_items_default, "tier")
    require = _typed(overflow.get("require_suggested_mapping"), bool, _recoverable_default(overflow), "default")
    return ContractSettings(
        tier=tier,
        schema_strictness=_choice(manifest.get("schema_strictness"), STRICTNESS, d["schema_strictness"], "tier"),
        overflow_enabled=enabled,
        overflow_max_items=max_items,
        overflow_recoverable=_typed(overflow.get("recoverable"), bool, True, "default"),
        overflow_require_suggested_mapping=require,
        enum_strategy=_choice(enums.get("strategy"), ENUM_STRATEGIES, d["enums.strategy"], "tier"),
        response_mode=_choice(response.get("mode"), RESPONSE_MODES, d["response.mode"], "tier"),
        response_chunk_type=_choice(response.get("chunk_type"), CHUNK_TYPES, "delta", "default"),
        known=known,
    )


def _recoverable_default(overflow: dict[str, Any]) -> bool:
    # SPEC-v2.2 §1.2: `recoverable` means insights must carry suggested_mapping.
    rec = overflow.get("recoverable")
    return rec if isinstance(rec, bool) else True


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
