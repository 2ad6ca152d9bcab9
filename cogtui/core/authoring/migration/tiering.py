"""Infer a legacy module's tier (SPEC-v2.2 §1.1) from what it says about itself.

exec: the output is applied without a human (patches, commands, approvals), or
the constraints/policies allow side effects or code execution. exploration:
open-ended generation (brainstorming, ideas, alternatives). decision otherwise.
The responsibility and name weigh most, the prompt less; excludes that rule out
executing or applying count against exec. An exec guess that the module's own
contract or examples could not satisfy (extensible enums, insights, examples
below the exec gate of SPEC-v2.5 §5.1) falls back to decision. The result is
always a note for the author to confirm.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cogtui.core.files.json_pointer import array_at, object_at
from cogtui.core.module.model import Module
from cogtui.core.module.tiers import EXEC_ALLOWED_RISK, EXEC_MIN_CONFIDENCE
from cogtui.core.rules.envelope_rules import custom_enum_values, insights_of

_EXEC = re.compile(
    r"\b(patch(?:es)?|apply|applies|applied|applying|execut\w*|automatic\w*|auto-?appl\w*|approv\w*|deploy\w*|"
    r"shell commands?|commands? to run|migration scripts?)\b|自动执行|自动应用|补丁|执行命令|审批",
    re.I,
)
_EXPLORE = re.compile(
    r"\b(brainstorm\w*|explor\w*|ideas?|ideation|inspir\w*|creative|alternatives|possibilities)\b|"
    r"\bgenerat\w*\s+(?:\w+\s+){0,3}?(?:options|ideas|alternatives|variations|names|concepts)\b|"
    r"头脑风暴|探索|灵感|创意|点子",
    re.I,
)
_HANDS_OFF = re.compile(
    r"\b(ask\w*|wait\w*) for (?:a |any )?(?:human |user |manual )?(confirmation|approval|review)\b", re.I
)
_NOT_EXECUTING = re.compile(r"\b(execut\w*|apply\w*|running|writing files|committing|pushing|deploy\w*)\b", re.I)
_ALLOWING = ("side_effects", "code_execution", "filesystem_write")


@dataclass(frozen=True)
class TierChoice:
    tier: str
    because: str

    @property
    def note(self) -> str:
        return (
            f"inferred {self.tier} because {self.because}; confirm it (exec: applied without review, "
            "decision: judged by a person, exploration: open-ended)"
        )


def _words(pattern: re.Pattern[str], text: str) -> list[str]:
    seen: list[str] = []
    for m in pattern.finditer(text):
        word = m.group(0).lower()
        if word not in seen:
            seen.append(word)
    return seen


def _allowed(module: Module) -> list[str]:
    out = []
    for name in _ALLOWING:
        if module.policy_allows(name) or module.constraints.get(f"no_{name}") is False:
            out.append(name)
    if module.constraints.get("no_file_write") is False and "filesystem_write" not in out:
        out.append("filesystem_write")
    return out


def infer_tier(module: Module, data_schema: Any, envelopes: list[tuple[str, dict[str, Any]]]) -> TierChoice:
    """The tier for `module`. `data_schema` is what the data can reach (its schema and the definitions it may
    refer to); `envelopes` are (file, v2.2 envelope) pairs its examples or goldens become."""
    head = f"{module.name.replace('-', ' ').replace('_', ' ')} {module.responsibility or ''}"
    exec_score = explore_score = 0
    exec_why: list[str] = []
    explore_why: list[str] = []
    if words := _words(_EXEC, head):
        exec_score += 3
        exec_why.append("the name or responsibility says " + ", ".join(f'"{w}"' for w in words[:3]))
    if words := _words(_EXPLORE, head):
        explore_score += 3
        explore_why.append("the name or responsibility says " + ", ".join(f'"{w}"' for w in words[:3]))
    if allowed := _allowed(module):
        exec_score += 3
        exec_why.append("the constraints/policies allow " + ", ".join(allowed))
    excludes = " ".join(module.excludes)
    if _HANDS_OFF.search(excludes):
        exec_score += 2
        exec_why.append("the excludes rule out waiting for a human")
    elif _NOT_EXECUTING.search(excludes):
        exec_score -= 1
    prompt_exec = _words(_EXEC, module.prompt)
    prompt_explore = _words(_EXPLORE, module.prompt)
    if prompt_exec:
        exec_score += min(2, len(prompt_exec))
        exec_why.append("the prompt mentions " + ", ".join(f'"{w}"' for w in prompt_exec[:3]))
    if prompt_explore:
        explore_score += min(2, len(prompt_explore))
        explore_why.append("the prompt mentions " + ", ".join(f'"{w}"' for w in prompt_explore[:3]))

    if exec_score >= 3 and exec_score > explore_score:
        blockers = exec_blockers(data_schema, envelopes)
        if not blockers:
            return TierChoice("exec", " and ".join(exec_why))
        return TierChoice("decision", f"{' and '.join(exec_why)} (which suggests exec), but {'; '.join(blockers)}")
    if explore_score >= 3 and explore_score > exec_score:
        return TierChoice("exploration", " and ".join(explore_why))
    return TierChoice(
        "decision", "nothing in it describes automatic execution (exec) or open-ended generation (exploration)"
    )


def exec_blockers(data_schema: Any, envelopes: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Reasons the module could not be exec without changing its contract or its examples."""
    out: list[str] = []
    if has_custom_branch(data_schema):
        out.append("its data schema has extensible enums ({custom, reason}), which exec forbids")
    if _mentions_insights(data_schema):
        out.append("its data schema has extensions.insights, and exec turns overflow off")
    for name, env in envelopes:
        data = env.get("data")
        if insights_of(data):
            out.append(f"{name} returns extensions.insights, and exec turns overflow off")
            break
        if any(True for _ in custom_enum_values(data)):
            out.append(f"{name} uses a custom enum value, and exec enums are strict")
            break
    for name, env in envelopes:
        meta = object_at(env, "meta")
        conf, risk = meta.get("confidence"), meta.get("risk")
        if (isinstance(conf, (int, float)) and conf < EXEC_MIN_CONFIDENCE) or risk not in EXEC_ALLOWED_RISK:
            out.append(
                f"{name} has confidence {conf} and risk {risk}, outside the exec gate "
                f"(confidence >= {EXEC_MIN_CONFIDENCE}, risk none or low)"
            )
            break
    return out


def has_custom_branch(node: Any) -> bool:
    """A oneOf/anyOf anywhere in the schema with a branch declaring `custom`: an extensible enum."""

    def custom_branch(obj: dict[str, Any]) -> bool:
        return any(
            "custom" in object_at(branch, "properties") for key in ("oneOf", "anyOf") for branch in array_at(obj, key)
        )

    return _anywhere(node, custom_branch)


def _mentions_insights(node: Any) -> bool:
    return _anywhere(node, lambda obj: "insights" in object_at(obj, "properties"))


def _anywhere(node: Any, found: Callable[[dict[str, Any]], bool], depth: int = 0) -> bool:
    """Whether `found` holds for an object anywhere in `node`, at most 64 levels down."""
    if depth > 64:
        return False
    if isinstance(node, dict):
        return found(node) or any(_anywhere(v, found, depth + 1) for v in node.values())
    if isinstance(node, list):
        return any(_anywhere(v, found, depth + 1) for v in node)
    return False
