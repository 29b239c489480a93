"""End to end: scheduled runs against the local GitHub server, through PyGithub.

A weekly series of run reports (the `report` input, so no model is called) goes through
`bfcl-action github` on `schedule` events. The alert issue is read back from the server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bfcl_action.compare.history import read_history
from bfcl_action.github.alerts import alert_marker
from bfcl_action.github.context import DEFAULT_CHECK_NAME
from tests.support.github_server import GitHubServer
from tests.support.scheduled import DROPPED, HEALTHY, WORSE, alerts, scheduled_run


def test_a_healthy_series_opens_no_alert(github_server: GitHubServer, tmp_path: Path) -> None:
    for week in (1, 2):
        run = scheduled_run(github_server, tmp_path, week, HEALTHY)
        assert run.code == 0
    assert alerts(github_server, "all") == []


def test_a_degrading_series_opens_one_alert_updates_it_then_closes_it_on_recovery(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    assert scheduled_run(github_server, tmp_path, 1, HEALTHY).code == 0

    dropped = scheduled_run(github_server, tmp_path, 2, DROPPED)
    assert dropped.code == 1  # a regression fails the scheduled run like a PR check
    [issue] = alerts(github_server)
    assert dropped.outputs["alert"] == "opened"
    assert dropped.outputs["alert-issue"] == str(issue["number"])
    assert "simple_python" in issue["body"] and "dropped 50.0 points" in issue["body"]
    assert issue["body"].count("<!-- bfcl-action:alert-section -->") == 1

    scheduled_run(github_server, tmp_path, 3, WORSE)
    [same] = alerts(github_server)
    assert same["number"] == issue["number"]
    assert same["body"].count("<!-- bfcl-action:alert-section -->") == 2
    comments = github_server.comments_on("octo/app", issue["number"])
    assert any("Degraded again" in c["body"] for c in comments)

    recovered = scheduled_run(github_server, tmp_path, 4, HEALTHY)
    assert recovered.code == 0
    assert recovered.outputs["alert"] == "closed"
    assert recovered.outputs["history-path"].endswith(
        f"bfcl-results/history/{DEFAULT_CHECK_NAME}.jsonl"
    )
    assert alerts(github_server) == []
    closed = github_server.repo("octo/app").issues[issue["number"]]
    assert closed["state"] == "closed"
    last = github_server.comments_on("octo/app", issue["number"])[-1]
    assert last["body"].startswith("✅ Recovered")
    assert len(alerts(github_server, "all")) == 1


def test_a_score_that_stays_down_keeps_the_alert_open(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    scheduled_run(github_server, tmp_path, 2, DROPPED)
    # unchanged against last week, but still 50 points below the run before the alert
    scheduled_run(github_server, tmp_path, 3, DROPPED)
    [issue] = alerts(github_server)
    assert issue["body"].count("<!-- bfcl-action:alert-section -->") == 2
    assert "still degraded" in issue["body"]


def test_a_floor_breach_alerts_without_any_earlier_run(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    run = scheduled_run(github_server, tmp_path, 1, DROPPED, thresholds="min-score=80")
    assert run.code == 1
    [issue] = alerts(github_server)
    assert "below the minimum 80" in issue["body"]
    assert "the configured floors" in issue["body"]


def test_the_previous_scheduled_run_is_found_on_an_older_commit(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    scheduled_run(github_server, tmp_path / "week1", 1, HEALTHY)
    github_server.commit("octo/app", "main", "a week of changes")
    run = scheduled_run(github_server, tmp_path / "week2", 2, DROPPED)  # no history file here
    assert "previous scheduled run" in run.summary
    assert len(alerts(github_server)) == 1


def test_no_alert_is_opened_when_the_alert_lookup_fails(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    github_server.fail("GET", r"/issues$", 500, times=20)
    run = scheduled_run(github_server, tmp_path, 2, DROPPED)
    assert alerts(github_server, "all") == []
    assert "could not look for the open alert issue" in run.summary


def test_an_existing_alert_is_never_duplicated(github_server: GitHubServer, tmp_path: Path) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    scheduled_run(github_server, tmp_path, 2, DROPPED)
    scheduled_run(github_server, tmp_path, 3, WORSE)
    scheduled_run(github_server, tmp_path, 4, WORSE)
    assert len(alerts(github_server, "all")) == 1


def test_alerts_are_off_with_the_alert_input(github_server: GitHubServer, tmp_path: Path) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY, alert="false")
    run = scheduled_run(github_server, tmp_path, 2, DROPPED, alert="false")
    assert alerts(github_server, "all") == []
    assert "Alert issues are off" in run.summary


def test_each_check_name_has_its_own_alert(github_server: GitHubServer, tmp_path: Path) -> None:
    for name in ("bfcl", "bfcl-nightly"):
        scheduled_run(github_server, tmp_path / name, 1, HEALTHY, check_name=name)
        scheduled_run(github_server, tmp_path / name, 2, DROPPED, check_name=name)
    issues = [i for i in github_server.repo("octo/app").issues.values() if i["state"] == "open"]
    assert sorted(alert_marker(n) in i["body"] for n in ("bfcl",) for i in issues) == [
        False,
        True,
    ]
    assert len(issues) == 2


# ------------------------------------------------------------------------------ history
def history_file(workdir: Path, name: str = DEFAULT_CHECK_NAME) -> Path:
    return workdir / "bfcl-results" / "history" / f"{name}.jsonl"


def test_every_scheduled_run_appends_one_history_line(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    for week, outcomes in enumerate((HEALTHY, DROPPED, HEALTHY), start=1):
        scheduled_run(github_server, tmp_path, week, outcomes)
    records, skipped = read_history(history_file(tmp_path))
    assert skipped == []
    assert [r.created_at[:10] for r in records] == ["2026-12-07", "2026-12-14", "2026-12-21"]
    assert [r.suites["simple_python"].correct for r in records] == [20, 10, 20]
    assert [r.alert for r in records] == ["", "opened", "closed"]


def test_the_history_file_survives_a_failed_run(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    github_server.fail("*", ".*", 500, times=1000)  # GitHub is down as well
    run = scheduled_run(github_server, tmp_path, 2, DROPPED, thresholds="min-score=80")
    assert run.code == 1
    records, _ = read_history(history_file(tmp_path))
    assert len(records) == 2 and records[-1].verdict == "regression"
    assert history_file(tmp_path).with_suffix(".svg").read_text().startswith("<svg")


def test_the_trend_chart_and_table_reach_the_job_summary(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY)
    run = scheduled_run(github_server, tmp_path, 2, DROPPED)
    assert "### Trend" in run.summary
    assert "| 2026-12-14" in run.summary and "50.0%" in run.summary
    svg = history_file(tmp_path).with_suffix(".svg").read_text()
    # the x label is the date and the commit (distinct labels for runs on one day)
    assert re.search(r"simple_python @ 2026-12-14[^:<]*: 50\.0% \(10/20\)", svg)


def test_history_off_writes_no_file(github_server: GitHubServer, tmp_path: Path) -> None:
    scheduled_run(github_server, tmp_path, 1, HEALTHY, history="off")
    assert not history_file(tmp_path).exists()


def test_the_scheduled_check_run_carries_the_marker_and_the_digest(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    run = scheduled_run(github_server, tmp_path, 1, HEALTHY)
    sha = github_server.repo("octo/app").branches["main"]
    [check] = github_server.check_runs_on("octo/app", sha)
    assert check["output"]["summary"].startswith("<!-- bfcl-action:scheduled -->")
    assert "bfcl-action:digest" in check["output"]["summary"]
    assert run.outputs["verdict"] == "no_baseline"


def test_metrics_files_are_written_on_request(github_server: GitHubServer, tmp_path: Path) -> None:
    scheduled_run(
        github_server,
        tmp_path,
        1,
        HEALTHY,
        metrics_json="out/metrics.json",
        metrics_openmetrics="out/metrics.prom",
    )
    data = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert data["overall"]["cases"] == 30
    assert (tmp_path / "out" / "metrics.prom").read_text().endswith("# EOF\n")
