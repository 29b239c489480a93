"""Golden outputs: what users see, byte for byte, through the real Action entrypoint.

The demo (`examples/weather-app`, recorded answers) runs as a push, then as the pull request
that rewords `get_forecast`, then twice on a schedule; a two-model matrix of the same demo
runs as a push and a pull request. The comment, job summary, check-run output, digest,
step outputs and history line are compared with the files in `tests/fixtures/golden/`.

Only what cannot repeat is pinned: commit dates (so shas repeat), the clock (every ISO
time becomes `<time>`) and the scratch directory (`<tmp>`). To accept a deliberate change
of an output, run with `BFCL_UPDATE_GOLDEN=1` and review the diff of the fixtures.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.action import ROOT, ActionRun, git, run_action
from tests.support.github_server import GitHubServer

EXAMPLE = ROOT / "examples" / "weather-app"
GOLDEN = ROOT / "tests" / "fixtures" / "golden"
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
_DATE_IN_TEXT = re.compile(r"(?<=history, )\d{4}-\d\d-\d\d")
_DIGEST = re.compile(r"(bfcl-action:digest v1 )([A-Za-z0-9+/=]+)")


def _unpacked(match: re.Match[str]) -> str:
    """A digest with its payload shown as the JSON it packs (its time pinned below)."""
    return match.group(1) + gzip.decompress(base64.b64decode(match.group(2))).decode("utf-8")


def _normal(text: str, tmp_path: Path) -> str:
    text = text.replace(str(tmp_path.resolve()), "<tmp>").replace(str(tmp_path), "<tmp>")
    text = _DIGEST.sub(_unpacked, text)
    return _DATE_IN_TEXT.sub("<date>", _TIME.sub("<time>", text))


def _check(name: str, text: str, tmp_path: Path) -> None:
    """Compare with (or, with BFCL_UPDATE_GOLDEN=1, write) `tests/fixtures/golden/<name>`."""
    path = GOLDEN / name
    got = _normal(text, tmp_path)
    if os.environ.get("BFCL_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with BFCL_UPDATE_GOLDEN=1"
    assert got == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def _check_run_text(check: dict[str, Any]) -> str:
    output = check["output"]
    return (
        f"name: {check['name']}\nconclusion: {check['conclusion']}\n"
        f"title: {output['title']}\n----\n{output['summary']}"
    )


def _outputs_text(run: ActionRun) -> str:
    return json.dumps(run.outputs, indent=1, sort_keys=True) + "\n"


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo as a git checkout of main (the old tools, main's recorded answers), with
    pinned commit dates so every sha repeats."""
    if not (EXAMPLE / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, "2026-12-01T06:00:00Z")
    workdir = tmp_path / "repo"
    shutil.copytree(EXAMPLE, workdir)
    for tool_file in (workdir / "baseline" / "tools").iterdir():
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    shutil.copytree(workdir / "replay" / "base", workdir / "answers")
    shutil.copytree(workdir / "replay" / "base", workdir / "answers_b")
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    return workdir


def _push_then_pr(
    server: GitHubServer, workdir: Path, **inputs: str
) -> tuple[ActionRun, ActionRun, str, str, int]:
    """Push main, then open the PR that rewords `get_forecast` with the head's answers in
    `answers/` (`answers_b/` keeps main's)."""
    main_sha = server.commit("octo/app", "main", "main", sha=git(workdir, "rev-parse", "HEAD"))
    push = run_action(
        server, workdir, "push", server.push_event("octo/app", "main"), sha=main_sha, **inputs
    )
    assert push.code == 0, push.stderr
    for tool_file in (EXAMPLE / "tools").iterdir():
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    shutil.rmtree(workdir / "answers")
    shutil.copytree(workdir / "replay" / "head", workdir / "answers")
    git(workdir, "add", "-A", "tools", "answers")
    git(workdir, "commit", "-q", "-m", "reword get_forecast")
    head_sha = server.commit("octo/app", "feature", sha=git(workdir, "rev-parse", "HEAD"))
    number = int(server.open_pull("octo/app", "feature")["number"])
    pr = run_action(
        server,
        workdir,
        "pull_request",
        server.pull_event("octo/app", number),
        sha="e" * 40,
        **inputs,
    )
    return push, pr, main_sha, head_sha, number


def test_the_single_model_demo_outputs_match_their_golden_files(
    github_server: GitHubServer, demo: Path, tmp_path: Path
) -> None:
    push, pr, main_sha, head_sha, number = _push_then_pr(
        github_server, demo, model="replay:answers", statuses="true"
    )
    [stored] = github_server.check_runs_on("octo/app", main_sha)
    _check("single/push_check.md", _check_run_text(stored), tmp_path)
    _check("single/push_summary.md", push.summary, tmp_path)
    _check("single/push_outputs.json", _outputs_text(push), tmp_path)
    digest = re.search(r"<!-- bfcl-action:digest.*?-->", stored["output"]["summary"], re.S)
    assert digest is not None
    _check("single/digest.txt", digest.group(0) + "\n", tmp_path)

    assert pr.code == 1, pr.stderr
    [comment] = github_server.comments_on("octo/app", number)
    _check("single/pr_comment.md", comment["body"], tmp_path)
    _check("single/pr_summary.md", pr.summary, tmp_path)
    _check("single/pr_outputs.json", _outputs_text(pr), tmp_path)
    [check] = github_server.check_runs_on("octo/app", head_sha)
    _check("single/pr_check.md", _check_run_text(check), tmp_path)
    statuses = github_server.repo("octo/app").statuses.get(head_sha, [])
    _check(
        "single/pr_statuses.json",
        json.dumps(
            [{k: s[k] for k in ("context", "state", "description")} for s in statuses], indent=1
        )
        + "\n",
        tmp_path,
    )


def test_the_scheduled_demo_history_line_matches_its_golden_file(
    github_server: GitHubServer, demo: Path, tmp_path: Path
) -> None:
    sha = github_server.commit("octo/app", "main", "main", sha=git(demo, "rev-parse", "HEAD"))
    schedule = {"schedule": "0 6 * * 1"}
    first = run_action(github_server, demo, "schedule", schedule, sha=sha, model="replay:answers")
    assert first.code == 0, first.stderr
    shutil.rmtree(demo / "answers")
    shutil.copytree(demo / "replay" / "head", demo / "answers")
    second = run_action(github_server, demo, "schedule", schedule, sha=sha, model="replay:answers")
    history = demo / "bfcl-results" / "history" / "bfcl-action.jsonl"
    _check("scheduled/history.jsonl", history.read_text(encoding="utf-8"), tmp_path)
    _check("scheduled/summary.md", second.summary, tmp_path)
    _check("scheduled/outputs.json", _outputs_text(second), tmp_path)
    checks = github_server.check_runs_on("octo/app", sha)
    _check("scheduled/check.md", _check_run_text(checks[-1]), tmp_path)


def test_the_matrix_demo_outputs_match_their_golden_files(
    github_server: GitHubServer, demo: Path, tmp_path: Path
) -> None:
    models = "replay:answers label=head-answers\nreplay:answers_b label=main-answers\n"
    push, pr, main_sha, head_sha, number = _push_then_pr(
        github_server, demo, models=models, statuses="true"
    )
    [stored] = github_server.check_runs_on("octo/app", main_sha)
    _check("matrix/push_check.md", _check_run_text(stored), tmp_path)
    _check("matrix/push_summary.md", push.summary, tmp_path)
    _check("matrix/push_outputs.json", _outputs_text(push), tmp_path)

    [comment] = github_server.comments_on("octo/app", number)
    _check("matrix/pr_comment.md", comment["body"], tmp_path)
    _check("matrix/pr_summary.md", pr.summary, tmp_path)
    _check("matrix/pr_outputs.json", _outputs_text(pr), tmp_path)
    [check] = github_server.check_runs_on("octo/app", head_sha)
    _check("matrix/pr_check.md", _check_run_text(check), tmp_path)


def test_shard_outputs_of_one_model_and_of_a_matrix_match_their_golden_files(
    github_server: GitHubServer, demo: Path, tmp_path: Path
) -> None:
    number = int(github_server.open_pull("octo/app", "main")["number"])
    event = github_server.pull_event("octo/app", number)
    single = run_action(
        github_server, demo, "pull_request", event, model="replay:answers", shard="1/2"
    )
    _check("single/shard_summary.md", single.summary, tmp_path)
    _check("single/shard_outputs.json", _outputs_text(single), tmp_path)
    models = "replay:answers label=head-answers\nreplay:answers_b label=main-answers\n"
    matrix = run_action(github_server, demo, "pull_request", event, models=models, shard="2/2")
    _check("matrix/shard_summary.md", matrix.summary, tmp_path)
    _check("matrix/shard_outputs.json", _outputs_text(matrix), tmp_path)
    assert github_server.writes() == []


def test_the_scheduled_matrix_outputs_match_their_golden_files(
    github_server: GitHubServer, demo: Path, tmp_path: Path
) -> None:
    sha = github_server.commit("octo/app", "main", "main", sha=git(demo, "rev-parse", "HEAD"))
    schedule = {"schedule": "0 6 * * 1"}
    models = "replay:answers label=head-answers\nreplay:answers_b label=main-answers\n"
    run_action(github_server, demo, "schedule", schedule, sha=sha, models=models)
    shutil.rmtree(demo / "answers")
    shutil.copytree(demo / "replay" / "head", demo / "answers")
    second = run_action(github_server, demo, "schedule", schedule, sha=sha, models=models)
    for label in ("head-answers", "main-answers"):
        history = demo / "bfcl-results" / "history" / f"bfcl-action_{label}.jsonl"
        _check(f"matrix/scheduled_history_{label}.jsonl", history.read_text("utf-8"), tmp_path)
    _check("matrix/scheduled_summary.md", second.summary, tmp_path)
    _check("matrix/scheduled_outputs.json", _outputs_text(second), tmp_path)
    checks = sorted(github_server.check_runs_on("octo/app", sha), key=lambda c: c["name"])
    _check("matrix/scheduled_checks.md", "\n====\n".join(map(_check_run_text, checks)), tmp_path)
