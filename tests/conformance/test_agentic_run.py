"""Web-search runs scored by bfcl-eval's own agentic checker: the same verdicts as ours.

`bfcl-action run` asks the official `web_search_base` and `web_search_no_snippet` entries
(200 conversations) of a scripted model that searches a local SerpAPI-compatible endpoint,
reads the first result's local page and answers with the page's last line. The pages hold
the expected answer as is, reworded, glued into a word, or not at all, and some are refused
by the fence (the model then answers that it could not read them). The result files we write
are scored by bfcl-eval's evaluation functions and by `bfcl-action score`: the same entries
fail with the same error types, and the run's own verdicts agree. Runs where the official
package is installed (`nox -s conformance`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.dataset import load_dataset
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.web_search import SearchBackend
from bfcl_action.results.results_io import write_result_files
from bfcl_action.runner import RunOptions, run_evaluation
from tests.conformance.official import FC_DOT_MODEL, PROMPT_MODEL, differing_ids, official_evaluate
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options
from tests.support.web_search import WebServer, researcher

pytestmark = pytest.mark.conformance
pytest.importorskip("bfcl_eval")

WEB_SEARCH = ["web_search_base", "web_search_no_snippet"]
MODELS = {"fc": FC_DOT_MODEL, "prompt": PROMPT_MODEL}


def _page(case: TestCase, rng: random.Random) -> tuple[str, bool]:
    """A page for the case's question, and whether the fetcher may read it."""
    answer = case.answer_texts[0]
    roll = rng.random()
    if roll < 0.35:
        text = f"The answer is {answer}."
    elif roll < 0.5:
        text = f"It is {answer.upper().replace(' ', '-')}, reportedly."
    elif roll < 0.6:
        text = f"Seen as x{answer}x."
    elif roll < 0.75:
        text = "Nobody knows."
    elif roll < 0.85:
        text = f"({answer})"
    else:
        return f"<p>The answer is {answer}.</p>", False  # refused: the model cannot read it
    return f"<h1>Notes</h1><script>var a = 1;</script><p>{text}</p>", True


@pytest.fixture(scope="module", params=["fc", "prompt"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def run_dirs(mode: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    cases = load_dataset("bfcl@2026.3.23", WEB_SEARCH)
    rng = random.Random(3030)
    root = tmp_path_factory.mktemp("agentic_run") / MODELS[mode]
    with WebServer() as web, OpenAIServer() as model:
        allowed = f"127.0.0.1:{web.port}"
        for index, case in enumerate(cases):
            html, readable = _page(case, rng)
            name = f"p{index}"
            web.pages[name] = html
            key = str(case.question[0][0].content).lower()
            link = web.page_url(name) if readable else f"http://localhost:{web.port}/pages/{name}"
            web.results[key] = [{"title": "Notes", "link": link, "snippet": "notes"}]
        model.responder = researcher(prompt=mode == "prompt")
        opts = RunOptions(
            backend=options(model, Mode(mode), timeout=10.0, concurrency=8),
            multi_turn=ExecutionOptions(
                search=SearchBackend(endpoint=web.endpoint, allow=(allowed,))
            ),
        )
        report, _ = run_evaluation(cases, opts)
    assert not [r for r in report.results if r.infra_error], "every conversation got answers"
    write_result_files(report.results, root)

    official = tmp_path_factory.mktemp("agentic_run_official")
    official_evaluate(root, official, mode, leaderboard=False)
    mine = tmp_path_factory.mktemp("agentic_run_ours")
    args = ["score", "--results", str(root), "--model-name", MODELS[mode]]
    assert main([*args, "--bfcl-score-dir", str(mine)]) == 0
    yield {"report": report, "official": official, "mine": mine}


def test_bfcl_eval_scores_our_result_files_as_we_do(run_dirs: dict[str, Any]) -> None:
    official, mine = run_dirs["official"], run_dirs["mine"]
    for category in WEB_SEARCH:
        assert (official / "agentic" / f"BFCL_v4_{category}_score.json").is_file() or any(
            official.rglob(f"BFCL_v4_{category}_score.json")
        )
    assert not differing_ids(official, mine)


def test_the_runs_own_verdicts_are_bfcl_evals(run_dirs: dict[str, Any]) -> None:
    failing: dict[str, str] = {}
    for path in run_dirs["official"].rglob("BFCL_v4_web_search_*_score.json"):
        _header, *rows = [json.loads(line) for line in path.read_text().splitlines()]
        failing.update({row["id"]: row["error"]["error_type"] for row in rows})
    ours = {r.id: r.error_type for r in run_dirs["report"].results if not r.valid}
    assert ours == failing
    kinds = set(failing.values())
    assert "agentic:answer_not_found" in kinds  # the mix exercised failures, and passes:
    assert len(failing) < len(run_dirs["report"].results)


# --- memory (kv, rec_sum, vector): the real prerequisite chains, then the questions ---

MEMORY = ["memory_kv", "memory_rec_sum", "memory_vector"]


def _knower(answers: dict[str, str], seed: int) -> Any:
    """Answers a memory question right, reworded, wrong or not at all (by a seeded roll per
    question); acknowledges everything else (the prerequisite conversations)."""
    rolls: dict[str, float] = {}
    rng = random.Random(seed)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        user = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
        question = user[0] if user else ""
        if question not in answers:
            return {"content": "Noted."}
        roll = rolls.setdefault(question, rng.random())
        answer = answers[question]
        if roll < 0.4:
            return {"content": f"{{'answer': '{answer}', 'context': 'memory'}}"}
        if roll < 0.6:
            return {"content": f"It is {answer.upper()}."}
        if roll < 0.8:
            return {"content": "{'answer': 'I do not know', 'context': 'I do not know'}"}
        return {"content": f"x{answer}x"}

    return reply


@pytest.fixture(scope="module")
def memory_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cases = load_dataset("bfcl@2026.3.23", MEMORY)
    answers = {str(c.question[0][0].content): c.answer_texts[0] for c in cases}
    root = tmp_path_factory.mktemp("memory_run") / MODELS["fc"]
    with OpenAIServer() as model:
        model.responder = _knower(answers, 5050)
        opts = RunOptions(
            backend=options(model, Mode.FC, timeout=10.0, concurrency=8),
            multi_turn=ExecutionOptions(embedding_model="test-embedder"),
        )
        report, _ = run_evaluation(cases, opts)
        prereq_requests = sum(
            1 for body in model.requests if str(body["messages"][1]["content"]) not in answers
        )
    assert not [r for r in report.results if r.infra_error]
    write_result_files(report.results, root)
    official = tmp_path_factory.mktemp("memory_run_official")
    official_evaluate(root, official, "fc", leaderboard=False)
    return {"report": report, "official": official, "prereq_requests": prereq_requests}


def test_bfcl_eval_scores_our_memory_result_files_as_the_run_did(
    memory_dirs: dict[str, Any],
) -> None:
    failing: dict[str, str] = {}
    for category in MEMORY:
        [path] = memory_dirs["official"].rglob(f"BFCL_v4_{category}_score.json")
        header, *rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert header["total_count"] == 155
        failing.update({row["id"]: row["error"]["error_type"] for row in rows})
    ours = {r.id: r.error_type for r in memory_dirs["report"].results if not r.valid}
    assert ours == failing
    assert 0 < len(failing) < len(memory_dirs["report"].results)
    # the prerequisite conversations ran (37 per backend, 323 user turns) and were not scored
    assert memory_dirs["prereq_requests"] >= 3 * 323  # every user turn of 37 conversations
