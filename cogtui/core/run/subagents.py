"""@call: subagents (SPEC-v0.1): the static call graph, checked before any model call.

Depth is counted in calls: the root module is depth 0 and may call down to
depth MAX_DEPTH. A cycle (A → B → A) is E4004, a chain deeper than 5 is
E4005, an unknown module E4006, a module that declares
`invocation.agent_invocable: false` E4007: all found before calling anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.records import record
from cogtui.core.run.prompt import find_calls

MAX_DEPTH = 5
Resolver = Callable[[str], Module | None]


@record
class GraphProblem:
    """Why a module's subagent calls cannot run: a cycle, too deep, an unknown or a non-invocable module."""

    code: str  # E4004, E4005, E4006 or E4007
    message: str
    chain: tuple[str, ...]


def check_call_graph(
    root: Module, resolve: Resolver, depth: int = 0, stack: tuple[str, ...] = ()
) -> GraphProblem | None:
    """Walk every @call: reachable from `root` (depth-first) and report the first problem."""
    stack = (*stack, root.name)
    for call in find_calls(root.prompt):
        chain = (*stack, call.module)
        if call.module in stack:
            cycle = chain[chain.index(call.module) :]
            return GraphProblem("E4004", "subagent calls form a cycle: " + " → ".join(cycle), cycle)
        if depth + 1 > MAX_DEPTH:
            return GraphProblem("E4005", f"subagent calls nest deeper than {MAX_DEPTH}: " + " → ".join(chain), chain)
        child = resolve(call.module)
        if child is None:
            return GraphProblem("E4006", f"@call:{call.module} names a module that is not on the search path", chain)
        if child.invocation.get("agent_invocable") is False:
            return GraphProblem(
                "E4007", f"@call:{call.module} is not agent-invocable (invocation.agent_invocable: false)", chain
            )
        problem = check_call_graph(child, resolve, depth + 1, stack)
        if problem is not None:
            return problem
    return None


def child_input(child: Module, parent_input: Any, args: str | None) -> Any:
    """`context: main` shares the parent's input; `fork` starts empty. A JSON-object argument is merged on top.

    A shared input keeps only the fields the child's input schema declares when
    that schema closes itself with `additionalProperties: false` (RUN-7): a typed
    child takes what it understands from its caller and nothing it would reject.
    """
    base: dict[str, Any] = {}
    if child.context == "main" and isinstance(parent_input, dict):
        base = dict(parent_input)
        schema = child.schemas.input
        if (
            isinstance(schema, dict)
            and schema.get("additionalProperties") is False
            and isinstance(schema.get("properties"), dict)
        ):
            base = {k: v for k, v in base.items() if k in schema["properties"]}
    if args:
        try:
            parsed = json.loads(args)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            base.update(parsed)
    return base
