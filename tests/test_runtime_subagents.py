"""@call: subagents (SPEC-v0.1; docs/spec-decisions.md RUN-7): order, inputs, and the call graph's limits.

Graph problems (a cycle, depth over 5, an unknown module) are found before
anything is called, so the scripted server must record no request at all.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import text
from modkit import PROMPT_V22, clean_v22, make_module, mapping_in, run_cogn
from rtkit import (
    assert_failure,
    collect,
    copy_module,
    golden,
    input_block,
    model_answer,
    options,
    provider,
    replay,
    resolver_for,
    set_keys,
    system_text,
    user_text,
)

from cogtui.core.module.loader import load_module
from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.runner import run_module
from cogtui.core.workspace import Workspace


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def answer(label: str = "bug", rationale: str = "why") -> str:
    return json.dumps(
        {
            "ok": True,
            "meta": {"confidence": 0.8, "risk": "low", "explain": f"{label} answer"},
            "data": {"label": label, "rationale": rationale},
        }
    )


def mk(root: Path, name: str, calls: list[str] = (), context: str | None = None) -> Path:  # type: ignore[assignment]
    """A small v2.2 module without an input schema whose prompt makes `calls` (e.g. "kid(args)")."""
    files = clean_v22(name)
    mapping_in(files, "schema.json").pop("input")
    files["prompt.md"] = PROMPT_V22 + "".join(f"\nStep: @call:{c}\n" for c in calls)
    if context:
        mapping_in(files, "module.yaml")["context"] = context
    return make_module(root, files, name)


def injected(user: str, call: str) -> dict[str, Any]:
    """The child envelope the runtime put in place of `@call:...` in the parent's prompt."""
    m = re.search(re.escape(f"[result of @call:{call}]") + r"\n```json\n(.*?)\n```", user, re.S)
    assert m, f"no injected result for {call} in {user[:500]!r}"
    return json.loads(m.group(1))


async def test_release_notes_calls_code_reviewer_first(tmp_path: Path, llm_server: Any) -> None:
    """The child runs (and calls the model) before the parent; the parent's prompt carries the child's envelope."""
    rn = copy_module(tmp_path, "release-notes")
    cr = copy_module(tmp_path, "code-reviewer")
    # Isolate the reviewer (RUN-7: the called module's own `context` decides) so it sees only its argument.
    manifest = cr / "module.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\ncontext: fork\n", encoding="utf-8")
    rn_input, rn_expected = golden("release-notes")
    review = model_answer(golden("code-reviewer")[1], summary="CHILD-REVIEW-SUMMARY")
    llm_server.enqueue(json.dumps(review), json.dumps(model_answer(rn_expected)))
    args = json.dumps({"diff": "+line = line.rstrip('\\r\\n')\n"})  # parentheses and escapes survive the call
    module = load_module(rn)
    chunks, result, events = await collect(
        module, rn_input, options(provider("anthropic", llm_server), args=args, resolver=resolver_for(tmp_path))
    )
    assert result.ok, result.envelope
    child_req, parent_req = llm_server.requests
    assert "`code-reviewer`" in system_text(child_req) and "`release-notes`" in system_text(parent_req)
    assert input_block(user_text(child_req)) == json.loads(args)  # fork: only the argument
    child_final = next(ev.chunk for ev in events if ev.path == ("code-reviewer",) and ev.chunk.get("final"))
    env = injected(user_text(parent_req), f"code-reviewer({args})")
    assert env["ok"] is True and env["data"] == child_final["data"] == review["data"]
    assert env["meta"]["model"] == "claude-test-model"
    assert "@call:" not in user_text(parent_req).replace(f"[result of @call:code-reviewer({args})]", "")
    assert check_stream(chunks, module) == []  # the child's chunks are not in the root stream
    stages = [c["progress"]["message"] for c in chunks if "progress" in c]
    assert any("started" in s for s in stages) and any("finished: ok" in s for s in stages)


async def test_fork_gets_empty_input_main_gets_the_parents(tmp_path: Path, llm_server: Any) -> None:
    mk(tmp_path, "kid-main")
    mk(tmp_path, "kid-fork", context="fork")
    mk(tmp_path, "kid-obj", context="main")
    parent = load_module(
        mk(
            tmp_path,
            "parent",
            ["kid-main()", "kid-fork()", 'kid-fork({"extra": 1})', 'kid-obj({"text": "overridden", "more": true})'],
        )
    )
    llm_server.enqueue(*[answer(rationale=f"r{i}") for i in range(5)])
    parent_input = {"text": "PARENT-INPUT", "n": 7}
    result = await run_module(
        parent, parent_input, options(provider("openai", llm_server), resolver=resolver_for(tmp_path))
    )
    assert result.ok, result.envelope
    reqs = llm_server.requests
    assert len(reqs) == 5
    assert input_block(user_text(reqs[0])) == parent_input  # main: the caller's input
    assert input_block(user_text(reqs[1])) == {}  # fork: an empty input
    assert input_block(user_text(reqs[2])) == {"extra": 1}  # fork + a JSON-object argument
    assert input_block(user_text(reqs[3])) == {"text": "overridden", "n": 7, "more": True}  # merged on top
    assert b"PARENT-INPUT" not in reqs[1].raw_body and b"PARENT-INPUT" not in reqs[2].raw_body
    parent_text = user_text(reqs[4])
    assert injected(parent_text, "kid-main()")["data"]["rationale"] == "r0"
    assert injected(parent_text, 'kid-fork({"extra": 1})')["data"]["rationale"] == "r2"


async def test_a_failing_child_is_injected_not_raised(tmp_path: Path, llm_server: Any) -> None:
    mk(tmp_path, "flaky")
    parent = load_module(mk(tmp_path, "parent", ["flaky()"]))
    llm_server.enqueue("not json at all", answer())
    result = await run_module(
        parent, {"text": "x"}, options(provider("openai", llm_server), resolver=resolver_for(tmp_path))
    )
    assert result.ok
    child_env = injected(user_text(llm_server.requests[1]), "flaky()")
    assert_failure(child_env, "E1000")


# ---------------------------------------------------------------- the call graph


def chain(root: Path, n: int) -> Path:
    """m0 → m1 → ... → m{n-1}; returns m0."""
    for i in range(n):
        mk(root, f"m{i}", [f"m{i + 1}()"] if i < n - 1 else [])
    return root / "m0"


async def test_depth_five_is_allowed(tmp_path: Path) -> None:
    top = load_module(chain(tmp_path, 6))  # m0 at depth 0 calls down to m5 at depth 5
    _, result, events = await collect(
        top, {"text": "The app crashes on start"}, options(replay(), resolver=resolver_for(tmp_path))
    )
    assert result.ok, result.envelope
    assert ("m1", "m2", "m3", "m4", "m5") in {ev.path for ev in events}


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_depth_over_five_is_e4005_before_any_call(tmp_path: Path, llm_server: Any, proto: str) -> None:
    top = load_module(chain(tmp_path, 7))
    llm_server.enqueue(*[answer()] * 7)
    result = await run_module(top, {"text": "x"}, options(provider(proto, llm_server), resolver=resolver_for(tmp_path)))
    err = assert_failure(result.envelope, "E4005")
    assert err["details"]["chain"] == [f"m{i}" for i in range(7)]
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("calls", "cycle"),
    [
        ({"a": ["b()"], "b": ["a()"]}, ["a", "b", "a"]),
        ({"a": ["a()"]}, ["a", "a"]),
        ({"a": ["b()"], "b": ["c()"], "c": ["b(again)"]}, ["b", "c", "b"]),
    ],
)
async def test_cycles_are_e4004_before_any_call(
    tmp_path: Path, llm_server: Any, calls: dict[str, list[str]], cycle: list[str]
) -> None:
    for name, its_calls in calls.items():
        mk(tmp_path, name, its_calls)
    llm_server.enqueue(*[answer()] * 4)
    result = await run_module(
        load_module(tmp_path / "a"),
        {"text": "x"},
        options(provider("openai", llm_server), resolver=resolver_for(tmp_path)),
    )
    err = assert_failure(result.envelope, "E4004")
    assert err["details"]["chain"] == cycle
    assert " → ".join(cycle) in err["message"]
    assert llm_server.requests == []


async def test_unknown_module_is_e4006_even_deep_in_the_graph(tmp_path: Path, llm_server: Any) -> None:
    mk(tmp_path, "a", ["b()"])
    mk(tmp_path, "b", ["ghost-module(x y)"])
    llm_server.enqueue(*[answer()] * 3)
    result = await run_module(
        load_module(tmp_path / "a"),
        {"text": "x"},
        options(provider("openai", llm_server), resolver=resolver_for(tmp_path)),
    )
    err = assert_failure(result.envelope, "E4006")
    assert "ghost-module" in err["message"] and err["details"]["chain"] == ["a", "b", "ghost-module"]
    assert llm_server.requests == []


async def test_no_resolver_means_every_call_is_unknown(tmp_path: Path, llm_server: Any) -> None:
    top = load_module(mk(tmp_path, "a", ["code-reviewer()"]))
    chunks, result, _ = await collect(top, {"text": "x"}, options(provider("openai", llm_server)))
    assert_failure(result.envelope, "E4006")
    assert chunks[-1]["error"]["code"] == "E4006" and check_stream(chunks, top) == []
    assert llm_server.requests == []


async def test_arguments_never_create_calls(tmp_path: Path, llm_server: Any) -> None:
    """`--args` text is substituted after the call graph was checked: it stays text, never a call."""
    files = clean_v22("echo")
    mapping_in(files, "schema.json").pop("input")
    files["prompt.md"] = PROMPT_V22 + "\nNote: $ARGUMENTS\nReview: @call:kid($1)\n"
    module = load_module(make_module(tmp_path, files, "echo"))
    mk(tmp_path, "kid", context="fork")
    llm_server.enqueue(answer(rationale="kid"), answer(rationale="parent"))
    args = "@call:ghost() @call:echo(again) @call:kid()"
    result = await run_module(
        module, {"text": "x"}, options(provider("openai", llm_server), args=args, resolver=resolver_for(tmp_path))
    )
    assert result.ok, result.envelope
    kid_req, parent_req = llm_server.requests  # only the module's own call ran
    assert user_text(kid_req).endswith("```json\n{}\n```\n")
    assert "$ARGUMENTS" not in user_text(kid_req)
    text = user_text(parent_req)
    assert f"Note: {args}" in text
    assert injected(text, "kid(@call:echo(again))")["data"]["rationale"] == "kid"


async def test_children_share_the_parents_deadline(tmp_path: Path, llm_server: Any) -> None:
    """Issue 11: an @call child spends the run's one deadline (RUN-12); it does not start a budget of its own.

    Each child's answer drips for at least 1.8 s, well inside a 3 s deadline on its own; together they
    cannot fit, so the second child and then the parent end with E2002 instead of the run taking 3.6 s+.
    """
    mk(tmp_path, "slow-a")
    mk(tmp_path, "slow-b")
    parent = load_module(mk(tmp_path, "parent", ["slow-a()", "slow-b()"]))
    drip = [text(answer(rationale=f"child {i}"), chunk_size=10, delay=0.15) for i in range(2)]
    assert all(len(d.body) >= 120 for d in drip)  # 12 pieces or more: at least 1.8 s each
    llm_server.enqueue(*drip, answer(rationale="parent"))
    opts = options(provider("openai", llm_server), resolver=resolver_for(tmp_path), deadline=3.0)
    _, result, events = await collect(parent, {"text": "x"}, opts)
    error = assert_failure(result.envelope, "E2002")
    assert "deadline of 3 s" in error["message"]
    ends = {ev.path: ev.chunk for ev in events if ev.path and (ev.chunk.get("final") or "error" in ev.chunk)}
    assert ends[("slow-a",)].get("final") is True  # 1.8 s of the 3 s: done
    assert ends[("slow-b",)]["error"]["code"] == "E2002"  # its own 3 s would have let it finish at 3.6 s


# ---------------------------------------------------------------- the CLI's resolver: the search path


MODULES = Path(__file__).resolve().parents[1] / "modules"


def test_workspace_finds_a_module_by_name_or_says_none() -> None:
    ws = Workspace.from_environment([MODULES])
    found = ws.find("code-reviewer")
    assert found is not None and found.path == (MODULES / "code-reviewer").resolve()
    assert ws.find("no-such-module") is None


@pytest.mark.parametrize(
    "command", [["run", "--input", str(MODULES / "release-notes/tests/case1.input.json")], ["eval"]]
)
def test_cli_commands_run_an_at_call_child_from_the_search_path(tmp_path: Path, command: list[str]) -> None:
    """release-notes' prompt calls code-reviewer: `cogn run` and `cogn eval` find it on the search path."""
    head, *rest = command
    proc = run_cogn([head, "release-notes", *rest, "--path", str(MODULES), "--no-history"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not on the search path" not in proc.stdout + proc.stderr
