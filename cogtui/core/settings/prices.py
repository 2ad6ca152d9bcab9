"""What a model call costs, estimated: a small table of US dollars per million tokens, overridable in config.yaml.

    prices:
      claude-sonnet-*: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}
      my-local-model: {input: 0, output: 0}

A model's price is the entry named exactly like it, else the longest glob
pattern (`fnmatch`) that matches it; the user's entries come before the
built-in ones. A model with no entry has no estimate (shown as "?"), never a
guess. The built-in figures are list prices at the time of writing: an
estimate for comparing targets, not a bill (docs/eval.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens. Cache reads and writes default to the input price."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def cost(self, usage: dict[str, Any]) -> float:
        """The estimate for one usage dict (missing counts are 0); `input_tokens` excludes cached tokens."""

        def n(key: str) -> int:
            value = usage.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

        read = self.input if self.cache_read is None else self.cache_read
        write = self.input if self.cache_write is None else self.cache_write
        total = (
            n("input_tokens") * self.input
            + n("output_tokens") * self.output
            + n("cache_read_tokens") * read
            + n("cache_write_tokens") * write
        )
        return total / 1_000_000

    def saving(self, usage: dict[str, Any]) -> float:
        """What the cache reads saved against paying the full input price for those tokens."""
        value = usage.get("cache_read_tokens")
        read = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
        rate = self.input if self.cache_read is None else self.cache_read
        return read * max(0.0, self.input - rate) / 1_000_000

    def to_json(self) -> dict[str, float | None]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
        }


BUILTIN_PRICES: dict[str, Price] = {
    "replay": Price(0, 0, 0, 0),
    "claude-opus-*": Price(5, 25, 0.5, 6.25),
    "claude-sonnet-*": Price(3, 15, 0.3, 3.75),
    "claude-haiku-*": Price(1, 5, 0.1, 1.25),
    "gpt-4o": Price(2.5, 10, 1.25),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075),
    "gpt-4.1": Price(2, 8, 0.5),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1),
    "gpt-4.1-nano": Price(0.1, 0.4, 0.025),
}


def price_for(model: str | None, user: dict[str, Price] | None = None) -> Price | None:
    """The user's entry, else the built-in one: an exact name first, then the longest matching pattern."""
    if not model:
        return None
    for table in (user or {}, BUILTIN_PRICES):
        if model in table:
            return table[model]
        matches = [p for p in table if any(c in p for c in "*?[") and fnmatchcase(model, p)]
        if matches:
            return table[max(matches, key=len)]
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def parse_price(value: Any) -> tuple[Price | None, str | None]:
    """(a Price, None) from a config mapping, or (None, why it cannot be used)."""
    if not isinstance(value, dict):
        return None, "must be a mapping of input/output/cache_read/cache_write to dollars per million tokens"
    unknown = [str(k) for k in value if k not in PRICE_FIELDS]
    if unknown:
        return None, f"has unknown field(s) {', '.join(unknown)} (known: {', '.join(PRICE_FIELDS)})"
    numbers = {k: _number(value.get(k)) for k in PRICE_FIELDS}
    bad = [k for k in PRICE_FIELDS if k in value and numbers[k] is None]
    if bad:
        return None, f"{', '.join(bad)} must be a number of dollars (0 or more)"
    inp, out = numbers["input"], numbers["output"]
    if inp is None or out is None:
        return None, "needs both input and output"
    return Price(inp, out, numbers["cache_read"], numbers["cache_write"]), None
