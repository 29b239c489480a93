"""The degradation alert: one issue per check name, opened, updated, then closed.

The issue is found by its label (`bfcl-alert`) *and* a hidden marker naming the check, so
two instances of the action keep separate alerts and an unrelated issue with the label is
never touched. While an alert is open no second one is opened: further degraded runs add a
dated section to it; a healthy run comments and closes it.

The issue body also keeps, as a digest, the *reference* run: the last healthy run before
the alert opened. Recovery is judged against it, not against last week's degraded run, so a
score that dropped and stayed down keeps the alert open (see `decide`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from github import GithubException
from github.Issue import Issue
from github.Repository import Repository

from bfcl_action.compare.runs import OVERALL, Comparison, SuiteComparison, Verdict
from bfcl_action.core.errors import BfclActionError
from bfcl_action.report import github_limits as limits
from bfcl_action.results.digest import RunDigest, parse_digest
from bfcl_action.safety.escape import md_code, md_inline

ALERT_LABEL = "bfcl-alert"
LABEL_COLOR = "d73a4a"
LABEL_DESCRIPTION = "bfcl-action: a scheduled evaluation degraded"
BODY_LIMIT = limits.ISSUE_BODY.size
"""Characters (GitHub counts issue bodies in characters)."""
SECTIONS_START = "<!-- bfcl-action:alert-sections -->"
SECTION_MARK = "<!-- bfcl-action:alert-section -->"
REFERENCE_START = "<!-- bfcl-action:alert-reference -->"


class AlertAction(StrEnum):
    NONE = ""
    OPEN = "opened"
    UPDATE = "updated"
    CLOSE = "closed"


def alert_marker(check_name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9 ._/:@+-]", "_", check_name)[:100]
    return f"<!-- bfcl-action:alert check-name={safe} -->"


def degradation_reasons(comparison: Comparison, against: str = "") -> list[str]:
    """One Markdown line per regressed row (overall first): floor breaches and real drops;
    `against` names the baseline when it is not the previous scheduled run."""
    where = f" ({against})" if against else ""
    return [f"- {name}{where}: {text}" for name, text in _regressed(comparison)]


def _regressed(comparison: Comparison) -> list[tuple[str, str]]:
    rows: list[SuiteComparison] = [comparison.overall, *comparison.suites]
    lines = []
    for row in rows:
        if row.verdict is not Verdict.REGRESSION:
            continue
        name = "overall" if row.suite == OVERALL else md_code(row.suite, 80)
        lines.append((name, md_inline("; ".join(row.reasons), 400)))
    return lines


def significant_drops(comparison: Comparison) -> list[str]:
    """Reasons of the rows that dropped significantly (not those only below a floor)."""
    return [
        f"- {'overall' if row.suite == OVERALL else md_code(row.suite, 80)}: "
        f"{md_inline(row.reasons[0], 400)}"
        for row in [comparison.overall, *comparison.suites]
        if row.verdict is Verdict.REGRESSION
        and row.significant
        and (row.delta_points or 0) < 0
        and row.reasons
    ]


def is_degraded(comparison: Comparison | None) -> bool:
    return comparison is not None and comparison.verdict is Verdict.REGRESSION


@dataclass
class AlertDecision:
    """What to do with the alert, and why (pure; `decide` makes it)."""

    action: AlertAction
    reasons: list[str] = field(default_factory=list)
    reference_note: str = ""


def decide(
    *,
    open_alert: bool,
    vs_previous: Comparison,
    vs_reference: Comparison | None,
) -> AlertDecision:
    """Open on a degradation; while open, update while degraded (against the previous run
    *or* the reference), close once neither comparison is a regression."""
    reasons = degradation_reasons(vs_previous)
    if not open_alert:
        return AlertDecision(AlertAction.OPEN if reasons else AlertAction.NONE, reasons)
    if vs_reference is not None:
        listed = set(_regressed(vs_previous))
        for name, text in _regressed(vs_reference):
            if (name, text) not in listed:  # a floor breach is listed once
                reasons.append(f"- {name} (vs the reference run): {text}")
    note = ""
    if vs_reference is not None and not vs_reference.comparable and vs_reference.has_baseline:
        note = (
            "The configuration changed since the alert opened, so only the floors were checked "
            "against the reference run."
        )
    return AlertDecision(AlertAction.UPDATE if reasons else AlertAction.CLOSE, reasons, note)


# ------------------------------------------------------------------------------ rendering
@dataclass
class RunFacts:
    """What a section says about the run that wrote it."""

    date: str
    check_name: str
    model: str
    sha: str
    run_url: str = ""
    chart_url: str = ""
    trend: str = ""
    """A Markdown trend table, shown when there is no chart image."""


def _score(comparison: Comparison) -> str:
    head = comparison.overall.head
    if head is None or head.accuracy is None:
        return "n/a"
    delta = comparison.overall.delta_points
    moved = f" ({delta:+.1f} pts vs the previous scheduled run)" if delta is not None else ""
    return f"{head.accuracy * 100:.1f}% ({head.correct}/{head.total}){moved}"


def _run_line(facts: RunFacts) -> str:
    link = f" · [workflow run]({facts.run_url})" if facts.run_url else ""
    return f"model {md_code(facts.model, 120)} on {md_code(facts.sha[:12])}{link}"


def _chart(facts: RunFacts) -> str:
    if facts.chart_url:
        return f"![Scores of the scheduled runs]({facts.chart_url})\n"
    return facts.trend


def render_section(
    facts: RunFacts, decision: AlertDecision, comparison: Comparison, title: str
) -> str:
    reasons = "\n".join(decision.reasons) or "- no suite below its floor or significantly down"
    note = f"\n{decision.reference_note}\n" if decision.reference_note else ""
    return (
        f"{SECTION_MARK}\n### {md_inline(facts.date)} · {title}\n\n"
        f"Overall {_score(comparison)}; {_run_line(facts)}\n\n{reasons}\n{note}"
    )


def issue_title(check_name: str, model: str) -> str:
    return f"bfcl-action: scheduled evaluation degraded ({check_name}, {model})"[:250]


def render_body(
    facts: RunFacts,
    sections: list[str],
    reference: str | None,
    reference_label: str,
) -> str:
    """The whole issue body: header, latest chart, dated sections, reference digest."""
    header = (
        f"{alert_marker(facts.check_name)}\n"
        f"## The scheduled `{md_inline(facts.check_name, 100)}` evaluation degraded\n\n"
        "bfcl-action opened this issue because a scheduled run regressed significantly or fell "
        "below a configured floor. Each further degraded run adds a dated section below; the "
        "first healthy run comments and closes the issue. Do not remove the hidden markers.\n\n"
        f"#### Trend (as of {md_inline(facts.date)})\n\n{_chart(facts)}\n"
        f"#### Runs\n\n{SECTIONS_START}\n"
    )
    footer = f"\n{REFERENCE_START}\n<sub>Recovery is judged against {reference_label}.</sub>\n" + (
        f"{reference}\n" if reference else ""
    )
    kept = list(sections)
    dropped = 0
    while len(header) + sum(len(s) + 1 for s in kept) + len(footer) + 120 > BODY_LIMIT and (
        len(kept) > 1
    ):
        kept.pop(0)
        dropped += 1
    note = f"_{dropped} earlier section(s) removed to fit; see the issue's edit history._\n" * (
        dropped > 0
    )
    return header + note + "\n".join(kept) + footer


def split_body(body: str) -> tuple[list[str], str | None]:
    """The dated sections and the reference digest text of an existing alert body."""
    sections_part = body.split(SECTIONS_START, 1)[1] if SECTIONS_START in body else ""
    sections_part, _, reference_part = sections_part.partition(REFERENCE_START)
    sections = [
        SECTION_MARK + chunk.rstrip("\n") + "\n"
        for chunk in sections_part.split(SECTION_MARK)[1:]
        if chunk.strip()
    ]
    match = re.search(r"<!--\s*bfcl-action:digest[^>]*-->", reference_part)
    return sections, match.group(0) if match else None


def reference_digest(issue: Issue) -> RunDigest | None:
    _, text = split_body(issue.body or "")
    if text is None:
        return None
    try:
        return parse_digest(text, source=f"alert issue #{issue.number}")
    except BfclActionError:
        return None


def render_recovery(facts: RunFacts, comparison: Comparison) -> str:
    return (
        f"✅ Recovered on {md_inline(facts.date)}: overall {_score(comparison)}; "
        f"{_run_line(facts)}. No suite is below its floor or significantly down from the "
        "reference run, so this alert is closed. A new degradation opens a new issue.\n"
    )


# ------------------------------------------------------------------------------ GitHub calls
def find_alert(repo: Repository, check_name: str, label: str = ALERT_LABEL) -> Issue | None:
    """The open alert of `check_name` (label and marker both match); the oldest if several."""
    marker = alert_marker(check_name)
    found = [
        issue
        for issue in repo.get_issues(state="open", labels=[label])
        if marker in (issue.body or "") and issue.pull_request is None
    ]
    return min(found, key=lambda i: i.number) if found else None


def ensure_label(repo: Repository, label: str = ALERT_LABEL) -> None:
    try:
        repo.get_label(label)
    except GithubException as exc:
        if exc.status != 404:
            raise
        repo.create_label(label, LABEL_COLOR, LABEL_DESCRIPTION)


@dataclass
class AlertResult:
    action: AlertAction
    number: int | None = None
    url: str = ""


def apply(
    repo: Repository,
    existing: Issue | None,
    decision: AlertDecision,
    facts: RunFacts,
    comparison: Comparison,
    *,
    reference: str | None,
    reference_label: str,
) -> AlertResult:
    """Carry out `decision` on GitHub; `reference` is the digest text kept in a new alert."""
    if decision.action is AlertAction.NONE:
        return AlertResult(AlertAction.NONE)
    if decision.action is AlertAction.OPEN:
        ensure_label(repo)
        section = render_section(facts, decision, comparison, "degraded: alert opened")
        body = render_body(facts, [section], reference, reference_label)
        issue = repo.create_issue(
            title=issue_title(facts.check_name, facts.model), body=body, labels=[ALERT_LABEL]
        )
        return AlertResult(AlertAction.OPEN, issue.number, str(issue.html_url or ""))
    assert existing is not None
    sections, kept_reference = split_body(existing.body or "")
    if decision.action is AlertAction.UPDATE:
        section = render_section(facts, decision, comparison, "still degraded")
        body = render_body(facts, [*sections, section], kept_reference, _label_of(existing))
        existing.edit(body=body)
        further = significant_drops(comparison)
        if further:
            existing.create_comment(
                f"⚠️ Degraded again on {md_inline(facts.date)} (vs the previous scheduled run):"
                f"\n\n" + "\n".join(further) + "\n\nThe issue body has the new dated section."
            )
        return AlertResult(AlertAction.UPDATE, existing.number, str(existing.html_url or ""))
    section = render_section(facts, decision, comparison, "recovered: alert closed")
    existing.edit(
        body=render_body(facts, [*sections, section], kept_reference, _label_of(existing))
    )
    existing.create_comment(render_recovery(facts, comparison))
    existing.edit(state="closed", state_reason="completed")
    return AlertResult(AlertAction.CLOSE, existing.number, str(existing.html_url or ""))


def _label_of(issue: Issue) -> str:
    body = issue.body or ""
    match = re.search(
        re.escape(REFERENCE_START) + r"\n<sub>Recovery is judged against (.*?)\.</sub>", body
    )
    return match.group(1) if match else "the reference run"
