"""The model-choice view (`bfcl_action.compare.model_choice`) as Markdown, terminal text and JSON.

The Markdown is laid out by `model_choice.md.j2` in the comment's template environment, so
every value is escaped (`escape.md_inline`) unless marked `Safe`; model and suite names are
untrusted (they come from a config) and go through the `code`/`code_cell` filters. The
numbers are formatted here, once, for both renderers.
"""

from __future__ import annotations

from dataclasses import dataclass

from bfcl_action.compare.model_choice import (
    Latency,
    ModelChoice,
    ModelSummary,
    PairedTest,
    mirrored,
)
from bfcl_action.compare.runs import SideScore, p_text, percent
from bfcl_action.report.markdown import Safe, template
from bfcl_action.safety import escape

AHEAD_BY = {
    "accuracy": "more accurate",
    "cost": "the cheaper",
    "latency": "the faster",
    "order": "listed first",
}
"""Why the best model ranks above an equally accurate one (`Best.ahead_by`)."""

DEFAULT_MAX_SUITES = 30
"""Suite rows shown in Markdown; the JSON has every suite."""


def score_text(side: SideScore | None, *, interval: bool = True) -> str:
    """`91.2% (84.0–95.3)`: accuracy with its Wilson 95% interval; `—` with no case."""
    if side is None or not side.total:
        return "—"
    text = f"{percent(side.accuracy)}%"
    return f"{text} ({percent(side.low)}–{percent(side.high)})" if interval else text


def cost_text(model: ModelSummary) -> str:
    """This run's dollars, and the figure without cache when the cache saved some."""
    if model.cost_usd is None:
        return "no price"
    text = f"${model.cost_usd:,.4f}"
    full = model.full_cost_usd
    if full is not None and round(full, 4) != round(model.cost_usd, 4):
        text += f" (${full:,.4f} uncached)"
    return text


def latency_text(latency: Latency) -> str:
    if latency.p50 is None or latency.p95 is None:
        return "—"
    text = f"{latency.p50:.2f} s / {latency.p95:.2f} s"
    return text + " (cached answers)" if latency.basis == "cached" else text


def tokens_text(model: ModelSummary) -> str:
    if not (model.input_tokens or model.output_tokens):
        return "—"
    return f"{model.input_tokens:,} / {model.output_tokens:,}"


def delta_text(points: float | None) -> str:
    if points is None:
        return "—"
    if round(points, 1) == 0:
        return "±0.0"
    return f"+{points:.1f}" if points > 0 else f"−{-points:.1f}"


def repeat_text(model: ModelSummary) -> str:
    r = model.repeat
    if r is None:
        return "—"
    return f"{r.mean_accuracy * 100:.1f}% / {r.pass_all * 100:.1f}% (k={r.samples})"


@dataclass
class _Row:
    """One model of the summary table, numbers formatted (`Safe`: no untrusted text)."""

    name: str
    rank: int
    score: Safe
    common: Safe
    infra: int
    cost: Safe
    latency: Safe
    tokens: Safe
    repeat: Safe


@dataclass
class _SuiteRow:
    suite: str
    cells: list[Safe]


@dataclass
class _Against:
    """The best model against one other: for the verdict sentence."""

    name: str
    score: Safe
    p: Safe
    delta: Safe


def _rows(choice: ModelChoice) -> list[_Row]:
    rank = {r.name: r.rank for r in choice.ranking}
    return [
        _Row(
            name=m.name,
            rank=rank[m.name],
            score=Safe(score_text(m.overall)),
            common=Safe(score_text(m.common)),
            infra=m.infra_errors,
            cost=Safe(cost_text(m)),
            latency=Safe(latency_text(m.latency)),
            tokens=Safe(tokens_text(m)),
            repeat=Safe(repeat_text(m)),
        )
        for m in choice.models
    ]


def suite_leader(choice: ModelChoice, suite: str) -> str | None:
    """The model significantly better than every other on `suite` (paired tests), if any."""
    for candidate in choice.models:
        tests = []
        for pairing in choice.pairs:
            if candidate.name not in (pairing.a, pairing.b):
                continue
            test = next((t for t in pairing.suites if t.suite == suite), None)
            if test is not None and candidate.name == pairing.b:
                test = mirrored(test)
            tests.append(test)
        if tests and all(t and t.significant and (t.delta_points or 0) > 0 for t in tests):
            return candidate.name
    return None


def _suite_rows(choice: ModelChoice, limit: int | None) -> list[_SuiteRow]:
    rows = []
    for suite in choice.suites if limit is None else choice.suites[:limit]:
        leader = suite_leader(choice, suite)
        cells = []
        for m in choice.models:
            text = score_text(m.suites.get(suite))
            cells.append(Safe(f"**{text}**" if m.name == leader else text))
        rows.append(_SuiteRow(suite, cells))
    return rows


def _any_latency(choice: ModelChoice) -> bool:
    return any(m.latency.p50 is not None for m in choice.models)


def _any_tokens(choice: ModelChoice) -> bool:
    return any(m.input_tokens or m.output_tokens for m in choice.models)


def _against(choice: ModelChoice) -> list[_Against]:
    if choice.best is None:
        return []
    top = choice.best.name
    out = []
    for entry in choice.ranking[1:]:
        test = choice.pair(top, entry.name)
        out.append(
            _Against(
                name=entry.name,
                score=Safe(f"{percent(entry.accuracy)}%"),
                p=Safe(p_text(test.p_value)),
                delta=Safe(delta_text(test.delta_points)),
            )
        )
    return out


def _significant_suites(choice: ModelChoice) -> list[tuple[str, str, PairedTest]]:
    return [(p.a, p.b, t) for p in choice.pairs for t in p.suites if t.significant]


def _suite_p(test: PairedTest) -> str:
    """A suite's p with its Holm adjustment (what `significant` compared with alpha)."""
    if test.p_adjusted is None:
        return p_text(test.p_value)
    return f"{p_text(test.p_value)}, Holm-adjusted {p_text(test.p_adjusted)}"


def _view(choice: ModelChoice, max_suites: int | None) -> dict[str, object]:
    best = choice.best
    top = choice.model(best.name) if best else None
    rows = _rows(choice)
    return {
        "choice": choice,
        "best": best,
        "top_score": Safe(f"{percent(top.common.accuracy)}%") if top else Safe("—"),
        "against": _against(choice),
        "beats": [a for a in _against(choice) if best and a.name in best.beats],
        "level": [a for a in _against(choice) if best and a.name in best.level_with],
        "noisy": [
            a
            for a in _against(choice)
            if best and a.name in best.tied_with and a.name not in best.level_with
        ],
        "ahead_by": Safe(AHEAD_BY[best.ahead_by]) if best else Safe(""),
        "cheapest": choice.model(best.cheapest_of_tied) if best and best.cheapest_of_tied else None,
        "cost_of": {m.name: Safe(cost_text(m)) for m in choice.models},
        "alpha": Safe(f"{choice.alpha:g}"),
        "common": Safe(f"{choice.common_cases:,}"),
        "rows": rows,
        "show_common": choice.case_sets_differ or any(r.infra for r in rows),
        "show_repeat": any(m.repeat for m in choice.models),
        "show_latency": _any_latency(choice),
        "show_tokens": _any_tokens(choice),
        "suite_rows": _suite_rows(choice, max_suites),
        "suites_left_out": 0 if max_suites is None else max(0, len(choice.suites) - max_suites),
        "pair_cells": [
            (
                p,
                Safe(f"{p.overall.n:,}"),
                Safe(delta_text(p.overall.delta_points)),
                Safe(p_text(p.overall.p_value)),
                Safe("**yes**" if p.overall.significant else "no"),
            )
            for p in choice.pairs
        ],
        "significant_suites": [
            (a, b, t, Safe(delta_text(t.delta_points)), Safe(_suite_p(t)))
            for a, b, t in _significant_suites(choice)
        ],
    }


def render_model_choice_markdown(
    choice: ModelChoice, *, heading_level: int = 3, max_suites: int | None = DEFAULT_MAX_SUITES
) -> str:
    """A verdict sentence, a table per model (score, cost, latency), suites x models, and the
    paired tests; for a PR comment or job summary (`heading_level` 1-6 for its heading)."""
    if not 1 <= heading_level <= 6:
        raise ValueError(f"heading_level must be 1 to 6, got {heading_level}")
    return template("model_choice.md.j2").render(
        heading=Safe("#" * heading_level), **_view(choice, max_suites)
    )


# --- terminal text ----------------------------------------------------------------------------


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return [line.rstrip() for line in lines]


def _name(value: str) -> str:
    return escape.log_line(value, 60)


def verdict_text(choice: ModelChoice) -> str:
    """The verdict as one plain sentence (the Markdown one without markup)."""
    best = choice.best
    if len(choice.models) < 2:
        return f"only {_name(choice.models[0].name)} was evaluated: nothing to compare"
    if best is None:
        return "no case was answered by every model: no ranking"
    top = choice.model(best.name)
    against = {a.name: a for a in _against(choice)}
    if best.clear:
        vs = ", ".join(f"{a.score} ({_name(a.name)}, p {a.p})" for a in against.values())
        return (
            f"{_name(best.name)} is best on your cases: {percent(top.common.accuracy)}% vs {vs}, "
            f"on the {choice.common_cases:,} cases every model answered"
        )
    text = f"no clear best: {_name(best.name)} leads with {percent(top.common.accuracy)}%"
    if best.level_with:
        level = ", ".join(_name(n) for n in best.level_with)
        text += f" (as good as {level}; ranked first as {AHEAD_BY[best.ahead_by]})"
    noisy = [n for n in best.tied_with if n not in best.level_with]
    if noisy:
        listed = ", ".join(f"{_name(n)} ({against[n].score}, p {against[n].p})" for n in noisy)
        text += f"{'' if best.level_with else ','} but is not significantly better than {listed}"
        text += f" at alpha {choice.alpha:g}"
    text += f", on the {choice.common_cases:,} cases every model answered"
    if best.beats:
        listed = ", ".join(f"{_name(n)} ({against[n].score}, p {against[n].p})" for n in best.beats)
        text += f"; it is significantly better than {listed}"
    if best.cheapest_of_tied and best.cheapest_of_tied != best.name:
        cheap = choice.model(best.cheapest_of_tied)
        text += f"; of the tied models, {_name(cheap.name)} costs least ({cost_text(cheap)})"
    return text


def render_model_choice_text(choice: ModelChoice, *, max_suites: int | None = None) -> str:
    """The view for a terminal: verdict, the models table, suites x models, pairs."""
    lines = [f"bfcl-action compare-models: {verdict_text(choice)}", ""]
    rank = {r.name: r.rank for r in choice.ranking}
    show_common = choice.case_sets_differ or any(m.infra_errors for m in choice.models)
    header = ["#", "model", "score (95% CI)"]
    header += ["on common cases"] if show_common else []
    show_latency, show_tokens = _any_latency(choice), _any_tokens(choice)
    header += ["cost"]
    header += ["latency p50 / p95"] if show_latency else []
    header += ["tokens in / out"] if show_tokens else []
    rows = []
    for m in choice.models:
        row = [str(rank[m.name]), _name(m.name), score_text(m.overall)]
        row += [score_text(m.common)] if show_common else []
        row += [cost_text(m)]
        row += [latency_text(m.latency)] if show_latency else []
        row += [tokens_text(m)] if show_tokens else []
        rows.append(row)
    lines += _table(header, rows)
    suites = choice.suites if max_suites is None else choice.suites[:max_suites]
    if suites:
        lines += ["", "per suite:"]
        lines += _table(
            ["suite", *(_name(m.name) for m in choice.models)],
            [
                [_name(s), *(score_text(m.suites.get(s), interval=False) for m in choice.models)]
                for s in suites
            ],
        )
        if len(suites) < len(choice.suites):
            lines.append(f"({len(choice.suites) - len(suites)} more suites in the JSON output)")
    if choice.pairs:
        lines += [
            "",
            f"paired tests (exact sign test over question clusters, alpha {choice.alpha:g}):",
        ]
        lines += _table(
            ["a vs b", "cases", "a only", "b only", "delta points", "p", "significant"],
            [
                [
                    f"{_name(p.a)} vs {_name(p.b)}",
                    f"{p.overall.n:,}",
                    f"{p.overall.a_only:,}",
                    f"{p.overall.b_only:,}",
                    delta_text(p.overall.delta_points),
                    p_text(p.overall.p_value),
                    "yes" if p.overall.significant else "no",
                ]
                for p in choice.pairs
            ],
        )
        significant = _significant_suites(choice)
        if significant:
            lines += ["", "significant per-suite differences:"]
            lines += [
                f"  {_name(s.suite)}: {_name(a)} vs {_name(b)} {delta_text(s.delta_points)} "
                f"points (p {_suite_p(s)})"
                for a, b, s in significant
            ]
    if choice.ranking:
        lines += ["", f"ranked by accuracy on the common cases; {choice.tie_break}"]
    lines += [f"note: {escape.log_line(n)}" for n in choice.notes]
    for p in choice.pairs:
        lines += [f"note: {_name(p.a)} vs {_name(p.b)}: {escape.log_line(n)}" for n in p.notes]
    return "\n".join(lines) + "\n"


def render_model_choice_json(choice: ModelChoice) -> str:
    return choice.model_dump_json(indent=2) + "\n"
