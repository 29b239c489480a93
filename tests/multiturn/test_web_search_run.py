"""BFCL's web-search categories run end to end: the stand-in release's entries, the real runner
and `openai` SDK against the local model server, the search tools against a local
SerpAPI-compatible endpoint and local pages, checked by the agentic checker."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.core.categories import NOT_RUN, parse_categories
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.dataset import load_dataset, official
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.conversation import AGENTIC_ANSWER_FORMAT
from bfcl_action.multiturn.web_search import SearchBackend
from bfcl_action.results.results_io import write_result_files
from bfcl_action.runner import RunOptions, run_evaluation
from bfcl_action.runner.evaluation import check_agentic_backends, gather_cases
from bfcl_action.settings.resolve import RunSettings
from tests.support.bfcl_wheel import build_wheel, release_for
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options
from tests.support.web_search import WebServer, researcher


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = build_wheel(tmp_path / "wheels")
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))


@pytest.fixture
def web() -> Iterator[WebServer]:
    """Question 0's page holds its expected answer (Zhang Yiming), question 1's does not
    (35 is expected, the page says thirty)."""
    with WebServer() as server:
        server.pages["founder"] = "<h1>ByteDance</h1><p>It was founded by Zhang Yiming.</p>"
        server.pages["wins"] = "<h1>Season</h1><p>The team won thirty games.</p>"
        server.results["question 0"] = [server.result("Founder", "founder", "ByteDance founder")]
        server.results["question 1"] = [server.result("Wins", "wins", "Games won")]
        yield server


def backend(web: WebServer) -> SearchBackend:
    return SearchBackend(endpoint=web.endpoint, allow=(f"127.0.0.1:{web.port}",))


def run(
    server: OpenAIServer, web: WebServer, cases: list[TestCase], mode: Mode = Mode.FC
) -> dict[str, Any]:
    opts = RunOptions(
        backend=options(server, mode, timeout=5.0),
        multi_turn=ExecutionOptions(search=backend(web)),
    )
    report, _ = run_evaluation(cases, opts)
    return {r.id: r for r in report.results}


def test_a_web_search_conversation_searches_fetches_and_is_checked_on_its_answer(
    dataset: None, server: OpenAIServer, web: WebServer
) -> None:
    server.responder = researcher()
    results = run(server, web, load_dataset("bfcl@2026.3.23", ["web_search_base"]))
    good, bad = results["web_search_base_0"], results["web_search_base_1"]
    assert good.valid, good
    assert not bad.valid and bad.error_type == "agentic:answer_not_found"
    # BFCL's result shape: one turn of steps, the calls then the final text
    [[search, fetch, final]] = good.model_output
    assert [next(iter(search[0])), next(iter(fetch[0]))] == [
        "search_engine_query",
        "fetch_url_content",
    ]
    assert final == "It was founded by Zhang Yiming."
    assert web.paths().count("/search.json") == 2
    assert {"/pages/founder", "/pages/wins"} <= set(web.paths())


def test_the_model_sees_the_results_as_bfcl_renders_them(
    dataset: None, server: OpenAIServer, web: WebServer
) -> None:
    server.responder = researcher()
    cases = load_dataset("bfcl@2026.3.23", ["web_search_base", "web_search_no_snippet"])
    run(server, web, [c for c in cases if c.id.endswith("_0")])
    tool_replies = [
        m["content"] for body in server.requests for m in body["messages"] if m["role"] == "tool"
    ]
    searches = {str(ast.literal_eval(t)) for t in tool_replies if t.startswith("[")}
    with_body = [{"title": "Founder", "href": web.page_url("founder"), "body": "ByteDance founder"}]
    without = [{"title": "Founder", "href": web.page_url("founder")}]
    assert searches == {str(with_body), str(without)}
    pages = [json.loads(t) for t in tool_replies if t.startswith("{")]
    assert {"content": "ByteDance\nIt was founded by Zhang Yiming."} in pages
    offered = {t["function"]["name"] for t in server.requests[0]["tools"]}
    assert offered == {"search_engine_query", "fetch_url_content"}
    system, question = server.requests[0]["messages"][:2]
    assert system == {"role": "system", "content": AGENTIC_ANSWER_FORMAT}
    assert question["content"] == "Question 0 of web_search?"


def test_prompt_mode_runs_the_same_conversation(
    dataset: None, server: OpenAIServer, web: WebServer
) -> None:
    server.responder = researcher(prompt=True)
    results = run(
        server, web, load_dataset("bfcl@2026.3.23", ["web_search_no_snippet"]), Mode.PROMPT
    )
    assert results["web_search_no_snippet_0"].valid
    assert results["web_search_no_snippet_1"].error_type == "agentic:answer_not_found"
    [[first, _fetch, _final]] = results["web_search_no_snippet_0"].model_output
    assert first.startswith("[search_engine_query(")
    system = server.requests[0]["messages"][0]
    assert system["role"] == "system" and system["content"].endswith(AGENTIC_ANSWER_FORMAT)


def test_the_result_files_are_bfcl_evals_and_score_gives_the_same_verdicts(
    dataset: None, server: OpenAIServer, web: WebServer, tmp_path: Path
) -> None:
    server.responder = researcher()
    results = run(server, web, load_dataset("bfcl@2026.3.23", ["web_search_base"]))
    folder = tmp_path / "result" / "m-FC"
    [path] = write_result_files(list(results.values()), folder)
    assert path == folder / "agentic" / "BFCL_v4_web_search_base_result.json"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["web_search_base_0", "web_search_base_1"]
    assert rows[0]["result"] == results["web_search_base_0"].model_output
    score_dir = tmp_path / "score"
    args = ["score", "--results", str(folder), "--model-name", "m-FC", "--bfcl-score-dir"]
    assert main([*args, str(score_dir)]) == 0
    scored = score_dir / "m-FC" / "agentic" / "BFCL_v4_web_search_base_score.json"
    header, *failures = [json.loads(line) for line in scored.read_text().splitlines()]
    assert header["accuracy"] == 0.5
    assert [f["id"] for f in failures] == ["web_search_base_1"]


def test_a_web_search_run_without_a_search_backend_stops_before_any_request(
    dataset: None,
) -> None:
    cases = load_dataset("bfcl@2026.3.23", ["web_search_base"])
    settings = RunSettings(model="m", datasets=("bfcl@2026.3.23",))
    with pytest.raises(ConfigError, match=r"need a search backend: set `web_search.endpoint`"):
        check_agentic_backends(settings, cases)
    named = settings.model_copy(
        update={"search_endpoint": "http://127.0.0.1:9/s", "search_key_env": "BFCL_KEY_NOPE"}
    )
    with pytest.raises(ConfigError, match="no search key: BFCL_KEY_NOPE is not set"):
        check_agentic_backends(named, cases)
    replay = settings.model_copy(update={"model": "replay:x"})
    check_agentic_backends(replay, cases)  # a replay asks no model, so it searches nothing


def test_a_fork_pull_request_sends_no_search(
    dataset: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = tmp_path / "event.json"
    repos = {"head": {"repo": {"full_name": "fork/x"}}, "base": {"repo": {"full_name": "o/x"}}}
    event.write_text(json.dumps({"pull_request": repos}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    settings = RunSettings(model="m", search_endpoint="http://127.0.0.1:9/s")
    with pytest.raises(Exception, match="comes from a fork"):
        check_agentic_backends(settings, load_dataset("bfcl@2026.3.23", ["web_search_base"]))


def test_every_agentic_category_runs(dataset: None) -> None:
    assert NOT_RUN == {}
    settings = RunSettings(
        model="m", datasets=("bfcl@2026.3.23",), categories=("web_search_base", "memory_vector")
    )
    cases, _ = gather_cases(settings, None)
    assert {c.category for c in cases} == {"web_search_base", "memory_vector"}
    with pytest.raises(ConfigError, match="is not in the selected dataset"):
        parse_categories("memory_vector", ["simple_python"])
