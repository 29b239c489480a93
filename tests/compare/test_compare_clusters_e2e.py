"""Proof, as a team runs it: one question is not a regression, eight questions are.

A team repository of our own (12 own simple cases over one tool, distractor suites at
k = 0, 2, 4, 8, 16, 32 from a local pool, `--repeat 2`) is evaluated by the installed
`bfcl-action run` against a scripted local model, once as the base and once per head
behaviour, and compared by the installed `bfcl-action compare`. The server sees each
distinct request once (the k=0 variant is its own case's request); the verdict line the
CLI prints is the JSON's `headline` and the comment's first line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.safety import escape
from tests.support.openai_server import OpenAIServer

KS = (0, 2, 4, 8, 16, 32)
QUESTIONS = 12
REPEAT = 2
VERBS = ("convert", "translate", "schedule", "compute", "render", "archive", "encrypt", "resize")
NOUNS = ("image", "meeting", "temperature", "playlist", "spreadsheet")


def _console(name: str) -> list[str]:
    """The installed console script (as a user runs it), else the module (source tree)."""
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "bfcl_action.cli"]


def _write_repository(root: Path) -> None:
    (root / "tools").mkdir(parents=True)
    (root / "cases").mkdir()
    (root / "pools").mkdir()
    tool = {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up one customer order by its order number.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string", "description": "e.g. A-1001"}},
                "required": ["order_id"],
            },
        },
    }
    (root / "tools" / "orders.json").write_text(json.dumps([tool]), encoding="utf-8")
    cases = "\n".join(
        f"- id: order_{q}\n  question: Show me order A-10{q:02d}, please.\n"
        f"  tools: [get_order]\n  expect:\n    - get_order: {{order_id: A-10{q:02d}}}\n"
        for q in range(QUESTIONS)
    )
    (root / "cases" / "orders.yml").write_text(cases, encoding="utf-8")
    pool = []
    for n, (verb, noun) in enumerate((v, o) for v in VERBS for o in NOUNS):
        fn = {
            "name": f"{verb}_{noun}",
            "description": f"{verb.capitalize()} a {noun} for the user.",
            "parameters": {
                "type": "dict",
                "properties": {"target": {"type": "string", "description": "What to act on."}},
                "required": ["target"],
            },
        }
        question = [[{"role": "user", "content": f"Please {verb} my {noun} number {n}."}]]
        pool.append(
            json.dumps({"id": f"irrelevance_pool_{n}", "question": question, "function": [fn]})
        )
    (root / "pools" / "pool.jsonl").write_text("\n".join(pool) + "\n", encoding="utf-8")
    ks = ", ".join(str(k) for k in KS)
    (root / ".bfcl.yml").write_text(
        f"""version: 1
tools: [tools/*.json]
cases: [cases/*.yml]
suites:
  own: [own_simple, own_distractors]
  official: []
  live: []
derived:
  irrelevance: {{enabled: false}}
  distractors:
    k: [{ks}]
    pools: [pools/pool.jsonl]
seed: 7
model: {{name: team-model, mode: fc, temperature: 0}}
thresholds: {{max_drop: 2.0, alpha: 0.05}}
""",
        encoding="utf-8",
    )


def _responder(broken: set[tuple[int, int | None]]):  # type: ignore[no-untyped-def]
    """Right answers, except question q with `n` tools offered when (q, n) is in `broken`
    ((q, None): every request of question q, in every variant and sample)."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        text = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        match = re.search(r"A-10(\d\d)", str(text))
        if match is None:
            return {"content": "I cannot help with that."}
        q, offered = int(match.group(1)), len(body.get("tools") or [])
        wrong = (q, None) in broken or (q, offered) in broken
        return {
            "tool_calls": [
                {
                    "name": "get_order",
                    "arguments": {"order_id": "A-9999" if wrong else f"A-10{q:02d}"},
                }
            ]
        }

    return respond


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, OpenAIServer]]:
    root = tmp_path_factory.mktemp("team")
    _write_repository(root)
    with OpenAIServer() as server:
        yield root, server


def _env(root: Path, server: OpenAIServer) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(root),
        "OPENAI_API_KEY": "sk-team",
        "OPENAI_BASE_URL": server.base_url,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }


def _run(root: Path, server: OpenAIServer, name: str, broken: set[tuple[int, int | None]]) -> Path:
    server.responder = _responder(broken)
    server.requests.clear()
    out = root / f"{name}.json"
    proc = subprocess.run(
        [*_console("bfcl-action"), "run", "--config", ".bfcl.yml", "--repeat", str(REPEAT),
         "--no-cache", "--concurrency", "4", "--output", str(out), "--quiet"],
        cwd=root, env=_env(root, server), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


def _compare(root: Path, server: OpenAIServer, head: Path) -> tuple[int, str, dict[str, Any], str]:
    outputs = root / head.stem
    proc = subprocess.run(
        [*_console("bfcl-action"), "compare", "--base", "base.json", "--head", str(head),
         "--config", ".bfcl.yml", "--json", str(outputs / "c.json"),
         "--markdown", str(outputs / "c.md")],
        cwd=root, env=_env(root, server), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads((outputs / "c.json").read_text(encoding="utf-8"))
    comment = (outputs / "c.md").read_text(encoding="utf-8")
    return proc.returncode, proc.stdout, data, comment


@pytest.fixture(scope="module")
def base(team: tuple[Path, OpenAIServer]) -> Path:
    root, server = team
    path = _run(root, server, "base", set())
    distinct = QUESTIONS * (len(KS) - 1 + 1) * REPEAT  # own case + k>0 variants, per sample
    assert len(server.requests) == distinct  # the k=0 variants were not asked again
    report = json.loads(path.read_text(encoding="utf-8"))
    assert len(report["results"]) == QUESTIONS * (len(KS) + 1)  # still scored in every suite
    twins = [r for r in report["results"] if r["same_request_as"]]
    assert {r["suite"] for r in twins} == {"own_distractors_k0"} and len(twins) == QUESTIONS
    return path


def _same_line_everywhere(stdout: str, data: dict[str, Any], comment: str) -> None:
    headline = data["headline"]
    assert f"bfcl-action compare: {escape.log_line(headline, 2000)}" in stdout.splitlines()
    assert comment.splitlines()[0].endswith(": " + escape.md_inline(headline))


def test_one_question_regressing_in_every_variant_and_repeat_is_not_a_regression(
    team: tuple[Path, OpenAIServer], base: Path
) -> None:
    root, server = team
    code, stdout, data, comment = _compare(root, server, _run(root, server, "one", {(3, None)}))
    paired = data["overall"]["paired"]
    assert paired["newly_failing"] == len(KS) + 1  # seven cases flipped...
    assert (paired["clusters_regressed"], paired["clusters_improved"]) == (1, 0)  # ...one question
    assert code == 0 and data["verdict"] == "unchanged" and data["rule"] is None
    assert data["headline"].startswith("within noise — no rule fired")
    _same_line_everywhere(stdout, data, comment)


def test_one_question_beside_two_single_flips_is_not_a_regression(
    team: tuple[Path, OpenAIServer], base: Path
) -> None:
    root, server = team
    head = _run(root, server, "three", {(3, None), (5, 17), (9, 33)})  # q5 at k=16, q9 at k=32
    code, stdout, data, comment = _compare(root, server, head)
    paired = data["overall"]["paired"]
    assert (paired["newly_failing"], paired["clusters_regressed"]) == (len(KS) + 3, 3)
    assert paired["p_value"] == 0.25
    assert code == 0 and data["verdict"] == "unchanged"
    _same_line_everywhere(stdout, data, comment)


def test_eight_distinct_questions_regressing_is_a_regression(
    team: tuple[Path, OpenAIServer], base: Path
) -> None:
    root, server = team
    head = _run(root, server, "eight", {(q, 1) for q in range(8)})  # own case (and k=0) each
    code, stdout, data, comment = _compare(root, server, head)
    assert code == 1 and data["verdict"] == "regression"
    rule = data["rule"]
    assert (rule["rule"], rule["suite"], rule["clusters_regressed"]) == (
        "significant_drop",
        "overall",
        8,
    )
    assert rule["p_value"] == 2 / 2**8
    assert "significant over 12 question clusters: 8 regressed, 0 improved" in data["headline"]
    _same_line_everywhere(stdout, data, comment)
