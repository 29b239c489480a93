"""`impact`: tools at a git ref versus the working tree, and the cases that present a change."""

import json
import shutil
from pathlib import Path

import git
import pytest

from bfcl_action.cases.suites import build_cases
from bfcl_action.cli import main
from bfcl_action.commands.impact import SHOWN_IDS, id_lines
from bfcl_action.compare.git_files import tools_at_ref
from bfcl_action.compare.impact import changed_requests, options_for, tool_changes
from bfcl_action.core.errors import InputError
from bfcl_action.settings.config import load_config
from bfcl_action.tools import load_tools

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example app committed with its base tools, then head's tools in the work tree."""
    root = tmp_path / "app"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("replay", "baseline"))
    shutil.copy(EXAMPLE / "baseline" / "tools" / "openai_tools.json", root / "tools")
    r = git.Repo.init(root)
    r.git.add(A=True)
    r.index.commit("base", author=git.Actor("t", "t@example.com"))
    r.create_tag("base")
    shutil.copy(EXAMPLE / "tools" / "openai_tools.json", root / "tools")
    return root


def test_tools_at_ref_reads_committed_files_not_the_work_tree(repo: Path) -> None:
    config = load_config(repo / ".bfcl.yml")
    at_base = tools_at_ref(repo, "base", config.tools)
    now = load_tools(config.tools, base_dir=repo)
    assert at_base.files == [
        "base:tools/anthropic_tools.yaml",
        "base:tools/mcp_tools.json",
        "base:tools/openai_tools.json",
    ]
    changes = tool_changes(at_base.functions, now.functions)
    assert changes.changed == ["get_forecast"]


def test_added_and_removed_tools_are_changes(repo: Path) -> None:
    config = load_config(repo / ".bfcl.yml")
    path = repo / "tools" / "mcp_tools.json"
    data = json.loads(path.read_text())
    data["result"]["tools"][0]["name"] = "find_places"
    path.write_text(json.dumps(data))
    changes = tool_changes(
        tools_at_ref(repo, "base", config.tools).functions,
        load_tools(config.tools, base_dir=repo).functions,
    )
    assert (changes.added, changes.removed) == (["find_places"], ["search_locations"])


def test_only_cases_offering_a_changed_tool_have_a_changed_request(repo: Path) -> None:
    config = load_config(repo / ".bfcl.yml")
    head = build_cases(config, base_dir=repo, derived=False)
    base = build_cases(
        config, base_dir=repo, derived=False, tools=tools_at_ref(repo, "base", config.tools)
    )
    options = options_for(config.model)
    run_ids = {c.id for c in changed_requests(head, options, base, options)}
    assert "forecast_lisbon_5d" in run_ids  # offers get_forecast alone
    assert "multi_current_paris" in run_ids  # offers every tool
    assert "current_tokyo" not in run_ids
    offering = {c.id for c in head if "get_forecast" in [f.name for f in c.functions]}
    assert run_ids == offering


def test_a_changed_setting_changes_every_request(repo: Path) -> None:
    config = load_config(repo / ".bfcl.yml")
    cases = build_cases(config, base_dir=repo, derived=False)
    options = options_for(config.model)
    warmer = options_for(config.model.model_copy(update={"temperature": 0.7}))
    assert changed_requests(cases, options, cases, options) == []
    assert changed_requests(cases, warmer, cases, options) == cases


def test_unknown_ref_is_a_user_error(repo: Path) -> None:
    with pytest.raises(InputError, match="unknown git ref 'nope'"):
        tools_at_ref(repo, "nope", ["tools/*"])


def test_impact_command_prints_changes_and_cases(repo: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo)
    assert main(["impact", "--base-ref", "base", "--own-only", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["changes"] == {"added": [], "removed": [], "changed": ["get_forecast"]}
    assert "forecast_lisbon_5d" in out["impacted"]
    assert "current_tokyo" not in out["impacted"]


def test_impact_command_with_two_tool_directories(capsys) -> None:
    code = main(
        [
            "impact",
            "--config",
            str(EXAMPLE / ".bfcl.yml"),
            "--base-tools",
            str(EXAMPLE / "baseline"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "  changed  get_forecast" in out
    assert "Impacted cases (their model request changed): 37 of 63 (36 distinct requests" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "more" in out and "`bfcl-action impact --json` lists every impacted id" in out


def test_the_text_lists_a_screenful_of_ids_per_suite() -> None:
    ids = [f"case_{n:03}" for n in range(40)]
    lines = id_lines(ids, width=40)
    assert all(len(line) <= 41 for line in lines)
    assert lines[-1].endswith("and 28 more")
    text = " ".join(lines).split("and 28 more")[0]
    listed = [i.strip() for i in text.split(",") if i.strip()]
    assert listed == ids[:SHOWN_IDS]
    assert id_lines(["a", "b"]) == ["a, b"]


def test_no_change_means_no_impacted_case(repo: Path, capsys, monkeypatch) -> None:
    shutil.copy(EXAMPLE / "baseline" / "tools" / "openai_tools.json", repo / "tools")
    monkeypatch.chdir(repo)
    assert main(["impact", "--base-ref", "base", "--own-only"]) == 0
    assert (
        capsys.readouterr().out == "No tool definition changed since base; no case is impacted.\n"
    )


def test_changed_tools_are_written_for_the_comparison_report(tmp_path: Path) -> None:
    out = tmp_path / "changed.json"
    args = ["impact", "--config", str(EXAMPLE / ".bfcl.yml"), "--own-only"]
    assert (
        main([*args, "--base-tools", str(EXAMPLE / "baseline"), "--changed-tools-out", str(out)])
        == 0
    )
    (record,) = json.loads(out.read_text())
    assert (record["name"], record["kind"], record["summary"]) == (
        "get_forecast",
        "changed",
        "description changed",
    )
    assert record["after"]["description"] == "Get weather information for a city."


def test_impact_parses_each_pool_once_for_the_base_and_the_head(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both sides name the same dataset pools: the base's build reuses what the head's
    parsed (one source for the run), and the irrelevance and distractor pools share files."""
    from bfcl_action.cases import suites
    from tests.support.runner import LIVE

    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    config = repo / ".bfcl.yml"
    config.write_text(config.read_text().replace("[pools/pool.jsonl]", "[live@latest]"))
    git.Repo(repo).index.add([".bfcl.yml"])
    git.Repo(repo).index.commit("live pools", author=git.Actor("t", "t@example.com"))
    loads: list[tuple[str, tuple[str, ...]]] = []
    real = suites.load_pool_entries

    def counted(spec: str, categories: list[str]) -> list[object]:
        loads.append((spec, tuple(categories)))
        return real(spec, categories)  # type: ignore[return-value]

    monkeypatch.setattr(suites, "load_pool_entries", counted)
    assert main(["impact", "--config", str(config), "--base-ref", "HEAD", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["changes"]["changed"] == ["get_forecast"]
    assert any(i.startswith("own_irrelevance__live_irrelevance") for i in report["impacted"])
    assert sorted(loads) == [
        ("live@latest", ("live_irrelevance",)),
        ("live@latest", ("live_simple",)),
    ]
