"""The alert rules as pure functions, and the issue identity (label *and* marker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.compare.runs import Comparison, compare_runs
from bfcl_action.github.alerts import (
    BODY_LIMIT,
    AlertAction,
    AlertDecision,
    RunFacts,
    alert_marker,
    decide,
    render_body,
    render_section,
    split_body,
)
from bfcl_action.settings.thresholds import Thresholds
from tests.support.github_server import GitHubServer
from tests.support.reports import make_report
from tests.support.scheduled import DROPPED, HEALTHY, WORSE, alerts, scheduled_run


def comparison(base: str | None, head: str, floor: float | None = None) -> Comparison:
    before = make_report({"simple_python": base}) if base is not None else None
    return compare_runs(before, make_report({"simple_python": head}), Thresholds(min_score=floor))


def test_a_significant_drop_opens() -> None:
    decision = decide(open_alert=False, vs_previous=comparison(HEALTHY, DROPPED), vs_reference=None)
    assert decision.action is AlertAction.OPEN
    assert any("dropped 50.0 points" in r for r in decision.reasons)


def test_a_small_or_insignificant_drop_does_not_open() -> None:
    small = "1" * 19 + "0"
    decision = decide(open_alert=False, vs_previous=comparison(HEALTHY, small), vs_reference=None)
    assert decision.action is AlertAction.NONE


def test_a_floor_breach_opens_without_a_baseline() -> None:
    decision = decide(
        open_alert=False, vs_previous=comparison(None, DROPPED, floor=80), vs_reference=None
    )
    assert decision.action is AlertAction.OPEN
    assert any("below the minimum 80" in r for r in decision.reasons)


def test_an_open_alert_stays_open_while_below_the_reference() -> None:
    decision = decide(
        open_alert=True,
        vs_previous=comparison(DROPPED, DROPPED),
        vs_reference=comparison(HEALTHY, DROPPED),
    )
    assert decision.action is AlertAction.UPDATE
    assert all("vs the reference run" in r for r in decision.reasons)


def test_an_open_alert_closes_when_back_at_the_reference() -> None:
    decision = decide(
        open_alert=True,
        vs_previous=comparison(DROPPED, HEALTHY),
        vs_reference=comparison(HEALTHY, HEALTHY),
    )
    assert decision.action is AlertAction.CLOSE


def test_a_floor_breach_is_listed_once_while_open() -> None:
    decision = decide(
        open_alert=True,
        vs_previous=comparison(None, DROPPED, floor=80),
        vs_reference=comparison(None, DROPPED, floor=80),
    )
    assert len(decision.reasons) == 2  # overall and simple_python, not twice each


def test_old_sections_are_dropped_to_fit_the_body_limit() -> None:
    facts = RunFacts(date="2026-12-07", check_name="bfcl", model="m", sha="a" * 40)
    reasons = ["- `simple_python`: " + "x" * 2000]
    section = render_section(
        facts, AlertDecision(AlertAction.UPDATE, reasons), comparison(HEALTHY, DROPPED), "t"
    )
    body = render_body(facts, [section] * 60, None, "the floors")
    assert len(body) <= BODY_LIMIT
    assert "earlier section(s) removed" in body
    sections, reference = split_body(body)
    assert 0 < len(sections) < 60 and reference is None


def test_the_reference_digest_survives_a_round_trip_through_the_body() -> None:
    from bfcl_action.results.digest import make_digest

    facts = RunFacts(date="2026-12-07", check_name="bfcl", model="m", sha="a" * 40)
    digest = make_digest(make_report({"simple_python": HEALTHY}))
    _, reference = split_body(render_body(facts, ["s1\n"], digest, "the run"))
    assert reference == digest


def test_an_issue_with_the_marker_but_without_the_label_is_not_the_alert(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    from github import Auth, Github

    gh = Github(auth=Auth.Token("write-token"), base_url=github_server.url)
    gh.get_repo("octo/app").create_issue(title="copied", body=alert_marker("bfcl") + "\nhello")
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    scheduled_run(github_server, tmp_path, 2, DROPPED)
    assert len(alerts(github_server)) == 1
    assert github_server.repo("octo/app").issues[1]["body"].endswith("hello")


def test_workflow_dispatch_on_another_branch_leaves_alert_and_history_alone(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_REF", "refs/heads/feature")
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    scheduled_run(github_server, tmp_path, 2, WORSE, thresholds="min-score=80")
    assert alerts(github_server, "all") == []
    assert not (tmp_path / "bfcl-results" / "history").exists()
