"""The product's main loop, end to end through the Action entrypoint with the cache on.

A push to main evaluates the example app against a local OpenAI-compatible model and saves
the response cache (as action.yml's `actions/cache` steps would: here one directory shared
by the runs); a second push with no change asks 0 requests; a PR that rewords one tool's
description asks exactly the requests `impact` predicts, which are the cases offering that
tool; the derived cases that do not offer it are byte-identical; the comment's headline
shows the numbers of its table and says what was asked and reused.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from bfcl_action.cases.suites import build_cases
from bfcl_action.compare.git_files import tree_at_ref
from bfcl_action.core.records import TestCase
from bfcl_action.settings.config import load_config
from tests.support.action import git, run_action
from tests.support.example_app import EXAMPLE, expected_calls, predicted_impact, scripted_model
from tests.support.github_server import GitHubServer
from tests.support.openai_server import OpenAIServer


def _cases_at(workdir: Path, ref: str) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        base = tree_at_ref(workdir, ref, workdir, Path(tmp))
        cases = build_cases(load_config(base / ".bfcl.yml"), base_dir=base)
        return {c.id: c.model_dump_json(exclude={"source", "environment_paths"}) for c in cases}


def _headline_matches_table(body: str) -> None:
    lines = body.splitlines()
    headline = next(line for line in lines if line.startswith("**Overall"))
    overall = next(line for line in lines if line.startswith("| **overall**"))
    cells = [c.strip() for c in overall.split("|")]
    base, head, delta = cells[2].split(" ")[0], cells[3].split(" ")[0], cells[4]
    assert f"{head}%" in headline and f"{base}%" in headline, (headline, overall)
    assert f"({delta} points" in headline


def test_a_one_tool_pr_pays_for_exactly_the_cases_that_offer_the_tool(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "repo"
    shutil.copytree(EXAMPLE, workdir, ignore=shutil.ignore_patterns("replay"))
    for tool_file in (workdir / "baseline" / "tools").iterdir():  # main: the old tools
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    main_sha = git(workdir, "rev-parse", "HEAD")
    github_server.commit("octo/app", "main", "main", sha=main_sha)
    cache = tmp_path / "restored-by-actions-cache"
    cases = build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir)

    with OpenAIServer() as model:
        model.responder = scripted_model(expected_calls(cases))
        inputs = {
            "model": "gpt-4o-mini",
            "base_url": model.base_url,
            "api_key": "sk-local-test",
            "extra_env": {"BFCL_RESPONSE_CACHE_DIR": str(cache)},
        }

        def push() -> int:
            before = len(model.requests)
            event = github_server.push_event("octo/app", "main")
            run = run_action(github_server, workdir, "push", event, sha=main_sha, **inputs)
            assert run.code == 0, run.stderr
            return len(model.requests) - before

        assert push() == len({c.id for c in cases}) - _identical_pairs(cases)
        assert push() == 0  # nothing changed: every answer from the cache

        for tool_file in (EXAMPLE / "tools").iterdir():  # the PR rewords get_forecast
            shutil.copy(tool_file, workdir / "tools" / tool_file.name)
        git(workdir, "commit", "-q", "-am", "reword get_forecast")
        head_sha = git(workdir, "rev-parse", "HEAD")
        github_server.commit("octo/app", "feature", sha=head_sha)
        number = int(github_server.open_pull("octo/app", "feature")["number"])
        predicted = predicted_impact(workdir, main_sha)
        before = len(model.requests)
        pr = run_action(
            github_server,
            workdir,
            "pull_request",
            github_server.pull_event("octo/app", number),
            sha="e" * 40,
            **inputs,
        )
        asked = len(model.requests) - before

    head_cases = build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir)
    offering = {c.id for c in head_cases if "get_forecast" in [f.name for f in c.functions]}
    assert predicted["changes"]["changed"] == ["get_forecast"]
    assert set(predicted["impacted"]) == offering
    assert asked == predicted["requests"]  # distinct requests: identical ones asked once
    assert pr.code == 1, pr.stderr  # the reworded description made current questions fail

    base_cases, now = _cases_at(workdir, main_sha), _cases_at(workdir, head_sha)
    assert base_cases.keys() == now.keys()
    for case_id in base_cases.keys() - offering:
        assert base_cases[case_id] == now[case_id], case_id

    [comment] = github_server.comments_on("octo/app", number)
    body = comment["body"]
    _headline_matches_table(body)
    reused = len(head_cases) - len(offering)
    assert re.search(rf"Model requests: \*\*{asked} asked\*\*, {reused} reused from cache", body)
    assert f"**{asked} asked**" in pr.summary
    assert "`get_forecast` (changed)" in body and "~~" in body  # the word diff


def _identical_pairs(cases: list[TestCase]) -> int:
    """Cases whose request equals another case's (asked once per run)."""
    seen: set[str] = set()
    dup = 0
    for case in cases:
        key = json.dumps(
            [case.model_dump(mode="json")["question"], [f.model_dump() for f in case.functions]],
            sort_keys=True,
        )
        dup += key in seen
        seen.add(key)
    return dup
