"""Hypothesis profiles: `make test` and CI run the same examples every time; `make fuzz` explores.

A pytest plugin (tests/conftest.py loads it; `-p hypothesis_profiles` loads it in a pytest of its own). The
profile is loaded when this module is imported, before any test module builds its `settings(...)` (a settings
object takes the values it does not name from the profile active when it is built).

- **gate** (the default): derandomized, so a test's examples are a function of the test itself and the gate
  is red only when the code changed; no example database, so a failure found on another run (or machine)
  never replays here; no deadline and no `too_slow` health check, because both measure time and a loaded
  machine would fail them by chance. A failure prints its `@reproduce_failure` blob.
- **fuzz** (`make fuzz`, `pytest --hypothesis-profile=fuzz`): random examples, FUZZ_SCALE times as many per
  test, and the example database in `.hypothesis/` (git-ignored) so a failure found replays on the next
  fuzz run. A case fuzzing finds becomes an `@example(...)` on its test (AGENTS.md, "Checks").

Every property test declares its settings with `property_settings(n)`. While the tests run, each example
checks that its test holds to the active profile (`hold_to_profile`): a test that sets its own seed policy,
database, deadline or health checks fails, naming what differs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings

GATE, FUZZ = "gate", "fuzz"
FUZZ_SCALE = 20
TIMED = (HealthCheck.too_slow,)  # the health checks that measure time

settings.register_profile(
    GATE, derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=TIMED
)
settings.register_profile(
    FUZZ, derandomize=False, deadline=None, max_examples=100 * FUZZ_SCALE, suppress_health_check=TIMED
)
settings.load_profile(GATE)  # `--hypothesis-profile=fuzz` loads fuzz after this (Hypothesis's own plugin)


def property_settings(n: int, *, shared_fixtures: bool = False) -> settings:
    """A property test's settings: n examples under the gate, FUZZ_SCALE x n under fuzz. `shared_fixtures`
    when the test uses a function-scoped fixture (a server, a store) on purpose for all its examples."""
    fuzzing = settings.get_current_profile_name() == FUZZ
    checks = [*TIMED, HealthCheck.function_scoped_fixture] if shared_fixtures else list(TIMED)
    return settings(max_examples=n * FUZZ_SCALE if fuzzing else n, suppress_health_check=checks)


def profile_problems(active: settings) -> list[str]:
    """How the settings a test runs with differ from the active profile's seed, database and timing."""
    name = settings.get_current_profile_name()
    profile = settings.get_profile(name)
    problems = []
    if active.derandomize != profile.derandomize:
        problems.append(f"derandomize={active.derandomize} (profile {name!r}: {profile.derandomize})")
    if (active.database is None) != (profile.database is None):
        problems.append(f"database={active.database!r} (profile {name!r}: {profile.database!r})")
    if active.deadline is not None:
        problems.append(f"deadline={active.deadline} (a time limit fails by chance on a loaded machine)")
    if not set(TIMED) <= set(active.suppress_health_check):
        problems.append("the too_slow health check is on (it measures time): use property_settings(n)")
    return problems


def held(inner: Callable[..., Any]) -> Callable[..., Any]:
    """`inner` (a @given test's body, run once per example) preceded by the profile check. While an example
    runs, `settings.default` is the settings of its test (Hypothesis sets it around each example)."""

    @functools.wraps(inner)
    def run(*args: Any, **kwargs: Any) -> Any:
        active = settings.default
        assert active is not None, "Hypothesis sets the settings of each example's test around it"
        problems = profile_problems(active)
        if problems:
            raise AssertionError("this property test does not run under its profile: " + "; ".join(problems))
        return inner(*args, **kwargs)

    run.held_to_profile = True  # type: ignore[attr-defined]  # wrap once per process
    return run


def hold_to_profile(items: list[pytest.Item]) -> None:
    """Every collected @given test checks its settings against the profile before each example. Its body is
    Hypothesis's documented reassignable `.hypothesis.inner_test`."""
    for item in items:
        test = getattr(item, "obj", None)
        if test is None or not is_hypothesis_test(test):
            continue
        handle = test.hypothesis
        if not getattr(handle.inner_test, "held_to_profile", False):
            handle.inner_test = held(handle.inner_test)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    hold_to_profile(items)
