"""Every command's main path through the installed console scripts (clean env, no network).

The first-contact flow (`test_first_contact.py`) covers init, validate, generate, run,
impact and compare; the Action's paths (`test_action_yml.py`) cover github and history.
This module covers the rest, and `COVERED` keeps the list honest: a new command fails
`test_every_command_is_covered_as_installed` until a test here or there runs it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import COMMANDS
from bfcl_action.results.results_io import read_score_file
from tests.support.installed import Installed, git, prefill_bfcl_cache, serving
from tests.support.memory_model import rememberer, vector_rememberer
from tests.support.openai_server import OpenAIServer
from tests.support.web_search import WebServer, researcher

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "weather-app"

COVERED = {
    "init": "test_first_contact",
    "validate": "test_first_contact",
    "generate": "test_first_contact",
    "run": "test_first_contact",
    "impact": "test_first_contact",
    "compare": "test_first_contact",
    "merge": "test_commands",
    "compare-models": "test_commands",
    "check": "test_commands",
    "score": "test_commands",
    "categories": "test_commands",
    "github": "test_action_yml",
    "history": "test_action_yml",
    "serve-replay": "test_commands",
    "contribute": "test_commands",
}


def test_every_command_is_covered_as_installed() -> None:
    assert set(COVERED) == set(COMMANDS)
    here = Path(__file__).parent
    for command, module in COVERED.items():
        text = (here / f"{module}.py").read_text(encoding="utf-8")
        if command == "github":  # what action.yml's evaluate step runs
            assert "ActionYml" in text
            assert " bfcl_action.cli github'" in (ROOT / "action.yml").read_text()
            continue
        assert f'"{command}"' in text, f"{module} does not run {command}"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """The bundled example as a user's own git repository."""
    repo = tmp_path / "app"
    shutil.copytree(EXAMPLE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "app")
    return repo


def test_version_and_help(user: Installed, tmp_path: Path) -> None:
    version = user.run("bfcl-action", "--version", cwd=tmp_path)
    assert version.code == 0 and version.stdout.startswith("bfcl-action ")
    helped = user.run("bfcl-action", "--help", cwd=tmp_path)
    assert all(name in helped.stdout for name in COMMANDS)


def test_run_shards_merge_and_compare_models(user: Installed, app: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for shard in ("1/2", "2/2"):
        run = user.run(
            "bfcl-action", "run", "--model", "replay:replay/head", "--shard", shard, "--quiet",
            "--output", str(out / f"shard-{shard[0]}.json"), cwd=app,
        )  # fmt: skip
        assert run.code == 0
    merged = user.run(
        "bfcl-action", "merge", str(out / "shard-1.json"), str(out / "shard-2.json"),
        "--output", str(out / "head.json"), cwd=app,
    )  # fmt: skip
    assert merged.code == 0
    whole = json.loads((out / "head.json").read_text())
    base = user.run(
        "bfcl-action", "run", "--model", "replay:replay/base", "--model-name", "older",
        "--quiet", "--output", str(out / "base.json"), cwd=app / "cases",
    )  # fmt: skip
    assert base.code == 0
    assert len(whole["results"]) == len(json.loads((out / "base.json").read_text())["results"])

    choice = user.run(
        "bfcl-action", "compare-models", str(out / "base.json"), str(out / "head.json"),
        "--format", "json", cwd=app,
    )  # fmt: skip
    assert choice.code == 0
    assert "older" in choice.stdout
    json.loads(choice.stdout)


def test_check_gives_one_verdict_a_line(user: Installed, tmp_path: Path) -> None:
    function = {
        "name": "get_weather",
        "description": "Weather of a city.",
        "parameters": {
            "type": "dict",
            "properties": {"city": {"type": "string", "description": "city"}},
            "required": ["city"],
        },
    }
    lines = [
        {"id": "good", "category": "simple_python", "functions": [function],
         "possible_answer": [{"get_weather": {"city": ["Oslo"]}}],
         "model_output": [{"get_weather": {"city": "Oslo"}}]},
        {"id": "bad", "category": "simple_python", "functions": [function],
         "possible_answer": [{"get_weather": {"city": ["Oslo"]}}],
         "model_output": "get_weather(city='Lima')"},
    ]  # fmt: skip
    run = user.run(
        "bfcl-action", "check", "--cases", "-", "--output", "-", cwd=tmp_path,
        stdin="".join(json.dumps(line) + "\n" for line in lines),
    )  # fmt: skip
    assert run.code in (0, 1)
    verdicts = {v["id"]: v["valid"] for v in map(json.loads, run.stdout.splitlines())}
    assert verdicts == {"good": True, "bad": False}


def test_check_writes_what_each_line_alone_gives(user: Installed, tmp_path: Path) -> None:
    """A file repeating its function lists (parsed once by the installed command) gets,
    byte for byte, the output of each line checked on its own, the tricky lines included."""
    from bfcl_action.commands.check import check_line

    function = {
        "name": "math.add",
        "description": "Add two integers, a long enough description to be remembered.",
        "parameters": {
            "type": "dict",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    }
    base = {"category": "simple_python", "functions": [function],
            "possible_answer": [{"math.add": {"a": [1], "b": [2]}}]}  # fmt: skip
    outputs = [
        "[math.add(a=1, b=2)]",
        "[math.add(a=1, b=3)]",
        [{"math_add": {"a": 1, "b": 2}}],
        [{"math.add": '{"a": 1, "b": 2}'}],
        "I cannot help",
        "[math.add(a=1, b='é')]",
    ]
    text = "".join(
        json.dumps({"id": f"t{i}", **base, "model_output": out}) + "\n"
        for i, out in enumerate(outputs * 3)
    )
    whole = json.dumps({"id": "dup", **base, "model_output": outputs[0]})
    text += whole[:-1] + ', "function\\u0073": []}\n'  # a later member that wins
    text += '{"id": "ü\\u00fc", "category": "simple_python", "functions": [], "x": 1}\n'
    text += "{not json\n"
    source = tmp_path / "in.jsonl"
    source.write_text(text, encoding="utf-8")
    run = user.run("bfcl-action", "check", "--cases", str(source), "--output", "out.jsonl",
                   cwd=tmp_path)  # fmt: skip
    assert run.code == 0, run
    expected = "".join(
        json.dumps(check_line(raw, number), ensure_ascii=False) + "\n"
        for number, raw in enumerate(source.read_bytes().splitlines(keepends=True), start=1)
    )
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == expected
    assert '"id": "dup", "valid": false' in expected  # the later, empty list counted


def test_score_reads_bfcl_result_files(user: Installed, tmp_path: Path) -> None:
    """The pinned BFCL release from the user's data cache (filled by an earlier fetch)."""
    prefill_bfcl_cache(user.home / ".cache" / "bfcl-action", tmp_path / "wheel")
    results = tmp_path / "result" / "m-FC"
    results.mkdir(parents=True)
    rows = [
        {"id": "simple_python_0", "result": [{"math.add": json.dumps({"a": 0, "b": 2})}]},
        {"id": "simple_python_1", "result": [{"math.add": json.dumps({"a": 9, "b": 2})}]},
    ]
    (results / "BFCL_v4_simple_python_result.json").write_text(
        "".join(json.dumps(r) + "\n" for r in rows)
    )
    run = user.run(
        "bfcl-action", "score", "--dataset", "bfcl@2026.3.23", "--results", str(results),
        "--model-name", "m-FC", "--mode", "fc", "--categories", "simple_python", cwd=tmp_path,
    )  # fmt: skip
    assert run.code == 0, run
    assert "simple_python" in run.stdout
    assert "50.00%" in run.stdout


def test_run_asks_web_search_through_the_configured_search_backend(
    user: Installed, openai: OpenAIServer, tmp_path: Path
) -> None:
    """BFCL's web_search_base as a user runs it: the search endpoint and its key variable in
    .bfcl.yml, the local pages allowed by the workflow's flag, result files bfcl-eval reads."""
    prefill_bfcl_cache(user.home / ".cache" / "bfcl-action", tmp_path / "wheel")
    with WebServer() as web:
        web.api_key = "serp-secret-4711"
        web.pages["founder"] = "<h1>ByteDance</h1><p>It was founded by Zhang Yiming.</p>"
        web.results["question"] = [web.result("Founder", "founder", "who founded it")]
        openai.responder = researcher()
        repo = tmp_path / "repo"
        repo.mkdir()
        (repo / ".bfcl.yml").write_text(
            f"suites:\n  own: []\n  official: [web_search_base]\n"
            f"model:\n  name: test-model\n  base_url: {openai.base_url}\n"
            f"web_search:\n  endpoint: {web.endpoint}\n  api_key_env: BFCL_KEY_SERPAPI\n"
        )
        env = {"BFCL_KEY_SERPAPI": "serp-secret-4711"}
        refused = user.run("bfcl-action", "run", "--no-cache", cwd=repo, env=env)
        assert refused.code == 0, refused  # the pages are loopback: refused, the model says so
        assert "/pages/founder" not in web.paths()
        run = user.run(
            "bfcl-action", "run", "--no-cache", "--exec-allow-host", f"127.0.0.1:{web.port}",
            "--output", str(tmp_path / "run.json"), "--results-dir", str(tmp_path / "res"),
            cwd=repo, env=env,
        )  # fmt: skip
    assert run.code == 0, run
    assert "web_search_base" in run.stdout and "50.00%" in run.stdout
    assert "serp-secret-4711" not in run.output
    searched = [q for path, q in web.requests if path == "/search.json"]
    assert searched and all(q["api_key"] == "serp-secret-4711" for q in searched)
    report = json.loads((tmp_path / "run.json").read_text())
    verdicts = {r["id"]: r["valid"] for r in report["results"]}
    assert verdicts == {"web_search_base_0": True, "web_search_base_1": False}
    written = tmp_path / "res" / "agentic" / "BFCL_v4_web_search_base_result.json"
    rows = [json.loads(line) for line in written.read_text().splitlines()]
    assert rows[0]["result"][0][-1] == "It was founded by Zhang Yiming."


def test_run_asks_memory_kv_after_its_prerequisite_conversations(
    user: Installed, openai: OpenAIServer, tmp_path: Path
) -> None:
    """BFCL's memory_kv as a user runs it: named in .bfcl.yml, the scenario's prerequisite
    conversations fill the memory, then the questions are asked of it."""
    prefill_bfcl_cache(user.home / ".cache" / "bfcl-action", tmp_path / "wheel")
    openai.responder = rememberer("kv")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".bfcl.yml").write_text(
        "suites:\n  own: []\n  official: [memory_kv]\n"
        f"model:\n  name: test-model\n  base_url: {openai.base_url}\n"
    )
    run = user.run(
        "bfcl-action", "run", "--no-cache", "--output", str(tmp_path / "run.json"),
        "--results-dir", str(tmp_path / "res"), cwd=repo,
    )  # fmt: skip
    assert run.code == 0, run
    assert "memory_kv" in run.stdout and "100.00%" in run.stdout
    report = json.loads((tmp_path / "run.json").read_text())
    assert sorted(r["id"] for r in report["results"]) == [
        "memory_kv_0-customer-0",
        "memory_kv_1-customer-1",
    ]
    written = tmp_path / "res" / "agentic" / "memory" / "kv" / "BFCL_v4_memory_kv_result.json"
    assert len(written.read_text().splitlines()) == 2
    vector_args = ["--dataset", "bfcl@2026.3.23", "--categories", "memory_vector", "--no-cache"]
    model_args = ["--model", "test-model", "--base-url", openai.base_url]
    refused = user.run("bfcl-action", "run", *vector_args, *model_args, cwd=repo)
    assert refused.code == 2 and "memory_vector needs an embedding model" in refused.stderr
    openai.responder = vector_rememberer()
    vector = user.run(
        "bfcl-action", "run", *vector_args, *model_args, "--embedding-model", "embedder",
        cwd=repo,
    )  # fmt: skip
    assert vector.code == 0, vector
    assert "memory_vector" in vector.stdout and "100.00%" in vector.stdout
    assert {body["model"] for body in openai.embedding_requests} == {"embedder"}


def test_run_asks_format_sensitivity_in_its_26_prompt_configurations(
    user: Installed, openai: OpenAIServer, tmp_path: Path
) -> None:
    """A prompt-mode model asked BFCL's format-sensitivity cases: one system prompt per
    configuration, the result file in bfcl-eval's layout, and `score` reading it back."""

    def python_speaker(body: dict[str, Any]) -> dict[str, Any]:
        # writes Python calls whatever it is asked for: right in the 8 Python configurations
        text = "[math.add(a=1, b=2)]"
        system = str(body["messages"][0]["content"])
        return {"content": f"<TOOLCALL>{text}</TOOLCALL>" if "<TOOLCALL>" in system else text}

    openai.responder = python_speaker
    prefill_bfcl_cache(user.home / ".cache" / "bfcl-action", tmp_path / "wheel")
    run = user.run(
        "bfcl-action", "run", "--dataset", "bfcl@2026.3.23", "--categories", "format_sensitivity",
        "--mode", "prompt", "--model", "m", "--output", str(tmp_path / "run.json"),
        "--results-dir", str(tmp_path / "result" / "m"), cwd=tmp_path,
        env={"OPENAI_BASE_URL": openai.base_url, "OPENAI_API_KEY": "sk-local"},
    )  # fmt: skip
    assert run.code == 0, run
    assert "format_sensitivity" in run.stdout and "8/26" in run.stdout
    # 8 Python configurations at 100%, the other 18 at 0%
    assert "Format sensitivity: max delta 100.00 pp, standard deviation 47.07 pp" in run.stdout
    assert len({str(b["messages"][0]["content"]) for b in openai.requests}) == 26
    written = tmp_path / "result" / "m" / "format_sensitivity"
    assert [p.name for p in written.iterdir()] == ["BFCL_v4_format_sensitivity_result.json"]
    score = user.run(
        "bfcl-action", "score", "--results", str(tmp_path / "result" / "m"), "--model-name",
        "m", "--bfcl-score-dir", str(tmp_path / "score"), cwd=tmp_path,
    )  # fmt: skip
    assert score.code == 0, score
    header, _ = read_score_file(
        tmp_path / "score" / "m" / "format_sensitivity" / "BFCL_v4_format_sensitivity_score.json"
    )
    assert (header["correct_count"], header["total_count"]) == (8, 26)
    table = (tmp_path / "score" / "data_format_sensitivity.csv").read_text().splitlines()
    row = dict(zip(table[0].split(","), table[1].split(","), strict=True))
    assert row["Format Sensitivity Max Delta"] == "100.0"
    fc = user.run(
        "bfcl-action", "run", "--dataset", "bfcl@2026.3.23", "--categories", "format_sensitivity",
        "--mode", "fc", "--model", "m", cwd=tmp_path, env={"OPENAI_BASE_URL": openai.base_url},
    )  # fmt: skip
    assert fc.code == 2
    assert "--mode prompt" in fc.stderr
    assert len(openai.requests) == 26


def test_categories_lists_every_name(user: Installed, tmp_path: Path) -> None:
    run = user.run("bfcl-action", "categories", "--json", cwd=tmp_path)
    assert run.code == 0
    assert "own_simple" in json.dumps(json.loads(run.stdout))


def test_contribute_writes_a_contribution_file(user: Installed, app: Path, tmp_path: Path) -> None:
    out = tmp_path / "contribution.jsonl"
    run = user.run(
        "bfcl-action", "contribute", "--case", "current_tokyo", "--license", "CC-BY-4.0",
        "--publish-handle", "no", "--contributor", "octo", "--output", str(out), cwd=app,
    )  # fmt: skip
    assert run.code == 0, run
    entries = [json.loads(line) for line in out.read_text().splitlines()]
    assert entries and all(e["license"] == "CC-BY-4.0" for e in entries)


def test_bfcl_curate_verifies_the_live_releases(user: Installed, tmp_path: Path) -> None:
    live = tmp_path / "live"
    shutil.copytree(ROOT / "data" / "live", live)
    verify = user.run("bfcl-curate", "verify", "--no-history", str(live), cwd=tmp_path)
    assert verify.code == 0
    assert "every release verified" in verify.stdout
    # the Action's install has no curation extra: building says how to get it
    build = user.run(
        "bfcl-curate", "build", "--input", str(ROOT / "contributions"), "--live-dir", str(live),
        "--reference", "none", cwd=tmp_path,
    )  # fmt: skip
    assert build.code != 0
    assert "pip install 'bfcl-action[curate]'" in build.stderr


def test_serve_replay_answers_a_run_as_the_recording_did(
    user: Installed, app: Path, tmp_path: Path
) -> None:
    """No key: the recorded answers served over HTTP give the replay's verdicts."""
    replayed = user.run(
        "bfcl-action", "run", "--model", "replay:replay/head", "--quiet",
        "--output", str(tmp_path / "replayed.json"), cwd=app,
    )  # fmt: skip
    assert replayed.code == 0
    with serving(user, "--replay", "replay/head", cwd=app) as url:
        served = user.run(
            "bfcl-action", "run", "--no-cache", "--quiet",
            "--output", str(tmp_path / "served.json"), cwd=app, env={"OPENAI_BASE_URL": url},
        )  # fmt: skip
    assert served.code == 0
    verdicts = [
        {
            r["id"]: r["valid"]
            for r in json.loads((tmp_path / f"{name}.json").read_text())["results"]
        }
        for name in ("replayed", "served")
    ]
    assert verdicts[0] == verdicts[1]
    assert not all(verdicts[1].values())  # head's regressions, as recorded


def test_serve_replay_scripts_generate_without_a_key(user: Installed, app: Path) -> None:
    """The weather app's generate script (docs/generate.md) through the trial model drafts
    the committed generate/generated.yml again, as make_generated.py does."""
    drafted, review = app / "generate" / "generated.yml", app / "generate" / "generated.review.md"
    committed = drafted.read_text(encoding="utf-8")
    review.unlink()
    with serving(user, "--script", "generate/script.json", cwd=app) as url:
        run = user.run(
            "bfcl-action", "generate", "--config", "generate.bfcl.yml", "--per-tool", "3",
            "--tools", "get_pollen_count,convert_temperature,get_sunrise_sunset",
            "--output", "generate/generated.yml", "--quiet", cwd=app,
            env={"OPENAI_BASE_URL": url},
        )  # fmt: skip
    assert run.code == 0
    assert drafted.read_text(encoding="utf-8") == committed
    assert "generator scripted-weather-model" in review.read_text(encoding="utf-8")


def test_serve_replay_refuses_a_script_it_cannot_serve(user: Installed, tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('{"anwsers": {}}')
    run = user.run("bfcl-action", "serve-replay", "--script", "s.json", cwd=tmp_path)
    assert run.code == 2
    assert "s.json: unknown key 'anwsers'" in run.stderr


def test_live_data_is_reachable_from_an_install(user: Installed, tmp_path: Path) -> None:
    """`live@latest` from a pip install, outside any checkout: the release's data wheel
    comes from the package index pip is pointed at (a local one, as a mirror would be)."""
    from curation.live_wheel import build_wheel
    from tests.support.package_index import running_index

    live = ROOT / "data" / "live"
    build_wheel(live, (live / "LATEST").read_text(encoding="utf-8").strip(), tmp_path / "index")
    with running_index(tmp_path / "index") as index:
        run = user.run(
            "bfcl-action", "run", "--dry-run", "--model", "gpt-4o-mini", "--dataset",
            "live@latest", "--categories", "live_simple", cwd=tmp_path, env=index.env(),
        )  # fmt: skip
    assert run.code == 0, run


def test_init_and_validate_python_tool_functions(user: Installed, tmp_path: Path) -> None:
    """A repository keeping its tools as Python functions: `init` lists them, `validate`
    loads them through the jailed worker of the installed package."""
    repo = tmp_path / "shop"
    (repo / "agent").mkdir(parents=True)
    (repo / "agent" / "tools.py").write_text(
        "def add_to_cart(product_id: str, quantity: int = 1) -> dict:\n"
        '    """Put a product into the cart.\n\n    Args:\n'
        "        product_id: The id from the search.\n"
        '        quantity: How many items.\n    """\n'
        "    return {}\n"
    )
    init = user.run("bfcl-action", "init", cwd=repo)
    assert init.code == 0 and "no tool definitions were found" not in init.stdout
    validate = user.run("bfcl-action", "validate", cwd=repo)
    assert validate.code == 0
    assert "1 tool (python 1) from python: agent.tools" in validate.stdout
    assert "0 cases: write some" in validate.stdout
