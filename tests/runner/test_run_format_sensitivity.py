"""`bfcl-action run --categories format_sensitivity`: the 26 prompt configurations asked of a
prompt-mode model, each with its own system prompt, written as BFCL result files and scored
by the configuration's decoder.

The local server plays a model that follows the system prompt: it reads which return format
and tag the prompt asks for (the stand-in release's texts name their slots) and answers in
it, so a prompt that asks for the wrong thing shows up as a wrong answer.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.checker.variants import PROMPT_CONFIGS, PromptConfig, variant_of
from bfcl_action.cli import main
from bfcl_action.dataset import official
from bfcl_action.results.results_io import read_score_file
from tests.support.bfcl_wheel import MATH_ADD_ANSWERS, build_wheel, release_for
from tests.support.openai_server import OpenAIServer

SPEC = "bfcl@2026.3.23"
ENTRY = "simple_python_1"
"""The stand-in release's one format-sensitivity entry: `math.add`, answer a=1, b=2."""

CALLS = MATH_ADD_ANSWERS
EXAMPLES = {
    "[f(a=1), g(b=2)]": "python",
    '[{"function": "f"': "json",
    'value="1" type="integer"/>': "verbose_xml",
    '<param name="a" type="integer">1</param>': "concise_xml",
}
"""The stand-in's return-format examples: what a following model keys on."""


@pytest.fixture(autouse=True)
def stand_in_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in wheel as the pinned release (local file, its own digest)."""
    wheel = build_wheel(tmp_path / "wheels")
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))
    return wheel


def system_text(body: dict[str, Any]) -> str:
    [system] = [m for m in body["messages"] if m["role"] == "system"]
    return str(system["content"])


def asked_format(body: dict[str, Any]) -> tuple[str, bool]:
    """The return format and tag the request's system prompt asks for."""
    text = system_text(body)
    found = [fmt for example, fmt in EXAMPLES.items() if example in text]
    assert len(found) == 1, text
    return found[0], "<TOOLCALL>" in text


def follower(body: dict[str, Any]) -> dict[str, Any]:
    """A model that writes the right call in the format its system prompt asks for."""
    fmt, tag = asked_format(body)
    text = CALLS[fmt]
    return {"content": f"<TOOLCALL>{text}</TOOLCALL>" if tag else text}


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def run(server: OpenAIServer, tmp_path: Path, *extra: str) -> int:
    return main(
        [
            "run", "--dataset", SPEC, "--categories", "format_sensitivity", "--model", "m",
            "--base-url", server.base_url, "--no-cache", "--timeout", "5",
            "--output", str(tmp_path / "run.json"), *extra,
        ]
    )  # fmt: skip


def results(tmp_path: Path) -> dict[str, dict[str, Any]]:
    report = json.loads((tmp_path / "run.json").read_text())
    return {r["id"]: r for r in report["results"]}


def test_every_configuration_is_asked_in_its_format_and_passes(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.responder = follower
    assert run(server, tmp_path, "--mode", "prompt", "--results-dir", str(tmp_path / "out")) == 0
    assert len(server.requests) == len(PROMPT_CONFIGS) == 26
    asked = sorted((asked_format(b), system_text(b)) for b in server.requests)
    assert len({text for _, text in asked}) == 26, "every configuration has its own prompt"
    found = results(tmp_path)
    assert len(found) == 26
    assert all(r["valid"] for r in found.values()), [r["error"] for r in found.values()]
    for case_id in found:
        variant = variant_of(case_id)
        assert variant is not None and variant[1].name == "simple_python"


def test_the_result_file_is_bfcl_evals_and_scores_the_same(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.responder = follower
    out = tmp_path / "out"
    assert run(server, tmp_path, "--mode", "prompt", "--results-dir", str(out)) == 0
    path = out / "format_sensitivity" / "BFCL_v4_format_sensitivity_result.json"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"].split(":")[0] for r in rows] == [f"format_sensitivity_{i}" for i in range(26)]
    assert [r["id"].split(":")[1] for r in rows] == [c.key for c in PROMPT_CONFIGS]
    assert all(isinstance(r["result"], str) for r in rows)
    capsys.readouterr()
    score_dir = tmp_path / "score"
    argv = ["score", "--results", str(out), "--model-name", "m", "--bfcl-score-dir"]
    assert main([*argv, str(score_dir)]) == 0
    header, failures = read_score_file(
        score_dir / "m" / "format_sensitivity" / "BFCL_v4_format_sensitivity_score.json"
    )
    assert (header["correct_count"], header["total_count"], failures) == (26, 26, [])


PROMPT_PARTS: list[tuple[str, Callable[[PromptConfig], bool]]] = [
    ("CLASSIC-PERSONA.", lambda c: c.style == "classic"),
    (
        "CLASSIC-PERSONA.CLASSIC-TASK.",
        lambda c: c.prompt_format == "plaintext" and c.style == "classic",
    ),
    ("EXPERIMENTAL-PERSONA.", lambda c: c.style == "experimental"),
    ("# TASK\nCLASSIC-TASK.", lambda c: c.prompt_format == "markdown"),
    ("-TAG <TOOLCALL>", lambda c: c.tool_call_tag),
    ("-NO-TAG ", lambda c: not c.tool_call_tag),
    ("XML-TYPES:", lambda c: c.return_format.value.endswith("xml")),
    (
        '<function name="math.add">\n  <desc>Add two numbers.',
        lambda c: c.function_doc_format == "xml",
    ),
    ("# Function: math.add\n", lambda c: c.function_doc_format == "python"),
    ('"name": "math.add"', lambda c: c.function_doc_format == "json"),
    (" in xml:\n", lambda c: c.function_doc_format == "xml" and c.style == "classic"),
]


def pieces(text: str) -> tuple[object, ...]:
    asked = asked_format({"messages": [{"role": "system", "content": text}]})
    return (asked, *(part in text for part, _ in PROMPT_PARTS))


def expected_pieces(config: PromptConfig) -> tuple[object, ...]:
    asked = (config.return_format.value, config.tool_call_tag)
    return (asked, *(wanted(config) for _, wanted in PROMPT_PARTS))


def test_each_configuration_is_asked_once_with_exactly_its_pieces(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.responder = follower
    assert run(server, tmp_path, "--mode", "prompt") == 0
    assert {b["messages"][-1]["content"] for b in server.requests} == {
        "Question 1 of simple_python?"
    }
    sent = sorted(map(repr, (pieces(system_text(b)) for b in server.requests)))
    assert len(set(sent)) == 26, "the pieces tell the 26 configurations apart"
    assert sent == sorted(map(repr, map(expected_pieces, PROMPT_CONFIGS)))
    for body in server.requests:
        text = system_text(body)
        note = " Note that the provided function is in Python 3 syntax."
        assert f"Add two numbers.{note}{note}" in text, "noted twice, as bfcl-eval does"


def slipper(body: dict[str, Any]) -> dict[str, Any]:
    """A model that gets each configuration wrong in a way of its own."""
    fmt, tag = asked_format(body)
    if tag:
        return {"content": CALLS[fmt]}  # forgets the tag
    return {
        "python": {"content": "[math.add(a=5, b=2)]"},
        "json": {"content": "Sorry, I cannot."},
        "verbose_xml": {"content": '<functions><function name="math.add">'},
        "concise_xml": {"content": CALLS["concise_xml"].replace("math.add", "math.sum")},
    }[fmt]


def test_bad_answers_fail_with_the_error_type_of_each_slip(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.responder = slipper
    assert run(server, tmp_path, "--mode", "prompt") == 0
    assert "format_sensitivity 0/26 0.00%" in " ".join(capsys.readouterr().out.split())
    errors: dict[tuple[str, bool], set[str]] = {}
    for case_id, result in results(tmp_path).items():
        variant = variant_of(case_id)
        assert variant is not None and result["valid"] is False and not result["infra_error"]
        config = variant[0]
        errors.setdefault((config.return_format.value, config.tool_call_tag), set()).add(
            result["error_type"]
        )
    assert errors == {
        **{(fmt, True): {"ast_decoder:decoder_failed"} for fmt in CALLS},
        ("python", False): {"value_error:others"},
        ("json", False): {"simple_function_checker:wrong_count"},
        ("verbose_xml", False): {"ast_decoder:decoder_failed"},
        ("concise_xml", False): {"simple_function_checker:wrong_func_name"},
    }


def test_fc_mode_is_refused_before_any_request(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(server, tmp_path, "--mode", "fc") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "format_sensitivity asks prompt-mode models only" in err
    assert "--mode prompt" in err
    assert server.requests == []


def test_a_release_without_the_prompt_texts_fails_before_any_request(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    wheel = build_wheel(tmp_path / "bare", skip=("prompts",))
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(wheel))
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "bare-cache"))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(wheel))
    assert run(server, tmp_path, "--mode", "prompt") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "lacks bfcl_eval/constants/default_prompts.py" in err
    assert server.requests == []


def test_a_cache_made_before_the_prompt_texts_gets_them_from_the_wheel(
    server: OpenAIServer, tmp_path: Path, stand_in_release: Path
) -> None:
    """An older cache (data only) is completed once, like the multi-turn environments."""
    root = official.ensure_extracted(official.get_release("2026.3.23"))
    shutil.rmtree(root / official.PROMPTS_DIR)
    server.responder = follower
    assert run(server, tmp_path, "--mode", "prompt") == 0
    assert (root / official.PROMPTS_DIR / "MANIFEST.json").is_file()
    assert all(r["valid"] for r in results(tmp_path).values())


def test_a_dry_run_counts_the_26_requests(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(server, tmp_path, "--mode", "prompt", "--dry-run") == 0
    assert "dry run: 26 cases, 26 requests: 26 to ask" in capsys.readouterr().out
    assert server.requests == []


def test_a_matrix_entry_in_fc_mode_is_named_in_the_refusal() -> None:
    from bfcl_action.core.errors import ConfigError
    from bfcl_action.core.records import Mode
    from bfcl_action.dataset import load_dataset
    from bfcl_action.runner.evaluation import check_prompt_variants
    from bfcl_action.settings.resolve import RunSettings

    cases = load_dataset(SPEC, ["format_sensitivity"])
    check_prompt_variants(RunSettings(model="m", mode=Mode.PROMPT), cases, "big")
    check_prompt_variants(RunSettings(model="replay:out/", mode=Mode.FC), cases, "old")
    with pytest.raises(ConfigError, match="model 'small' is in fc mode"):
        check_prompt_variants(RunSettings(model="m", mode=Mode.FC), cases, "small")
