"""The format-sensitivity requests `bfcl-action run` sends, against bfcl-eval's own prompt
builder: for every one of the 5,200 cases (200 entries x 26 configurations) the messages we
send must equal, character for character, what bfcl-eval's prompt-mode handlers send (its
`load_dataset_entry("format_sensitivity")` for the entries, its
`system_prompt_pre_processing_chat_model` for the system prompt). Then one entry's 26 cases
go through the whole run over HTTP, and bfcl-eval scores the result files the run wrote the
way `bfcl-action score` does. Runs where bfcl-eval is installed (`nox -s conformance`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.dataset import load_dataset, official
from bfcl_action.model.forms import case_request
from bfcl_action.model.render import FunctionRenderer
from tests.conformance.official import differing_ids, official_evaluate
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.conformance
pytest.importorskip("bfcl_eval")

SPEC = "bfcl@2026.3.23"
PROMPT_MODEL = "gpt-4o-2024-11-20"  # an official prompt-mode entry of bfcl-eval


@pytest.fixture(scope="module")
def cases() -> list[TestCase]:
    return load_dataset(SPEC, ["format_sensitivity"])


def theirs(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages bfcl-eval's prompt-mode handlers send for one of its entries."""
    from bfcl_eval.model_handler.utils import system_prompt_pre_processing_chat_model

    entry = copy.deepcopy(entry)
    return list(
        system_prompt_pre_processing_chat_model(
            entry["question"][0], entry["function"], entry["id"]
        )
    )


def test_every_request_is_the_one_bfcl_eval_sends(cases: list[TestCase]) -> None:
    from bfcl_eval.utils import load_dataset_entry

    entries = {e["id"]: e for e in load_dataset_entry("format_sensitivity")}
    assert sorted(entries) == sorted(c.id for c in cases)
    templates = official.ensure_prompt_templates(official.get_release("2026.3.23"))
    renderer, memo = FunctionRenderer(), {}
    differing = []
    for case in cases:
        request, _ = case_request(case, Mode.PROMPT, renderer, 0, memo, templates)
        if request.messages != theirs(entries[case.id]):
            differing.append(case.id)
    assert not differing, f"{len(differing)} differ, first {differing[:3]}"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def python_calls(case: TestCase) -> str:
    """The case's expected calls (first option of each argument) as Python call text."""
    calls = []
    for call in case.possible_answer:
        ((name, params),) = call.items()
        args = ", ".join(f"{k}={v[0]!r}" for k, v in params.items() if v and v[0] != "")
        calls.append(f"{name}({args})")
    return f"[{', '.join(calls)}]"


def test_a_run_sends_bfcl_evals_prompts_and_bfcl_eval_scores_its_result_files(
    server: OpenAIServer, cases: list[TestCase], tmp_path: Path
) -> None:
    from bfcl_eval.utils import load_dataset_entry

    answers = {str(c.question[0][-1].content): python_calls(c) for c in cases}

    def python_speaker(body: dict[str, Any]) -> dict[str, Any]:
        """Always Python call syntax (in the tag when asked for one): right only where the
        configuration asks for Python."""
        text = answers[body["messages"][-1]["content"]]
        system = body["messages"][0]["content"]
        return {"content": f"<TOOLCALL>{text}</TOOLCALL>" if "<TOOLCALL>" in system else text}

    server.responder = python_speaker
    results = tmp_path / "result" / PROMPT_MODEL
    argv = [
        "run", "--dataset", SPEC, "--categories", "format_sensitivity", "--mode", "prompt",
        "--model", PROMPT_MODEL, "--base-url", server.base_url, "--no-cache",
        "--concurrency", "1", "--output", str(tmp_path / "run.json"), "--results-dir", str(results),
    ]  # fmt: skip
    assert main(argv) == 0
    entries = {e["id"]: e for e in load_dataset_entry("format_sensitivity")}
    # one worker asks the cases in their order, so the n-th request is the n-th case's
    sent = [body["messages"] for body in server.requests]
    assert len(sent) == len(cases) == 5200
    differing = [
        c.id for c, messages in zip(cases, sent, strict=True) if messages != theirs(entries[c.id])
    ]
    assert not differing, f"{len(differing)} differ, first {differing[:3]}"
    # bfcl-eval's latency columns need numpy, a placeholder in the light install: both sides
    # score the file without the `latency` field (ids and answers as the run wrote them)
    scored = tmp_path / "scored" / PROMPT_MODEL / "format_sensitivity"
    scored.mkdir(parents=True)
    name = "BFCL_v4_format_sensitivity_result.json"
    rows = [
        json.loads(line)
        for line in (results / "format_sensitivity" / name).read_text().splitlines()
    ]
    assert [r["id"] for r in rows] == [c.id for c in cases]
    (scored / name).write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "latency"}) + "\n" for r in rows)
    )
    official_dir, ours = tmp_path / "official", tmp_path / "ours"
    official_evaluate(scored.parent, official_dir, "prompt")
    score = ["score", "--results", str(scored.parent), "--model-name", PROMPT_MODEL]
    assert main([*score, "--bfcl-score-dir", str(ours)]) == 0
    assert not differing_ids(official_dir, ours)
    report = json.loads((tmp_path / "run.json").read_text())
    valid = {r["id"].split(":")[1] for r in report["results"] if r["valid"]}
    assert valid and all("ret_fmt=python" in key for key in valid)
