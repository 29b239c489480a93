"""A new user's first hour, as installed: init -> validate -> generate -> run -> impact -> compare.

A scratch git repository with two tools of its own; the wheel installed non-editable; the
console script in a clean environment with `OPENAI_API_KEY` exported (as users set it) and
the model an OpenAI-compatible server on 127.0.0.1 answering from a script.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.generate_script import responder
from tests.support.installed import Installed, git
from tests.support.openai_server import OpenAIServer

KEY = "sk-first-contact-0123456789"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "book_room",
            "description": "Book a meeting room for one hour.",
            "parameters": {
                "type": "object",
                "properties": {
                    "room": {"type": "string", "description": "the room's name"},
                    "hour": {"type": "integer", "description": "start hour, 0-23"},
                },
                "required": ["room", "hour"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "city name"}},
                "required": ["city"],
            },
        },
    },
]

QUESTIONS = {
    "Book the Aurora room at 10.": ("book_room", {"room": "Aurora", "hour": 10}),
    "Reserve Borealis for 14:00, please.": ("book_room", {"room": "Borealis", "hour": 14}),
    "What's the weather in Oslo right now?": ("get_weather", {"city": "Oslo"}),
    "Is it raining in Lima?": ("get_weather", {"city": "Lima"}),
}

# Unrelated questions for the irrelevance suite: the derived suites' pool, kept in the repo.
POOL = [
    {
        "id": f"pool_{i}",
        "question": [[{"role": "user", "content": text}]],
        "function": [
            {
                "name": "math_add",
                "description": "Add two numbers.",
                "parameters": {
                    "type": "dict",
                    "properties": {"a": {"type": "integer", "description": "first"}},
                    "required": ["a"],
                },
            }
        ],
    }
    for i, text in enumerate(["Tell me a joke.", "Who wrote Hamlet?", "Sum 2 and 2."])
]


def script() -> dict[str, Any]:
    """The proposer drafts the four questions; the model (verify and run) answers them."""
    propose: dict[str, Any] = {}
    for text, (name, arguments) in QUESTIONS.items():
        propose.setdefault(name, {"cases": []})["cases"].append(
            {"kind": "simple", "request": text, "calls": [{"name": name, "arguments": arguments}]}
        )
    verify = {
        text: {"tool_calls": [{"name": name, "arguments": arguments}]}
        for text, (name, arguments) in QUESTIONS.items()
    }
    return {"propose": propose, "verify": verify}


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "tools.json").write_text(json.dumps(TOOLS, indent=1) + "\n", encoding="utf-8")
    (root / "pool.jsonl").write_text("".join(json.dumps(p) + "\n" for p in POOL))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "tools")
    return root


def use_local_pools(config: Path) -> None:
    """An offline repository names its own pools (the defaults download BFCL's data)."""
    text = config.read_text(encoding="utf-8")
    text = text.replace("  irrelevance:", "  irrelevance:\n    pools: [pool.jsonl]", 1)
    text = text.replace("  distractors:", "  distractors:\n    pools: [pool.jsonl]", 1)
    config.write_text(text, encoding="utf-8")


def assert_editors_validate(user: Installed, config: Path, tmp_path: Path) -> None:
    """The modeline `init` writes names the schema the wheel ships, which accepts the file
    and flags a typo (what the YAML language server shows in an editor)."""
    import jsonschema
    from ruamel.yaml import YAML

    from bfcl_action.settings.config_schema import MODELINE

    text = config.read_text(encoding="utf-8")
    assert text.splitlines()[0] == MODELINE
    where = user.run(
        "python", "-c", "import importlib.resources as r; "
        "print(r.files('bfcl_action') / 'data' / 'bfcl-config.schema.json')", cwd=tmp_path,
    )  # fmt: skip
    shipped = json.loads(Path(where.stdout.strip()).read_text(encoding="utf-8"))
    assert MODELINE.endswith("/bfcl_action/data/bfcl-config.schema.json")
    jsonschema.validate(YAML(typ="safe").load(text), shipped)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(YAML(typ="safe").load(text.replace("seed:", "sed:")), shipped)


@pytest.fixture
def model(openai: OpenAIServer) -> OpenAIServer:
    openai.responder = responder(script())
    openai.api_key = KEY  # any other key, or none, is a 401 as OpenAI answers
    return openai


def test_init_validate_generate_run_impact_compare(
    user: Installed, model: OpenAIServer, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "app")
    env = {"OPENAI_API_KEY": KEY}

    init = user.run("bfcl-action", "init", cwd=repo, env=env)
    assert init.code == 0
    assert (repo / ".github" / "workflows" / "bfcl.yml").is_file()
    assert_editors_validate(user, repo / ".bfcl.yml", tmp_path)
    use_local_pools(repo / ".bfcl.yml")

    validate = user.run("bfcl-action", "validate", cwd=repo, env=env)
    assert validate.code == 0
    assert "2 tools" in validate.stdout

    generate = user.run(
        "bfcl-action", "generate", "--per-tool", "2", "--base-url", model.base_url,
        "--quiet", cwd=repo, env=env,
    )  # fmt: skip
    assert generate.code == 0
    drafted = (repo / "cases" / "generated.yml").read_text(encoding="utf-8")
    assert all(text in drafted for text in QUESTIONS)
    config = repo / ".bfcl.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("cases: []", "cases: [cases/*.yml]", 1),
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "cases")

    base = user.run(
        "bfcl-action", "run", "--base-url", model.base_url, "--output", str(tmp_path / "base.json"),
        "--quiet", cwd=repo, env=env,
    )  # fmt: skip
    assert base.code == 0
    results = json.loads((tmp_path / "base.json").read_text())["results"]
    simple = [r for r in results if r["category"] == "own_simple"]
    assert len(simple) == 4
    assert all(r["valid"] for r in simple)

    # a PR renames a parameter: the model keeps sending `room`, so book_room's cases fail
    tools = json.loads((repo / "tools.json").read_text())
    props = tools[0]["function"]["parameters"]
    props["properties"]["room_name"] = props["properties"].pop("room")
    props["required"] = ["room_name", "hour"]
    (repo / "tools.json").write_text(json.dumps(tools, indent=1) + "\n")
    git(repo, "checkout", "-q", "-b", "rename")
    cases = repo / "cases" / "generated.yml"
    cases.write_text(re.sub(r"(?<![\w])room:", "room_name:", cases.read_text()))
    git(repo, "commit", "-q", "-am", "rename room")

    impact = user.run(
        "bfcl-action", "impact", "--base-ref", "main", "--json",
        "--changed-tools-out", str(tmp_path / "changed.json"), cwd=repo, env=env,
    )  # fmt: skip
    assert impact.code == 0
    assert "book_room" in (tmp_path / "changed.json").read_text()
    text = user.run("bfcl-action", "impact", "--base-ref", "main", cwd=repo, env=env)
    assert text.code == 0
    assert "changed  book_room" in text.stdout and "Impacted cases" in text.stdout
    assert max(len(line) for line in text.stdout.splitlines()) <= 100

    head = user.run(
        "bfcl-action", "run", "--base-url", model.base_url, "--output", str(tmp_path / "head.json"),
        "--quiet", cwd=repo, env=env,
    )  # fmt: skip
    assert head.code == 0

    compare = user.run(
        "bfcl-action", "compare", "--config", ".bfcl.yml", "--base", str(tmp_path / "base.json"),
        "--head", str(tmp_path / "head.json"), "--changed-tools", str(tmp_path / "changed.json"),
        "--markdown", str(tmp_path / "comment.md"), cwd=repo, env=env,
    )  # fmt: skip
    assert compare.code in (0, 1)
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert "book_room" in comment
    assert KEY not in comment + compare.output + head.output + base.output


def test_generate_finds_the_exported_key(
    user: Installed, model: OpenAIServer, tmp_path: Path
) -> None:
    """The console script moves `*_API_KEY` out of `os.environ` at start; generate must still
    send the key the user exported (the server answers 401 to any other, or to none)."""
    repo = make_repo(tmp_path / "app")
    user.run("bfcl-action", "init", cwd=repo)
    run = user.run(
        "bfcl-action", "generate", "--per-tool", "1", "--tools", "get_weather",
        "--base-url", model.base_url, cwd=repo, env={"OPENAI_API_KEY": KEY},
    )  # fmt: skip
    assert run.code == 0, run
    assert "401" not in run.output
    assert model.headers
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in model.headers)


def test_init_generate_drafts_with_the_exported_key(
    user: Installed, model: OpenAIServer, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "app")
    run = user.run(
        "bfcl-action", "init", "--generate", "1", cwd=repo,
        env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": model.base_url},
    )  # fmt: skip
    assert run.code == 0, run
    assert "no OPENAI_API_KEY" not in run.output
    assert (repo / "cases" / "generated.yml").is_file()
    assert "cases/*.yml" in (repo / ".bfcl.yml").read_text()


def test_run_finds_the_config_from_the_root_and_a_subdirectory(
    user: Installed, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "app")
    user.run("bfcl-action", "init", cwd=repo)
    use_local_pools(repo / ".bfcl.yml")
    (repo / "src" / "deep").mkdir(parents=True)
    for cwd in (repo, repo / "src" / "deep"):
        run = user.run(
            "bfcl-action", "run", "--model", "gpt-4o-mini", "--dry-run", cwd=cwd,
        )  # fmt: skip
        assert run.code == 0, run
        assert "nothing to evaluate" not in run.output


def test_validate_json_prints_only_json_on_stdout(user: Installed, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    tools = json.loads((repo / "tools.json").read_text())
    del tools[1]["function"]["description"]  # a warning, not an error
    (repo / "tools.json").write_text(json.dumps(tools))
    user.run("bfcl-action", "init", cwd=repo)
    text = user.run("bfcl-action", "validate", cwd=repo)
    assert "warning" in text.stdout  # the text form shows it where it always did
    run = user.run("bfcl-action", "validate", "--json", cwd=repo)
    assert run.code == 0
    assert json.loads(run.stdout)["warnings"] >= 1
    assert "warning" in run.stderr


def test_no_live_warning_when_nothing_asked_for_live(user: Installed, tmp_path: Path) -> None:
    """The default pools name BFCL's data and Live; Live unreachable from this install is
    not the user's concern until they ask for it (`assert_clean` fails on "skipped")."""
    from tests.support.installed import prefill_bfcl_cache

    repo = make_repo(tmp_path / "app")
    user.run("bfcl-action", "init", cwd=repo)
    prefill_bfcl_cache(user.home / ".cache" / "bfcl-action", tmp_path / "wheel")
    run = user.run("bfcl-action", "validate", "--derived", cwd=repo)
    assert run.code == 0
    assert "own_irrelevance" in run.stdout


def test_live_pool_asked_for_and_unavailable_is_a_clear_error(
    user: Installed, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "app")
    user.run("bfcl-action", "init", cwd=repo)
    config = repo / ".bfcl.yml"
    config.write_text(
        config.read_text().replace(
            "  irrelevance:", "  irrelevance:\n    pools: [pool.jsonl, live@2020-W01]", 1
        )
    )
    run = user.run("bfcl-action", "validate", "--derived", cwd=repo)
    assert run.code == 2
    assert "2020-W01 is not available here" in run.stderr  # the log defuses `@` mentions
    assert "remove live@" in run.stderr
    assert "derived.irrelevance.pools" in run.stderr


def test_a_case_naming_a_missing_tool_says_so_by_name(user: Installed, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    user.run("bfcl-action", "init", cwd=repo)
    (repo / "cases").mkdir()
    (repo / "cases" / "c.yml").write_text(
        "cases:\n"
        "  - id: one\n"
        "    question: Book Aurora at 10.\n"
        "    tools: [book_rooms]\n"
        "    expect:\n"
        "      - book_rooms: {room: [Aurora], hour: [10]}\n"
        "  - id: two\n"
        "    question: Book Aurora at 10.\n"
        "    expect:\n"
        "      - bookroom: {room: [Aurora], hour: [10]}\n"
    )
    config = repo / ".bfcl.yml"
    config.write_text(config.read_text().replace("cases: []", "cases: [cases/*.yml]", 1))
    run = user.run("bfcl-action", "validate", cwd=repo)
    assert run.code == 2
    assert "expected one of ," not in run.stderr
    assert "does not offer" not in run.stderr
    assert run.stderr.count("no tool named") >= 3, run
    assert "did you mean 'book_room'" in run.stderr


def test_the_documented_comment_is_what_the_demo_prints(user: Installed, tmp_path: Path) -> None:
    """README.md and docs/pr-comment-example.md show the demo's comment (`nox -s docs`)."""
    from tests.support.demo_docs import EXAMPLE, ROOT, demo_steps, documented_problems

    for step in demo_steps(EXAMPLE, tmp_path):
        run = user.run("bfcl-action", *step, cwd=ROOT)
        assert run.code in ((0, 1) if step[0] == "compare" else (0,))
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert "own_multiple" in comment
    assert documented_problems(comment) == []
