"""`bfcl-action generate` end to end against the local OpenAI-compatible server.

The scripted proposer (tests/fixtures/generate/script.json) answers with good candidates and
every bad kind; the scripted verify model agrees with some and not others.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from bfcl_action.cases.own import load_cases
from bfcl_action.checker import check_calls
from bfcl_action.checker.answers import concrete_calls
from bfcl_action.cli import main
from bfcl_action.tools.load import load_tools
from tests.support.generate_script import load_script, responder
from tests.support.openai_server import OpenAIServer

FIXTURE = Path(__file__).parents[1] / "fixtures" / "generate"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        srv.responder = responder(load_script(FIXTURE / "script.json"))
        yield srv


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    (root / "bfcl.yml").rename(root / ".bfcl.yml")
    (root / "script.json").unlink()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return root


def generate(repo: Path, server: OpenAIServer, *extra: str) -> int:
    return main(
        [
            "generate",
            "--config",
            str(repo / ".bfcl.yml"),
            "--base-url",
            server.base_url,
            "--cache",
            str(repo / ".cache"),
            "--per-tool",
            "10",
            "--quiet",
            *extra,
        ]
    )


def report_lines(out: str) -> dict[str, str]:
    return {line.split(":")[0]: line for line in out.splitlines() if ": proposed" in line}


def test_each_bad_kind_is_dropped_with_its_reason(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server) == 0
    lines = report_lines(capsys.readouterr().out)
    weather = lines["get_weather"]
    assert "proposed 16, kept 3, for review 2, dropped 11" in weather
    for reason in (
        "unknown_function 1",
        "unknown_argument 1",
        "mistyped_argument 1",
        "outside_enum 1",
        "missing_required 1",
        "hallucinated 1",
        "duplicate 2",
        "hostile_text 2",
        "malformed_json 1",
    ):
        assert reason in weather, reason
    assert "kept 2, for review 0, dropped 0" in lines["get_air_quality"]
    assert "unpassable 1" in lines["plan_route"]
    assert "kept 0" in lines["send_alert"] and "refusal" in lines["send_alert"]
    assert "kept 0" in lines["get_uv_index"] and "malformed_json" in lines["get_uv_index"]


def test_every_kept_case_validates_and_passes_the_checker(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server) == 0
    assert main(["validate", "--config", str(repo / ".bfcl.yml")]) == 0
    tools = load_tools(["tools.json"], base_dir=repo).functions
    cases = load_cases(["cases/generated.yml"], base_dir=repo, tools=tools)
    assert sorted(c.question[0][0].content or "" for c in cases) == sorted(
        [
            "What's the weather in Tokyo in celsius?",
            "Weather in Paris and in Rome, please.",
            "Book me a flight to Tokyo next Friday.",
            "How bad is the PM2.5 pollution in Delhi?",
            "Ozone (O3) levels in Mexico City right now?",
        ]
    )
    for case in cases:
        assert check_calls(case, concrete_calls(case.possible_answer)).valid, case.id
    data = YAML(typ="safe").load((repo / "cases" / "generated.yml").read_text())
    for entry in data["cases"]:
        assert entry["id"].startswith("gen_")
        assert entry["provenance"] == {
            "generator": "scripted-model",
            "verify_model": "scripted-model",
            "prompt_version": "1",
            "seed": 0,
            "checks": ["format", "grounding", "agreement"],
        }


def test_the_review_file_holds_the_disagreements_side_by_side(
    repo: Path, server: OpenAIServer
) -> None:
    assert generate(repo, server) == 0
    review = (repo / "cases" / "generated.review.md").read_text()
    assert len(re.findall(r"^## \d+\. ", review, re.MULTILINE)) == 2
    oslo = review[review.index("Give me the 3 day forecast for Oslo.") :]
    assert '"get_air_quality"' in oslo.split("## ")[0]
    assert "wrong_func_name" in oslo.split("## ")[0]
    assert "What's the pollen count in Berlin today?" in review
    assert "irrelevance_error" in review


def test_the_review_file_lists_every_dropped_draft_as_code(
    repo: Path, server: OpenAIServer
) -> None:
    assert generate(repo, server) == 0
    review = (repo / "cases" / "generated.review.md").read_text()
    dropped = review[review.index("## Dropped drafts") :]
    assert "| hallucinated | `What's the weather in Madrid?` |" in dropped
    assert "`Weather in Lima? <img src=x onerror=alert(1)>`" in dropped
    assert dropped.count("| `get_weather` |") == 11


def test_a_rerun_with_the_cache_makes_no_request_and_the_same_files(
    repo: Path, server: OpenAIServer
) -> None:
    assert generate(repo, server) == 0
    first = (repo / "cases" / "generated.yml").read_bytes()
    first_review = (repo / "cases" / "generated.review.md").read_bytes()
    asked = server.count
    assert asked > 0
    assert generate(repo, server) == 0
    assert server.count == asked
    assert (repo / "cases" / "generated.yml").read_bytes() == first
    assert (repo / "cases" / "generated.review.md").read_bytes() == first_review


def test_the_proposer_is_asked_with_a_strict_json_schema(repo: Path, server: OpenAIServer) -> None:
    assert generate(repo, server) == 0
    proposals = [b for b in server.requests if "tools" not in b]
    assert len(proposals) == 5
    for body in proposals:
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["strict"] is True
        assert body["temperature"] == 0.7


def test_without_structured_outputs_it_falls_back_to_plain_json_once(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.structured_outputs = False
    assert generate(repo, server) == 0
    out = capsys.readouterr().out
    assert "kept 3" in report_lines(out)["get_weather"]
    asked = server.count
    assert generate(repo, server) == 0
    assert server.count == asked


def test_hand_written_cases_are_never_overwritten(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (repo / "cases" / "hand.yml").read_bytes()
    assert generate(repo, server, "--output", "cases/hand.yml") == 2
    assert "never overwritten" in capsys.readouterr().err
    assert (repo / "cases" / "hand.yml").read_bytes() == before
    assert server.count == 0


def test_the_estimate_is_printed_before_any_request(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server, "--dry-run", "--price", "0.15,0.6") == 0
    out = capsys.readouterr().out
    assert "5 propose requests (0 cached)" in out and "$" in out
    assert server.count == 0


def test_max_requests_below_the_propose_requests_stops_before_asking(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server, "--max-requests", "3") == 2
    assert "5 propose requests needed" in capsys.readouterr().err
    assert server.count == 0


def test_max_requests_leaves_later_candidates_unverified(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server, "--max-requests", "7") == 0
    out = capsys.readouterr().out
    assert server.count == 7
    assert "no_answer" in out


def test_tools_and_categories_limit_what_is_asked(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = generate(repo, server, "--tools", "get_weather", "--categories", "simple,parallel")
    assert code == 0
    lines = report_lines(capsys.readouterr().out)
    assert list(lines) == ["get_weather"]
    assert "wrong_kind" in lines["get_weather"]  # multiple and irrelevance were not asked for
    prompt = next(b for b in server.requests if "tools" not in b)["messages"][1]["content"]
    assert "kind simple" in prompt and "kind irrelevance" not in prompt


def test_per_tool_caps_the_kept_cases_and_spreads_kinds(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "generate",
                "--config",
                str(repo / ".bfcl.yml"),
                "--base-url",
                server.base_url,
                "--cache",
                str(repo / ".cache2"),
                "--per-tool",
                "2",
                "--quiet",
                "--tools",
                "get_weather",
            ]
        )
        == 0
    )
    data: dict[str, Any] = YAML(typ="safe").load((repo / "cases" / "generated.yml").read_text())
    assert [c["category"] for c in data["cases"]] == ["simple", "parallel"]
    verify_requests = [b for b in server.requests if "tools" in b]
    assert len(verify_requests) == 3  # Tokyo agrees, Oslo disagrees, then Paris/Rome agrees


def test_unknown_tool_names_are_an_error(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(repo, server, "--tools", "get_wether") == 2
    assert "unknown tool 'get_wether'" in capsys.readouterr().err


def test_the_api_key_reaches_no_file(repo: Path, server: OpenAIServer) -> None:
    assert generate(repo, server) == 0
    for path in (repo / "cases").iterdir():
        assert "sk-test-not-a-real-key" not in path.read_text()
    assert json.dumps(server.requests).count("sk-test") == 0


def test_init_generate_drafts_cases_for_a_new_repository(
    tmp_path: Path,
    server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "new"
    (root / "tools").mkdir(parents=True)
    shutil.copy(FIXTURE / "tools.json", root / "tools" / "tools.json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    assert main(["init", "--dir", str(root), "--model", "scripted-model", "--generate", "3"]) == 0
    out = capsys.readouterr().out
    assert "get_weather: proposed" in out
    assert main(["validate", "--config", str(root / ".bfcl.yml")]) == 0
    assert "gen_get_weather_" in (root / "cases" / "generated.yml").read_text()


def test_init_generate_without_a_key_prints_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "new"
    (root / "tools").mkdir(parents=True)
    shutil.copy(FIXTURE / "tools.json", root / "tools" / "tools.json")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["init", "--dir", str(root), "--generate", "3"]) == 0
    out = capsys.readouterr().out
    assert f"bfcl-action generate --config {root / '.bfcl.yml'} --per-tool 3" in out
    assert not (root / "cases").exists()
    assert main(["validate", "--config", str(root / ".bfcl.yml")]) == 0


def test_the_command_module_loads_no_model_client() -> None:
    import subprocess
    import sys

    code = "import sys, bfcl_action.commands.generate; print('openai' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_example_generated_cases_are_what_generate_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = Path(__file__).parents[2] / "examples" / "weather-app"
    copy = tmp_path / "weather-app"
    shutil.copytree(example, copy)
    # a repository of its own: config paths may not leave the repository (docs/security.md)
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-scripted")
    with OpenAIServer() as srv:
        srv.responder = responder(load_script(example / "generate" / "script.json"))
        code = main(
            [
                "generate", "--config", str(copy / "generate.bfcl.yml"),
                "--base-url", srv.base_url, "--cache", str(tmp_path / "cache"),
                "--per-tool", "3", "--quiet", "--output", "generate/generated.yml",
                "--tools", "get_pollen_count,convert_temperature,get_sunrise_sunset",
            ]
        )  # fmt: skip
    assert code == 0
    for name in ("generated.yml", "generated.review.md"):
        assert (copy / "generate" / name).read_bytes() == (example / "generate" / name).read_bytes()
    assert main(["validate", "--config", str(example / "generate.bfcl.yml")]) == 0


def test_a_verify_model_other_than_the_proposer_checks_and_is_recorded(
    repo: Path, server: OpenAIServer
) -> None:
    assert generate(repo, server, "--verify-model", "checker-model") == 0
    proposers = {b["model"] for b in server.requests if "tools" not in b}
    verifiers = {b["model"] for b in server.requests if "tools" in b}
    assert proposers == {"scripted-model"} and verifiers == {"checker-model"}
    data = YAML(typ="safe").load((repo / "cases" / "generated.yml").read_text())
    assert {c["provenance"]["verify_model"] for c in data["cases"]} == {"checker-model"}


def test_progress_lines_name_the_generate_command(
    repo: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "generate", "--config", str(repo / ".bfcl.yml"), "--base-url", server.base_url,
            "--cache", str(repo / ".cache"), "--per-tool", "2", "--tools", "get_weather",
        ]
    )  # fmt: skip
    assert code == 0
    err = capsys.readouterr().err
    assert "bfcl-action generate: finished 1/1 answers" in err
    assert "bfcl-action run:" not in err
