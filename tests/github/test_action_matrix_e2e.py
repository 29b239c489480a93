"""A model matrix end to end through the Action entrypoint (subprocess, local GitHub and
OpenAI-compatible servers).

Two models evaluate the example app: `steady` always answers right; `fragile` answers a
"right now" question with `get_forecast` once that tool no longer says it is not for current
conditions. Each model has its own endpoint and its own key variable. A push to main stores
both models' digests in one check run; the PR that rewords `get_forecast` gets ONE comment
with both models, a regression in `fragile` only, and the step fails; marked informational,
`fragile` still shows its regression but the step passes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from bfcl_action.cases.suites import build_cases
from bfcl_action.results.digest import parse_digests
from bfcl_action.settings.config import load_config
from tests.support.action import ActionRun, git, run_action
from tests.support.example_app import EXAMPLE, expected_calls, scripted_model
from tests.support.github_server import GitHubServer
from tests.support.openai_server import OpenAIServer

STEADY_KEY = "sk-steady-0123456789abcdef"
FRAGILE_KEY = "sk-fragile-0123456789abcdef"


def _repo(tmp_path: Path, github_server: GitHubServer) -> tuple[Path, str]:
    workdir = tmp_path / "repo"
    shutil.copytree(EXAMPLE, workdir, ignore=shutil.ignore_patterns("replay"))
    for tool_file in (workdir / "baseline" / "tools").iterdir():
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    sha = git(workdir, "rev-parse", "HEAD")
    github_server.commit("octo/app", "main", "main", sha=sha)
    return workdir, sha


def _matrix_runs(
    github_server: GitHubServer, tmp_path: Path, *, informational: bool
) -> tuple[ActionRun, ActionRun, int, str]:
    workdir, main_sha = _repo(tmp_path, github_server)
    calls = expected_calls(build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir))
    with OpenAIServer() as steady, OpenAIServer() as fragile:
        steady.responder = scripted_model(calls, fragile=False)
        steady.api_key = STEADY_KEY
        fragile.responder = scripted_model(calls)
        fragile.api_key = FRAGILE_KEY
        models = (
            "# one line per model\n"
            "steady-model label=steady\n"
            f"fragile-model label=fragile base-url={fragile.base_url} "
            "api-key-env=FRAGILE_API_KEY" + (" informational=true" if informational else "") + "\n"
        )
        inputs = {
            "statuses": "true",
            "models": models,
            "base_url": steady.base_url,  # every model without its own endpoint
            "api_key": STEADY_KEY,  # every model without its own key variable
            "extra_env": {
                "FRAGILE_API_KEY": FRAGILE_KEY,
                "BFCL_RESPONSE_CACHE_DIR": str(tmp_path / "cache"),
            },
        }
        push = run_action(
            github_server,
            workdir,
            "push",
            github_server.push_event("octo/app", "main"),
            sha=main_sha,
            **inputs,  # type: ignore[arg-type]
        )
        assert push.code == 0, push.stderr
        for tool_file in (EXAMPLE / "tools").iterdir():  # the PR rewords get_forecast
            shutil.copy(tool_file, workdir / "tools" / tool_file.name)
        git(workdir, "commit", "-q", "-am", "reword get_forecast")
        head_sha = git(workdir, "rev-parse", "HEAD")
        github_server.commit("octo/app", "feature", sha=head_sha)
        number = int(github_server.open_pull("octo/app", "feature")["number"])
        pr = run_action(
            github_server,
            workdir,
            "pull_request",
            github_server.pull_event("octo/app", number),
            sha="e" * 40,
            **inputs,  # type: ignore[arg-type]
        )
        assert steady.requests and fragile.requests  # each model asked its own endpoint
        assert {b["model"] for b in steady.requests} == {"steady-model"}
        assert {b["model"] for b in fragile.requests} == {"fragile-model"}
    return push, pr, number, head_sha


def _no_key_anywhere(*texts: str) -> None:
    for text in texts:
        assert STEADY_KEY not in text and FRAGILE_KEY not in text


def test_a_two_model_matrix_posts_one_comment_with_a_regression_in_one_model_only(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    push, pr, number, head_sha = _matrix_runs(github_server, tmp_path, informational=False)

    main_sha = github_server.repo("octo/app").branches["main"]
    [stored] = github_server.check_runs_on("octo/app", main_sha)
    assert [d.label for d in parse_digests(stored["output"]["summary"])] == ["steady", "fragile"]

    assert pr.code == 1, pr.stderr  # fragile regressed and gates the check
    [comment] = github_server.comments_on("octo/app", number)
    body = comment["body"]
    if os.environ.get("BFCL_DUMP_COMMENT"):
        Path(os.environ["BFCL_DUMP_COMMENT"]).write_text(
            body + "\n\n----SUMMARY----\n" + pr.summary
        )
    assert body.startswith("<!-- ") or "### ❌" in body
    assert "regression in `fragile`" in body
    heading = next(line for line in body.splitlines() if line.startswith("### "))
    assert "regression in `fragile` — `fragile`: overall dropped 14.3 points" in heading
    assert "significant over" in heading  # the rule that fired, with its numbers
    lines = body.splitlines()
    steady_row = next(line for line in lines if line.startswith("| `steady` (`steady-model`)"))
    fragile_row = next(line for line in lines if line.startswith("| `fragile` (`fragile-model`)"))
    assert "➖ unchanged" in steady_row and "±0.0" in steady_row
    assert "❌ regression" in fragile_row
    assert "| Suite | `steady` | `fragile` |" in body  # the model x suite table
    assert "Which model?" in body
    assert "<code>fragile</code>: regression" in body and "<code>steady</code>: unchanged" in body
    assert "baseline: its fragile run in the bfcl-action check run on the merge-base" in body

    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "failure"
    assert check["output"]["title"].startswith("steady ") and "fragile" in check["output"]["title"]
    assert [d.label for d in parse_digests(check["output"]["summary"])] == ["steady", "fragile"]

    statuses = github_server.latest_statuses("octo/app", head_sha)
    # own_multiple fell 50 points, but with the model's nine suites tested together (Holm)
    # that one suite is not significant on its own; the overall drop gates the check
    fragile_multiple = statuses["bfcl-action/fragile/own_multiple"]
    assert fragile_multiple["state"] == "success"
    assert fragile_multiple["description"].endswith("unchanged")
    assert "(-50.0 pts)" in fragile_multiple["description"]
    assert statuses["bfcl-action/steady/own_multiple"]["state"] == "success"
    models = json.loads(pr.outputs["models"])
    assert models["steady"]["verdict"] == "unchanged"
    assert models["fragile"]["verdict"] == "regression"
    assert pr.outputs["verdict"] == "regression"
    assert Path(models["fragile"]["report"]).is_file()
    assert "regression in `fragile`" in pr.summary
    _no_key_anywhere(
        body,
        pr.summary,
        pr.stdout,
        pr.stderr,
        json.dumps(pr.outputs),
        check["output"]["summary"],
        push.stdout,
        push.stderr,
        *(p.read_text() for p in Path(models["fragile"]["report"]).parent.glob("*.json")),
    )


def test_an_informational_model_shows_its_regression_and_never_fails_the_check(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    _push, pr, number, head_sha = _matrix_runs(github_server, tmp_path, informational=True)
    assert pr.code == 0, pr.stderr
    [comment] = github_server.comments_on("octo/app", number)
    body = comment["body"]
    assert "informational (never fail the check): `fragile`" in body
    fragile_row = next(line for line in body.splitlines() if line.startswith("| `fragile`"))
    assert "❌ regression" in fragile_row and "informational" in fragile_row
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "neutral"
    assert pr.outputs["verdict"] == "unchanged"


def test_scheduled_matrix_tracks_each_model_with_its_own_check_history_and_alert(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """Reports of a matrix whose jobs ran elsewhere (the `report` input, grouped by label):
    each model gets the check run, history file and alert issue its own step would have."""
    from bfcl_action.github.alerts import ALERT_LABEL
    from tests.support.action import write_report
    from tests.support.reports import make_report
    from tests.support.scheduled import DROPPED, HEALTHY, SCHEDULE

    sha = github_server.repo("octo/app").branches["main"]

    def week(n: int, outcomes: dict[str, str]) -> ActionRun:
        names = []
        for label, outcome in outcomes.items():
            report = make_report(
                {"simple_python": outcome},
                model=f"{label}-model",
                created_at=f"2026-12-0{n}T06:00:00Z",
            )
            report.label = label
            names.append(write_report(tmp_path / f"week{n}-{label}.json", report))
        return run_action(
            github_server,
            tmp_path,
            "schedule",
            SCHEDULE,
            sha=sha,
            in_process=True,
            report=" ".join(names),
            models="a-model label=a\nb-model label=b",
        )

    first = week(1, {"a": HEALTHY, "b": HEALTHY})
    assert first.code == 0, first.stderr
    second = week(2, {"a": HEALTHY, "b": DROPPED})
    assert second.code == 1, second.stderr  # b degraded
    names = {run["name"] for run in github_server.check_runs_on("octo/app", sha)}
    assert names == {"bfcl-action/a", "bfcl-action/b"}
    issues = [
        i
        for i in github_server.repo("octo/app").issues.values()
        if ALERT_LABEL in {label["name"] for label in i["labels"]} and i["state"] == "open"
    ]
    assert len(issues) == 1 and "bfcl-action/b" in issues[0]["title"] + issues[0]["body"]
    history = tmp_path / "bfcl-results" / "history"
    assert {p.name for p in history.glob("*.jsonl")} == {
        "bfcl-action_a.jsonl",
        "bfcl-action_b.jsonl",
    }
    models = json.loads(second.outputs["models"])
    assert {k: v["verdict"] for k, v in models.items()} == {"a": "unchanged", "b": "regression"}
    assert second.outputs["verdict"] == "regression"
    assert "## Which model should we ship?" in second.summary
    assert "bfcl-action/a" in second.summary and "bfcl-action/b" in second.summary


def test_a_single_model_pr_finds_its_own_digest_in_a_matrix_check_run(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """Back from a matrix to one model: the merge-base check run holds one digest per model,
    and the single-model run compares with the digest of its own model, not the last one."""
    from tests.support.action import open_pr, write_report
    from tests.support.reports import make_report

    sha = github_server.repo("octo/app").branches["main"]
    names = []
    for label, outcomes in (("b", "1" * 10 + "0" * 10), ("a", "1" * 20)):
        report = make_report({"simple_python": outcomes}, model=f"{label}-model")
        report.label = label
        names.append(write_report(tmp_path / f"{label}.json", report))
    push = run_action(
        github_server,
        tmp_path,
        "push",
        github_server.push_event("octo/app", "main"),
        sha=sha,
        in_process=True,
        report=" ".join(names),
        models="b-model label=b\na-model label=a",  # a's digest comes last
    )
    assert push.code == 0, push.stderr
    number = open_pr(github_server)
    head = write_report(
        tmp_path / "pr" / "head.json",
        make_report({"simple_python": "1" * 10 + "0" * 10}, model="b-model"),
    )
    pr = run_action(
        github_server,
        tmp_path / "pr",
        "pull_request",
        github_server.pull_event("octo/app", number),
        in_process=True,
        report=head,
    )
    assert pr.code == 0, pr.stderr
    # against b's digest; a's would be a regression
    assert pr.outputs["verdict"] == "unchanged", pr.summary


def test_a_fork_matrix_cannot_send_the_job_token_to_an_endpoint_it_names(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """A fork PR gets no secrets, but the job still holds its (read-only) token. A fork's
    `.bfcl.yml` that names the token's variable as a model key and its own endpoint is
    refused before any request: the token never leaves the job."""
    from tests.support.action import write_tools

    github_server.fork("octo/app", "mallory/app")
    github_server.commit("mallory/app", "patch")
    number = github_server.open_pull("octo/app", "patch", head_repo="mallory/app")["number"]
    token = "ghs-read-only-job-token-0123456789"
    with OpenAIServer() as evil:
        workdir = tmp_path / "fork"
        write_tools(workdir)
        (workdir / ".bfcl.yml").write_text(
            "tools:\n  - tools.json\nmodels:\n"
            f"  - {{name: x, base_url: '{evil.base_url}', api_key_env: INPUT_GITHUB_TOKEN}}\n"
            f"  - {{name: y, base_url: '{evil.base_url}', api_key_env: GITHUB_TOKEN}}\n"
        )
        run = run_action(
            github_server,
            workdir,
            "pull_request",
            github_server.pull_event("octo/app", number),
            token=token,
            extra_env={"GITHUB_TOKEN": token},
        )
        assert evil.requests == []
    assert run.code != 0
    assert (
        "INPUT_GITHUB_TOKEN is the runner's or the Action's own variable" in run.stdout + run.stderr
    )
    _no_key_anywhere(run.stdout, run.stderr)
    assert token not in run.stdout + run.stderr + run.summary


def test_matrix_shards_are_reported_together_by_the_final_job(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """`shard: i/n` with a matrix: each shard job runs every model on its part of the cases
    and keeps one report per model; the final job's `report:` glob merges each model's
    shards and publishes one check run with every model's full digest."""
    workdir = tmp_path / "app"
    shutil.copytree(EXAMPLE, workdir)
    models = "replay:replay/base label=base\nreplay:replay/head label=head"
    sha = github_server.repo("octo/app").branches["main"]
    for index in (1, 2):
        shard = run_action(
            github_server,
            workdir,
            "push",
            github_server.push_event("octo/app", "main"),
            sha=sha,
            in_process=True,
            models=models,
            shard=f"{index}/2",
            output_dir=f"shards/{index}",
        )
        assert shard.code == 0, shard.stderr
        assert shard.outputs["verdict"] == "shard"
        assert json.loads(shard.outputs["models"]).keys() == {"base", "head"}
    assert github_server.check_runs_on("octo/app", sha) == []  # shards publish nothing
    final = run_action(
        github_server,
        workdir,
        "push",
        github_server.push_event("octo/app", "main"),
        sha=sha,
        in_process=True,
        models=models,
        report="shards/*/report.*.json",
    )
    assert final.code == 0, final.stderr
    [check] = github_server.check_runs_on("octo/app", sha)
    digests = parse_digests(check["output"]["summary"])
    assert [d.label for d in digests] == ["base", "head"]
    totals = {d.label: sum(s.total + s.infra_errors for s in d.suites.values()) for d in digests}
    cases = len(build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir))
    assert totals == {"base": cases, "head": cases}


def test_a_matrix_model_without_a_key_stops_the_run_before_any_request(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    from tests.support.action import write_tools

    write_tools(tmp_path)
    run = run_action(
        github_server,
        tmp_path,
        "push",
        github_server.push_event("octo/app", "main"),
        in_process=True,
        models="gpt-4o-mini\ngpt-4.1 api-key-env=SECOND_API_KEY",
        extra_env={"SECOND_API_KEY": "sk-second-0123456789"},
    )
    assert run.code == 2
    assert "no API key for gpt-4o-mini (api-key input)" in run.stdout + run.stderr
    assert "sk-second-0123456789" not in run.stdout + run.stderr + run.summary
    assert github_server.writes() == []
