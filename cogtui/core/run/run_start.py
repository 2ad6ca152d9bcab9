"""What a new run starts from in the workbench: the inputs on offer, the one prefilled, and the provider.

The inputs on offer are every golden test's input, then every example's, in
the module's order (an unreadable one is left out). The editor starts with
the input it was given (a re-run from the history), else the first on offer,
else `{}`. The provider is the configured one when it can run (replay always
can; a real provider needs its API key in the environment), else replay;
a configured name that is no provider at all falls back to replay with the
reason, for the screen to show (docs/spec-decisions.md D90).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.run.providers import UnknownProvider, missing_key, selected

if TYPE_CHECKING:
    from cogtui.core.settings.config import Config

REPLAY = "replay"


@dataclass(frozen=True)
class InputChoice:
    label: str  # "golden NAME" or "example NAME"
    value: Any


def input_choices(module: Module) -> list[InputChoice]:
    """Every golden's input, then every example's; the first one prefills the editor."""
    out = [InputChoice(f"golden {t.name}", t.input) for t in module.tests if t.input is not UNPARSED]
    out += [InputChoice(f"example {e.name}", e.input) for e in module.examples if e.input is not UNPARSED]
    return out


def starting_input(choices: list[InputChoice], given: Any = None) -> Any:
    """The input the editor starts with: the one given, else the first choice, else an empty object."""
    if given is not None:
        return given
    return choices[0].value if choices else {}


def default_provider(config: Config) -> tuple[str, str | None]:
    """(provider, problem): the configured provider when it can run, else replay; `problem` says why replay
    was chosen when the configured name (config.yaml or $COGNITIVE_PROVIDER) is not a provider at all."""
    try:
        name, _ = selected(config=config)
    except UnknownProvider as exc:
        return REPLAY, f"{exc}; using {REPLAY}"
    return (REPLAY if missing_key(name) else name), None
