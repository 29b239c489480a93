"""The history file: atomic appends, tolerant reads, and the data branch (a bare local remote)."""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.compare.git_files import BranchStore
from bfcl_action.compare.history import (
    HistoryRecord,
    append_history,
    append_line,
    last_digest,
    parse_history,
    read_history,
    record_of,
)
from bfcl_action.compare.runs import Verdict, compare_runs
from bfcl_action.github.context import DEFAULT_CHECK_NAME
from bfcl_action.report.charts import history_chart
from tests.support.github_server import GitHubServer
from tests.support.reports import make_report
from tests.support.scheduled import DROPPED, HEALTHY, scheduled_run

SVG = "{http://www.w3.org/2000/svg}"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def record(outcomes: str = HEALTHY, day: int = 7) -> HistoryRecord:
    report = make_report({"simple_python": outcomes}, created_at=f"2026-12-{day:02d}T06:00:00Z")
    return record_of(report, check_name="bfcl", sha="a" * 40, verdict="unchanged")


def test_append_adds_one_line_per_run(tmp_path: Path) -> None:
    path = tmp_path / "h" / "bfcl.jsonl"
    append_history(path, record(day=7))
    append_history(path, record(DROPPED, day=14))
    records, skipped = read_history(path)
    assert [r.suites["simple_python"].correct for r in records] == [20, 10]
    assert skipped == []


def test_a_failed_write_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bfcl.jsonl"
    append_history(path, record())
    before = path.read_bytes()

    def crash(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        append_history(path, record(DROPPED))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["bfcl.jsonl"]  # no temporary file left


def test_a_damaged_line_is_skipped_and_reported() -> None:
    good = append_line("", record())
    records, skipped = parse_history(good + '{"suites": 3}\n' + "not json\n" + good)
    assert len(records) == 2
    assert [s.split(":")[0] for s in skipped] == [
        "history line 2 skipped",
        "history line 3 skipped",
    ]


def test_a_line_without_its_newline_is_not_merged_with_the_next() -> None:
    text = append_line("", record()).rstrip("\n")
    records, _ = parse_history(append_line(text, record(DROPPED)))
    assert len(records) == 2


def test_the_last_digest_is_a_baseline_for_the_next_run() -> None:
    text = append_line(append_line("", record()), record(DROPPED))
    records, _ = parse_history(text)
    digest = last_digest(records, "bfcl")
    assert digest is not None
    comparison = compare_runs(digest, make_report({"simple_python": HEALTHY}))
    assert comparison.verdict is Verdict.IMPROVEMENT
    assert comparison.overall.paired is not None  # case by case, not just counts


def test_the_chart_has_a_point_per_run() -> None:
    text = append_line(append_line("", record(day=7)), record(DROPPED, day=14))
    svg = history_chart(parse_history(text)[0], title="bfcl")
    assert "simple_python @ 2026-12-07 aaaaaaa: 100.0% (20/20)" in svg
    assert "simple_python @ 2026-12-14 aaaaaaa: 50.0% (10/20)" in svg


def test_runs_of_one_day_get_their_own_tick_with_date_and_short_sha() -> None:
    first, second = record(day=7), record(DROPPED, day=7)
    second.sha = "b" * 40
    svg = history_chart([first, second, record(day=7)], title="bfcl")
    root = ET.fromstring(svg)
    ticks = [
        [span.text for span in text.iter(f"{SVG}tspan")]
        for text in root.iter(f"{SVG}text")
        if list(text.iter(f"{SVG}tspan"))
    ]
    assert ticks == [
        ["2026-12-07", "aaaaaaa"],
        ["2026-12-07", "bbbbbbb"],
        ["2026-12-07", "aaaaaaa #2"],
    ]


# ------------------------------------------------------------------------------ data branch
def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def remote(tmp_path: Path) -> Callable[[str], Path]:
    """A bare remote with one commit on main; returns a function that clones it."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(bare))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "--quiet", str(bare), str(seed))
    (seed / "README.md").write_text("app\n")
    git(seed, "add", "README.md")
    git(seed, "commit", "--quiet", "-m", "initial")
    git(seed, "push", "--quiet", "origin", "HEAD:main")

    def clone(name: str) -> Path:
        target = tmp_path / name
        git(tmp_path, "clone", "--quiet", str(bare), str(target))
        return target

    return clone


def test_branch_mode_commits_the_history_to_the_data_branch(
    github_server: GitHubServer, remote: Callable[[str], Path], tmp_path: Path
) -> None:
    checkout = remote("checkout")
    head = git(checkout, "rev-parse", "HEAD")
    scheduled_run(github_server, checkout, 1, HEALTHY, history="branch")
    run = scheduled_run(github_server, checkout, 2, DROPPED, history="branch")
    bare = tmp_path / "remote.git"
    lines = git(bare, "show", f"bfcl-data:history/{DEFAULT_CHECK_NAME}.jsonl").splitlines()
    assert len(lines) == 2
    assert git(bare, "show", f"bfcl-data:history/{DEFAULT_CHECK_NAME}.svg").startswith("<svg")
    assert len(git(bare, "log", "--format=%H", "bfcl-data").split()) == 2
    # the user's checkout is untouched: same HEAD, no new branch, nothing staged
    assert git(checkout, "rev-parse", "HEAD") == head
    assert git(checkout, "branch", "--format=%(refname:short)").split() == ["main"]
    assert git(checkout, "diff", "--cached", "--name-only") == ""
    assert "/raw/" in run.summary and f"history/{DEFAULT_CHECK_NAME}.svg" in run.summary


def test_branch_mode_reads_what_another_checkout_pushed(
    github_server: GitHubServer, remote: Callable[[str], Path]
) -> None:
    scheduled_run(github_server, remote("first"), 1, HEALTHY, history="branch")
    second = remote("second")
    scheduled_run(github_server, second, 2, HEALTHY, history="branch")
    records, _ = read_history(second / "bfcl-results" / "history" / f"{DEFAULT_CHECK_NAME}.jsonl")
    assert len(records) == 2


def test_a_lost_push_race_is_retried_on_the_new_tip(remote: Callable[[str], Path]) -> None:
    ours, theirs = BranchStore(remote("a"), "bfcl-data"), BranchStore(remote("b"), "bfcl-data")
    calls = []

    def build(read: Callable[[str], str]) -> dict[str, str]:
        if not calls:  # another run pushes between our fetch and our push
            theirs.update(lambda r: {"h.jsonl": r("h.jsonl") + "theirs\n"}, "theirs")
        calls.append(1)
        return {"h.jsonl": read("h.jsonl") + "ours\n"}

    sha = ours.update(build, "ours")
    assert len(calls) == 2
    assert ours.read(sha, "h.jsonl") == "theirs\nours\n"


def test_branch_mode_without_a_git_checkout_keeps_the_local_file(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    run = scheduled_run(github_server, tmp_path / "plain", 1, HEALTHY, history="branch")
    assert "could not read the history" in run.summary
    records, _ = read_history(
        tmp_path / "plain" / "bfcl-results" / "history" / f"{DEFAULT_CHECK_NAME}.jsonl"
    )
    assert len(records) == 1


@given(st.text(max_size=400))
@settings(max_examples=200, deadline=None)
def test_any_text_parses_without_crashing(text: str) -> None:
    records, skipped = parse_history(text)
    assert len(records) + len(skipped) <= len(text.splitlines())


def test_a_hostile_check_name_cannot_leave_the_history_directory() -> None:
    from bfcl_action.github.scheduled import history_name

    assert history_name("../../etc/passwd") == ".._.._etc_passwd"
    assert "/" not in history_name("a/b\\c") and "\\" not in history_name("a/b\\c")


def test_the_history_command_prints_the_trend_and_draws_the_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action.cli import main

    path = tmp_path / "bfcl.jsonl"
    append_history(path, record(day=7))
    append_history(path, record(DROPPED, day=14))
    assert main(["history", str(path), "--svg", str(tmp_path / "trend.svg")]) == 0
    out = capsys.readouterr().out
    assert out.index("2026-12-14") < out.index("2026-12-07")  # newest first
    assert "50.0%" in out
    assert (tmp_path / "trend.svg").read_text().startswith("<svg")
