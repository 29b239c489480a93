"""Issue 23 item 2: a model's key variable is allow-listed, and a fork PR calls no model on any
path. One pure rule (`credentials.model_calls_allowed`) as a truth table over event x path,
the file's allow-list with errors at the file's line, and the attack end to end: a fork's
`.bfcl.yml` matrix pointing at a server on 127.0.0.1 receives no request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.safety.credentials import (
    PULL_REQUEST_EVENTS,
    ModelPath,
    key_variable_problem,
    model_calls_allowed,
    model_calls_allowed_here,
)
from bfcl_action.settings.config import load_config, parse_models_input
from tests.support.action import run_action, write_tools
from tests.support.github_server import GitHubServer
from tests.support.openai_server import OpenAIServer

EVENTS = [
    "pull_request",
    "pull_request_target",
    "pull_request_review",
    "pull_request_review_comment",
    "push",
    "schedule",
    "workflow_dispatch",
    "merge_group",
]
# head repo, base repo -> same repository?
REPOS = [
    ("octo/app", "octo/app", True),
    ("mallory/app", "octo/app", False),
    (None, "octo/app", False),
    (None, None, False),
]


@pytest.mark.parametrize("path", list(ModelPath))
@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize(("head", "base", "same"), REPOS)
def test_model_calls_truth_table_over_event_and_path(
    event: str, path: ModelPath, head: str | None, base: str | None, same: bool
) -> None:
    allowed = model_calls_allowed(event, head_repo=head, base_repo=base, path=path)
    assert allowed is (same or event not in PULL_REQUEST_EVENTS)


def test_the_rule_reads_the_workflow_event_it_runs_in(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    payload = {
        "pull_request": {
            "head": {"repo": {"full_name": "mallory/app"}},
            "base": {"repo": {"full_name": "octo/app"}},
        }
    }
    event.write_text(json.dumps(payload))
    fork = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}
    assert not model_calls_allowed_here(ModelPath.GENERATE, fork)
    assert not model_calls_allowed_here(
        ModelPath.BATCH, {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": "/nonexistent"}
    )
    assert model_calls_allowed_here(ModelPath.SINGLE, {})
    assert model_calls_allowed_here(ModelPath.SINGLE, {**fork, "GITHUB_EVENT_NAME": "push"})


@pytest.mark.parametrize(
    ("name", "from_file", "refused"),
    [
        ("OPENAI_API_KEY", True, False),
        ("BFCL_KEY_TOGETHER", True, False),
        ("GH_TOKEN", True, True),
        ("AWS_SECRET_ACCESS_KEY", True, True),
        ("TOGETHER_API_KEY", True, True),
        ("bfcl_key_x", True, True),
        ("TOGETHER_API_KEY", False, False),
        ("GH_TOKEN", False, False),
        ("GITHUB_TOKEN", False, True),
        ("INPUT_GITHUB_TOKEN", False, True),
        ("INPUT_API_KEY", True, True),
    ],
)
def test_key_variables_are_allow_listed_for_repository_files(
    name: str, from_file: bool, refused: bool
) -> None:
    assert (key_variable_problem(name, from_file=from_file) is not None) is refused


def test_a_file_naming_another_variable_is_refused_at_its_line(tmp_path: Path) -> None:
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "models:\n  - name: a\n  - name: b\n    base_url: http://127.0.0.1:9/v1\n"
        "    api_key_env: GH_TOKEN\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(config)
    text = str(err.value)
    assert ".bfcl.yml:5" in text and "models.1.api_key_env" in text
    assert "BFCL_KEY_GH" in text  # says what to name instead


def test_the_workflow_models_input_may_name_any_non_reserved_variable() -> None:
    entries = parse_models_input("llama api-key-env=TOGETHER_API_KEY")
    assert entries[0].api_key_env == "TOGETHER_API_KEY"


def test_a_fork_matrix_pointing_at_a_local_server_gets_no_request(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """The attack of item 2: a fork's `.bfcl.yml` names `GH_TOKEN` (refused at its line) or
    an allowed `BFCL_KEY_*` the runner holds (a self-hosted runner): either way the server
    on 127.0.0.1 it names sees no connection."""
    github_server.fork("octo/app", "mallory/app")
    github_server.commit("mallory/app", "patch")
    number = int(github_server.open_pull("octo/app", "patch", head_repo="mallory/app")["number"])
    token = "ghs-job-token-0123456789abcdef"
    held = "sk-held-by-runner-0123456789abcdef"
    with OpenAIServer() as evil:
        for variable in ("GH_TOKEN", "BFCL_KEY_CLOUD"):
            workdir = tmp_path / variable
            write_tools(workdir)
            (workdir / ".bfcl.yml").write_text(
                "tools:\n  - tools.json\nmodels:\n"
                f"  - {{name: x, base_url: '{evil.base_url}', api_key_env: {variable}}}\n"
                f"  - {{name: y, base_url: '{evil.base_url}'}}\n"
            )
            run = run_action(
                github_server,
                workdir,
                "pull_request",
                github_server.pull_event("octo/app", number),
                token=token,
                extra_env={"GH_TOKEN": token, "BFCL_KEY_CLOUD": held},
            )
            output = run.stdout + run.stderr + run.summary
            assert token not in output and held not in output
            if variable == "GH_TOKEN":
                assert run.code != 0
                assert "may name only OPENAI_API_KEY or a BFCL_KEY_* variable" in output
            else:
                assert run.code == 0, output
                assert "skipped" in output
        assert evil.requests == [] and evil.connections == 0


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


@pytest.mark.parametrize("command", ["run", "generate"])
def test_cli_model_calls_are_refused_in_a_fork_pull_request(tmp_path: Path, command: str) -> None:
    write_tools(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "pull_request": {
                    "head": {"repo": {"full_name": "mallory/app"}},
                    "base": {"repo": {"full_name": "octo/app"}},
                }
            }
        )
    )
    args = {
        "run": ["run", "--config", ".bfcl.yml", "--model", "m", "--output", "r.json"],
        "generate": ["generate", "--config", ".bfcl.yml", "--model", "m"],
    }[command]
    with OpenAIServer() as evil:
        proc = subprocess.run(
            [_script("bfcl-action"), *args, "--base-url", evil.base_url],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(tmp_path),
                "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_EVENT_PATH": str(event),
                "OPENAI_API_KEY": "sk-fork-test-0123456789abcdef",
            },
        )
        assert evil.connections == 0
    assert proc.returncode != 0
    assert "comes from a fork" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_bfcl_key_variables_are_held_out_of_the_environment_like_any_key() -> None:
    """A `BFCL_KEY_*` variable holds a model key: the console script moves it out of the
    environment (no child process inherits it) and redacts it, like `*_API_KEY`."""
    code = (
        "import os\n"
        "from bfcl_action.safety import credentials, redact\n"
        "credentials.protect_process()\n"
        "print('BFCL_KEY_CLOUD' in os.environ, credentials.get('BFCL_KEY_CLOUD') is not None)\n"
        "print(redact.redact('x sk-cloud-0123456789abcdef y'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", ""), "BFCL_KEY_CLOUD": "sk-cloud-0123456789abcdef"},
    )
    assert proc.stdout.splitlines() == ["False True", "x *** y"], proc.stderr
