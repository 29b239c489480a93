"""`bfcl-action contribute`: own cases -> a scrubbed, previewed contribution, written locally;
and the round trip own case -> contribution -> `bfcl-curate build` -> `live@` run, which must
give every case the verdict it had as an own case.

The console scripts run in subprocesses with a clean environment, as a user runs them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curation.issue_forms import parse_issue_body
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "weather-app"
BIN = Path(sys.executable).parent
CHOSEN = [
    "current_tokyo",
    "multi_current_paris",
    "irrelevant_capital",
    "relevance_weekend_plans",
    "subscribe_storm_miami",
]

REPLIES: dict[str, dict[str, Any]] = {
    "What's the weather like in Tokyo right now?": {
        "tool_calls": [{"name": "get_current_weather", "arguments": {"city": "Tokyo"}}]
    },
    "Is it raining in Paris at the moment?": {  # the wrong city: this case must fail
        "tool_calls": [{"name": "get_current_weather", "arguments": {"city": "Lyon"}}]
    },
    "What's the capital of Australia?": {"content": "Canberra."},
    "I'm planning a hike in Zermatt this weekend, can you check what the weather will do?": {
        "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Zermatt", "days": 2}}]
    },
    "Sign up ana@example.com for storm and flood alerts in Miami.": {  # a missing argument
        "tool_calls": [{"name": "subscribe_alerts", "arguments": {"email": "ana@example.com"}}]
    },
}


def _responder(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][-1]["content"]
    return REPLIES.get(text, {"content": "no idea"})


def run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "LANG": "C.UTF-8", **(env or {})}
    proc = subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert "Traceback (most recent call last)" not in proc.stdout + proc.stderr, proc.stderr
    return proc


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if not (EXAMPLE / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLE, copy)
    return copy


def _contribute(repo: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cases = [a for c in CHOSEN for a in ("--case", c)]
    return run(
        repo,
        "bfcl-action",
        "contribute",
        *cases,
        "--license",
        "CC-BY-4.0",
        "--publish-handle",
        "yes",
        "--contributor",
        "alice",
        *extra,
    )


def _verdicts(report: Path) -> dict[str, bool]:
    data = json.loads(report.read_text())
    out = {}
    for result in data["results"]:
        question = result["question"]
        text = question if isinstance(question, str) else json.dumps(question)
        out[next(q for q in REPLIES if q in text)] = result["valid"]
    return out


def test_an_own_case_keeps_its_verdict_through_contribution_curation_and_release(
    repo: Path,
) -> None:
    made = _contribute(repo, "--output", "contribution.jsonl")
    assert made.returncode == 0, made.stderr
    built = run(
        repo,
        "bfcl-curate",
        "build",
        "--input",
        "contribution.jsonl",
        "--live-dir",
        "live",
        "--version",
        "2026-W51",
        "--reference",
        "none",
    )
    assert built.returncode == 0, built.stderr
    manifest = json.loads((repo / "live" / "releases" / "2026-W51" / "MANIFEST.json").read_text())
    assert sum(manifest["categories"].values()) == len(CHOSEN)
    with OpenAIServer() as model:
        model.responder = _responder
        common = ["--model", "m", "--base-url", model.base_url, "--timeout", "5"]
        ids = "^(" + "|".join(CHOSEN) + ")$"
        own = run(
            repo,
            "bfcl-action",
            "run",
            "--config",
            ".bfcl.yml",
            "--ids",
            ids,
            *common,
            "--output",
            "own.json",
        )
        assert own.returncode in (0, 1), own.stderr
        live = run(
            repo,
            "bfcl-action",
            "run",
            "--dataset",
            "live@2026-W51",
            *common,
            "--output",
            "live.json",
            env={"BFCL_ACTION_LIVE_DIR": str(repo / "live")},
        )
        assert live.returncode in (0, 1), live.stderr
    own_verdicts, live_verdicts = _verdicts(repo / "own.json"), _verdicts(repo / "live.json")
    assert len(own_verdicts) == len(CHOSEN)
    assert live_verdicts == own_verdicts
    assert sorted(own_verdicts.values()) == [False, False, True, True, True]
    categories = {r["category"] for r in json.loads((repo / "live.json").read_text())["results"]}
    assert categories == {"live_simple", "live_multiple", "live_irrelevance", "live_relevance"}


def _with_support_address(repo: Path) -> None:
    tools = repo / "tools" / "openai_tools.json"
    text = tools.read_text()
    assert "Current weather" in text or "current weather" in text
    data = json.loads(text)
    for tool in data:
        fn = tool.get("function", tool)
        if fn["name"] == "get_current_weather":
            fn["description"] += " Questions about this tool go to dana.k@proton.me."
    tools.write_text(json.dumps(data, indent=2))


def test_the_preview_shows_what_scrubbing_changed_and_the_file_holds_the_scrubbed_form(
    repo: Path,
) -> None:
    _with_support_address(repo)
    made = run(
        repo,
        "bfcl-action",
        "contribute",
        "--case",
        "current_tokyo",
        "--license",
        "MIT",
        "--publish-handle",
        "no",
        "--contributor",
        "alice",
    )
    assert made.returncode == 0, made.stderr
    out = made.stdout.replace("\u200d", "")
    assert "current_tokyo: scrubbing replaced 1 email:" in out
    assert "--- own case current_tokyo" in out
    assert any(line.startswith("-") and "dana.k@proton.me" in line for line in out.splitlines())
    assert any(line.startswith("+") and "user1@example.com" in line for line in out.splitlines())
    (written,) = (repo / "bfcl-contribution.jsonl").read_text().splitlines()
    entry = json.loads(written)
    assert "proton.me" not in written
    assert entry["publish_handle"] is False and entry["license"] == "MIT"


def test_licence_and_consent_must_be_given_explicitly(repo: Path) -> None:
    proc = run(repo, "bfcl-action", "contribute", "--case", "current_tokyo", "--contributor", "a")
    assert proc.returncode == 2
    assert "--license" in proc.stderr and "--publish-handle" in proc.stderr
    assert not (repo / "bfcl-contribution.jsonl").exists()


def test_issue_form_bodies_read_back_as_the_same_contributions(repo: Path) -> None:
    made = _contribute(repo, "--format", "issue", "--output", "issues")
    assert made.returncode == 0, made.stderr
    bodies = sorted((repo / "issues").glob("*.md"))
    assert [b.stem for b in bodies] == sorted(CHOSEN)
    made_file = _contribute(repo, "--output", "contribution.jsonl")
    assert made_file.returncode == 0, made_file.stderr
    rows = [json.loads(line) for line in (repo / "contribution.jsonl").read_text().splitlines()]
    by_question = {r["question"]: r for r in rows}
    for body in bodies:
        raw = parse_issue_body(body.read_text())
        expected = by_question[raw["question"]]
        assert raw["ground_truth"] == expected["ground_truth"]
        assert raw["functions"] == expected["functions"]
        assert raw["license"] == "CC-BY-4.0" and raw["publish_handle"] is True
        assert raw.get("category") == expected.get("category")


def test_a_case_that_cannot_be_contributed_stops_everything(repo: Path) -> None:
    cases = repo / "cases" / "keys.yml"
    cases.write_text(
        "- id: leaked_key\n"
        '  question: "Use -----BEGIN PRIVATE KEY----- to fetch the weather in Oslo"\n'
        "  tools: [get_current_weather]\n"
        "  expect:\n"
        "    - get_current_weather: {city: Oslo}\n"
    )
    proc = run(
        repo,
        "bfcl-action",
        "contribute",
        "--case",
        "leaked_key",
        "--case",
        "current_tokyo",
        "--license",
        "MIT",
        "--publish-handle",
        "no",
        "--contributor",
        "alice",
    )
    assert proc.returncode == 2
    assert "leaked_key: cannot be contributed: private_key" in proc.stdout
    assert "1 of 2 cases cannot be contributed" in proc.stderr
    assert not (repo / "bfcl-contribution.jsonl").exists()


def test_an_unknown_case_id_is_named(repo: Path) -> None:
    proc = run(
        repo,
        "bfcl-action",
        "contribute",
        "--case",
        "nope",
        "--license",
        "MIT",
        "--publish-handle",
        "no",
        "--contributor",
        "alice",
    )
    assert proc.returncode == 2
    assert "no own case with id nope" in proc.stderr


def test_contribute_needs_no_curation_extra(repo: Path) -> None:
    """A plain `pip install bfcl-action` has no datasketch; contributing must not need it."""
    script = (
        "import sys; sys.modules['datasketch'] = None\n"
        "from bfcl_action.cli import main\n"
        "sys.exit(main(['contribute', '--case', 'current_tokyo', '--license', 'MIT',"
        " '--publish-handle', 'no', '--contributor', 'alice']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=repo,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(repo)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (repo / "bfcl-contribution.jsonl").is_file()
