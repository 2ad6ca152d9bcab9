"""`./cognitive/modules`, where SPEC-v2.5's examples put modules, is not on the search path (SPEC-v0.1's project
folder is `./.cognitive/modules`): modules put there are named, with how to add them, wherever an empty or partial
search path is shown (PATH-4)."""

from __future__ import annotations

from pathlib import Path

import cli_json
from modkit import clean_v22, make_module, run_cogn

from cogtui.core.module.discovery import SearchPath, discover, unsearched_modules

HOW = "add it with `--path cognitive/modules` or COGNITIVE_MODULES_PATH=cognitive/modules"


def _project(tmp_path: Path) -> Path:
    """A project folder with one module in cognitive/modules (no dot) and nothing on the search path."""
    project = tmp_path / "project"
    make_module(project / "cognitive" / "modules", clean_v22("reviewer"), "reviewer")
    (tmp_path / "home").mkdir()
    return project


def test_the_folder_is_found_only_when_it_holds_modules_the_search_path_misses(tmp_path: Path) -> None:
    project = _project(tmp_path)
    home = tmp_path / "home"
    found = unsearched_modules(SearchPath.from_environment(cwd=project, home=home, env={}))
    assert found is not None and found.path == project / "cognitive" / "modules" and found.modules == 1
    assert "not on the search path" in found.note and HOW in found.note
    for on_path in (
        SearchPath.from_environment(["cognitive/modules"], cwd=project, home=home, env={}),
        SearchPath.from_environment(cwd=project, home=home, env={"COGNITIVE_MODULES_PATH": "./cognitive/modules"}),
    ):
        assert unsearched_modules(on_path) is None and discover(on_path).winners  # searched: nothing to say
    (project / "cognitive" / "modules" / "reviewer" / "module.yaml").unlink()  # a folder without modules
    assert unsearched_modules(SearchPath.from_environment(cwd=project, home=home, env={})) is None


def test_doctor_calls_it_a_problem_when_no_module_is_found(tmp_path: Path) -> None:
    project = _project(tmp_path)
    proc = run_cogn(["doctor"], cwd=project, home=tmp_path / "home")
    assert proc.returncode == 1  # it used to say "no problems" with 0 modules
    assert "0 modules" in proc.stdout and HOW in proc.stdout
    assert f"✗ {project / 'cognitive' / 'modules'} holds 1 module, but it is not on the search path" in proc.stdout
    make_module(project / ".cognitive" / "modules", clean_v22("other"), "other")
    proc = run_cogn(["doctor"], cwd=project, home=tmp_path / "home")
    assert f"⚠ {project / 'cognitive' / 'modules'} holds 1 module" in proc.stdout  # a note beside found modules


def test_list_and_an_empty_all_say_where_the_modules_are(tmp_path: Path) -> None:
    project = _project(tmp_path)
    listed = run_cogn(["list"], cwd=project, home=tmp_path / "home")
    assert "No modules found." in listed.stdout and HOW in listed.stdout
    assert (
        cli_json.document(run_cogn(["list", "--json"], cwd=project, home=tmp_path / "home").stdout, "list")["modules"]
        == []
    )
    validated = run_cogn(["validate", "--all"], cwd=project, home=tmp_path / "home")
    assert validated.returncode == 1 and "no modules on the search path" in validated.stderr
    assert HOW in validated.stderr
    added = run_cogn(["--path", "cognitive/modules", "list"], cwd=project, home=tmp_path / "home")
    assert "reviewer" in added.stdout and "not on the search path" not in added.stdout
