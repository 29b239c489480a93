"""Conformance: our verdicts against the official bfcl-eval checker's, on generated outputs.

    python -m tests.conformance.run [--categories a,b] [--limit N] [--seed S] [--report PATH]

Loads every official single-turn entry, generates the ground truth and seeded mutations of it
in three representations (see generate.py), asks the official checker (official.py) and ours
for a verdict on each, and prints agreement on `valid` and `error_type` per category, per
mutation kind and per representation. Exits 1 when a `valid` disagreement is not covered by a
deliberate deviation listed in deviations.json (each with its reason; docs/conformance.md
renders that list). Official verdicts are cached by a hash of their inputs and the bfcl-eval
version, so a second run only pays for our checker.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bfcl_action.checker import check_case, check_decoded
from bfcl_action.core.categories import CATEGORIES, SINGLE_TURN_OFFICIAL
from bfcl_action.core.records import Mode, TestCase
from tests.conformance.generate import Sample, case_samples
from tests.conformance.official import BFCL_EVAL_VERSION

HERE = Path(__file__).resolve().parent
DEVIATIONS_FILE = HERE / "deviations.json"
DATASET_SPEC = f"bfcl@{BFCL_EVAL_VERSION}"
ADAPTER_VERSION = 1
"""Part of every cache key: bump when official.py changes how official verdicts are made."""


# ---------------------------------------------------------------- inputs


def _package_data_dir() -> Path:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bfcl-eval is not installed; run `nox -s conformance`")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def load_package_cases(categories: Sequence[str]) -> list[TestCase]:
    """The official entries, read from the installed bfcl_eval package's data files."""
    data = _package_data_dir()
    cases: list[TestCase] = []
    for cat in categories:
        answers: dict[str, Any] = {}
        answer_file = data / "possible_answer" / f"BFCL_v4_{cat}.json"
        if answer_file.exists():
            for line in answer_file.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    answers[entry["id"]] = entry["ground_truth"]
        for line in (data / f"BFCL_v4_{cat}.json").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            cases.append(
                TestCase(
                    id=entry["id"],
                    category=cat,
                    question=entry["question"],
                    functions=entry["function"],
                    possible_answer=answers.get(entry["id"], []),
                    language=CATEGORIES[cat].language,
                    dataset=DATASET_SPEC,
                    suite=cat,
                )
            )
    return cases


def load_cases(categories: Sequence[str], source: str) -> tuple[list[TestCase], str]:
    """Cases from our loader (`bfcl_action.dataset`) when present, else from the package."""
    if source in ("auto", "ours"):
        try:
            from bfcl_action.dataset import load_dataset
        except ImportError:
            if source == "ours":
                raise
        else:
            return list(load_dataset(DATASET_SPEC, list(categories))), "bfcl_action.dataset"
    return load_package_cases(categories), "bfcl_eval package data"


def data_mismatches(cases: list[TestCase], *, complete: bool = True) -> list[str]:
    """Entries our loader reads differently from the installed package's files (ids,
    functions, possible answers, language), so verdict agreement is on the same data."""
    package = {c.id: c for c in load_package_cases(sorted({c.category for c in cases}))}
    missing = sorted(set(package) - {c.id for c in cases}) if complete else []
    problems = [f"{i}: missing from our loader" for i in missing]
    for case in cases:
        ref = package.get(case.id)
        if ref is None:
            problems.append(f"{case.id}: not in the package data")
            continue
        for name in ("category", "functions", "possible_answer", "language", "question"):
            if getattr(case, name) != getattr(ref, name):
                problems.append(f"{case.id}: {name} differs")
    return problems


@dataclass(frozen=True)
class Deviation:
    id: str
    kind: str
    rep: str
    reason: str
    rule: str = ""

    def covers(self, case_id: str, kind: str, rep: str) -> bool:
        return (
            fnmatch.fnmatchcase(case_id, self.id)
            and fnmatch.fnmatchcase(kind, self.kind)
            and fnmatch.fnmatchcase(rep, self.rep)
        )


def load_deviations(path: Path = DEVIATIONS_FILE) -> list[Deviation]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Deviation(
            id=d["id"],
            kind=d.get("kind", "*"),
            rep=d.get("rep", "*"),
            reason=d["reason"],
            rule=d.get("rule", ""),
        )
        for d in raw["deviations"]
    ]


# ---------------------------------------------------------------- verdicts


def _case_hash(case: TestCase, functions: list[dict[str, Any]]) -> str:
    blob = json.dumps(
        [
            ADAPTER_VERSION,
            BFCL_EVAL_VERSION,
            case.id,
            case.category,
            functions,
            case.possible_answer,
        ],
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _sample_hash(case_hash: str, s: Sample) -> str:
    return hashlib.sha256(
        f"{case_hash}|{s.rep}|{s.underscore_to_dot}|{s.output!r}".encode()
    ).hexdigest()[:32]


def _cache_path() -> Path:
    root = os.environ.get("BFCL_ACTION_CACHE")
    if root:
        base = Path(root)
    else:
        from platformdirs import user_cache_dir

        base = Path(user_cache_dir("bfcl-action"))
    return base / "conformance" / f"official-{BFCL_EVAL_VERSION}.json"


class VerdictCache:
    """Official verdicts by a hash of their inputs; a save keeps only this run's entries."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, dict[str, Any]] = {}
        if path and path.exists():
            try:
                self.data = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                self.data = {}
        self.dirty = False

    def save(self, keep: Iterable[str]) -> None:
        if not self.path or not self.dirty:
            return
        keep_set = set(keep)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({k: v for k, v in self.data.items() if k in keep_set}))
        tmp.replace(self.path)


def our_verdict(case: TestCase, s: Sample) -> dict[str, Any]:
    mode = Mode.PROMPT if s.rep == "prompt" else Mode.FC
    try:
        if s.rep == "decoded":
            res = check_decoded(case, s.output, underscore_to_dot=s.underscore_to_dot)
        else:
            res = check_case(case, s.output, mode=mode, underscore_to_dot=s.underscore_to_dot)
    except Exception as exc:
        return {"crash": f"{type(exc).__name__}: {exc}"[:300]}
    return {"valid": bool(res.valid), "error_type": None if res.valid else res.error_type}


# ---------------------------------------------------------------- comparison


@dataclass
class Tally:
    samples: int = 0
    valid_agree: int = 0
    error_type_agree: int = 0
    deviations: int = 0
    official_valid: int = 0
    unexplained: int = 0

    def add(self, valid_ok: bool, et_ok: bool, deviation: bool, official_valid: bool) -> None:
        self.samples += 1
        self.unexplained += not valid_ok and not deviation
        self.official_valid += official_valid
        self.valid_agree += valid_ok
        self.error_type_agree += et_ok
        self.deviations += deviation and not valid_ok

    def as_dict(self) -> dict[str, Any]:
        n = self.samples or 1
        return {
            "samples": self.samples,
            "valid_agree": self.valid_agree,
            "valid_agreement": round(self.valid_agree / n, 6),
            "error_type_agree": self.error_type_agree,
            "error_type_agreement": round(self.error_type_agree / n, 6),
            "deviations": self.deviations,
            "official_valid": self.official_valid,
            "unexplained": self.unexplained,
        }


def _short(value: Any, limit: int = 300) -> Any:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def compare(
    cases: list[TestCase],
    samples_by_case: dict[str, list[Sample]],
    deviations: list[Deviation],
    cache: VerdictCache,
    *,
    progress: bool = True,
) -> dict[str, Any]:
    from tests.conformance.official import OfficialChecker

    official = OfficialChecker()
    by_cat: dict[str, Tally] = defaultdict(Tally)
    by_kind: dict[str, Tally] = defaultdict(Tally)
    by_rep: dict[str, Tally] = defaultdict(Tally)
    total = Tally()
    disagreements: list[dict[str, Any]] = []
    crashes: list[dict[str, Any]] = []
    used_keys: list[str] = []
    t_official = t_ours = 0.0
    used_deviations: set[int] = set()
    for n, case in enumerate(cases):
        functions = [f.model_dump(mode="python") for f in case.functions]
        case_hash = _case_hash(case, functions)
        cat = CATEGORIES[case.category]
        for s in samples_by_case[case.id]:
            key = _sample_hash(case_hash, s)
            used_keys.append(key)
            off = cache.data.get(key)
            if off is None:
                t0 = time.perf_counter()
                off = official.verdict(
                    case_id=case.id,
                    category=case.category,
                    checker=cat.checker.value,
                    language=case.language.value,
                    functions=functions,
                    possible_answer=case.possible_answer,
                    rep=s.rep,
                    output=s.output,
                    underscore_to_dot=s.underscore_to_dot,
                )
                t_official += time.perf_counter() - t0
                cache.data[key] = off
                cache.dirty = True
            t0 = time.perf_counter()
            ours = our_verdict(case, s)
            t_ours += time.perf_counter() - t0
            kind = s.kind + ("+u2d" if s.underscore_to_dot else "")
            if "crash" in off:
                crashes.append(
                    {
                        "key": s.key,
                        "official": off["crash"],
                        "ours": ours,
                        "output": _short(s.output),
                    }
                )
                continue
            valid_ok = ours.get("valid") == off["valid"]
            et_ok = valid_ok and ours.get("error_type") == off["error_type"]
            dev_index = next(
                (i for i, d in enumerate(deviations) if d.covers(case.id, kind, s.rep)), None
            )
            if not valid_ok and dev_index is not None:
                used_deviations.add(dev_index)
            for tally in (by_cat[case.category], by_kind[kind], by_rep[s.rep], total):
                tally.add(valid_ok, et_ok, dev_index is not None, off["valid"])
            if not et_ok:
                disagreements.append(
                    {
                        "key": s.key,
                        "case_id": case.id,
                        "category": case.category,
                        "kind": kind,
                        "rep": s.rep,
                        "official": off,
                        "ours": ours,
                        "valid_differs": not valid_ok,
                        "deviation": deviations[dev_index].reason
                        if dev_index is not None
                        else None,
                        "output": _short(s.output),
                    }
                )
        if progress and (n + 1) % 500 == 0:
            print(f"  ... {n + 1}/{len(cases)} cases", file=sys.stderr, flush=True)
    cache.save(used_keys)
    return {
        "bfcl_eval_version": BFCL_EVAL_VERSION,
        "total": total.as_dict(),
        "categories": {k: v.as_dict() for k, v in sorted(by_cat.items())},
        "kinds": {k: v.as_dict() for k, v in sorted(by_kind.items())},
        "representations": {k: v.as_dict() for k, v in sorted(by_rep.items())},
        "disagreements": disagreements,
        "official_crashes": crashes,
        "unused_deviations": [
            d.__dict__ for i, d in enumerate(deviations) if i not in used_deviations
        ],
        "seconds": {"official": round(t_official, 2), "ours": round(t_ours, 2)},
    }


# ---------------------------------------------------------------- output


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:7.3f}%" if whole else "      -"


def format_table(title: str, rows: dict[str, dict[str, Any]]) -> str:
    width = max([len(title), *map(len, rows)])
    lines = [
        f"{title:<{width}}  {'samples':>8}  {'passing':>8}  {'valid':>8}  {'deviations':>10}"
        f"  {'unexplained':>11}  {'error_type':>10}"
    ]
    for name, r in rows.items():
        lines.append(
            f"{name:<{width}}  {r['samples']:>8}  {r['official_valid']:>8}"
            f"  {_pct(r['valid_agree'], r['samples'])}  {r['deviations']:>10}"
            f"  {r['unexplained']:>11}  {_pct(r['error_type_agree'], r['samples']):>10}"
        )
    return "\n".join(lines)


def unexplained(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in report["disagreements"] if d["valid_differs"] and not d["deviation"]]


def print_report(report: dict[str, Any], *, show: int) -> None:
    print(format_table("category", report["categories"]))
    print()
    print(format_table("representation", report["representations"]))
    print()
    print(format_table("mutation kind", report["kinds"]))
    print()
    print(format_table("TOTAL", {"all": report["total"]}))
    bad = unexplained(report)
    et_only = [d for d in report["disagreements"] if not d["valid_differs"]]
    devs = [d for d in report["disagreements"] if d["valid_differs"] and d["deviation"]]
    print(
        f"\nvalid disagreements: {len(bad)} unexplained, {len(devs)} deliberate deviations; "
        f"error_type-only disagreements: {len(et_only)}; "
        f"official crashes (excluded): {len(report['official_crashes'])}"
    )
    if bad:
        print(f"\nUNEXPLAINED (first {min(show, len(bad))} of {len(bad)}):")
    for d in bad[:show]:
        print(
            f"  {d['key']}\n    official={d['official']} ours={d['ours']}\n    output={d['output']}"
        )
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in et_only:
        key = (d["kind"], d["rep"], d["official"]["error_type"], d["ours"]["error_type"])
        groups[key].append(d)
    if groups:
        print(f"\nERROR_TYPE ONLY, by mutation kind ({len(groups)} groups):")
    for (kind, rep, official, ours), rows in sorted(groups.items(), key=lambda g: -len(g[1]))[
        :show
    ]:
        print(
            f"  {len(rows):6}  {kind}|{rep}: official {official}, ours {ours}"
            f"  e.g. {rows[0]['key']}"
        )
    print(f"\nseconds: {report['seconds']}")


DOCS_FILE = HERE.parent.parent / "docs" / "conformance.md"


def deviations_markdown(deviations: list[Deviation]) -> str:
    if not deviations:
        return "None: every difference found so far has been fixed.\n"
    lines = ["| case ids | mutation kind | representation | reason |", "|---|---|---|---|"]
    for d in deviations:
        reason = (d.reason + (f" ({d.rule})" if d.rule else "")).replace("|", "\\|")
        lines.append(f"| `{d.id}` | `{d.kind}` | `{d.rep}` | {reason} |")
    return "\n".join(lines) + "\n"


def agreement_markdown(report: dict[str, Any]) -> str:
    lines = [
        f"bfcl-eval {report['bfcl_eval_version']}, seed {report['seed']}, "
        f"{report['entries']} entries, {report['total']['samples']} outputs "
        f"({len(report['official_crashes'])} more on which the official checker crashes).",
        "",
        "| category | outputs | accepted upstream | `valid` agreement | deviations | unexplained "
        "| `error_type` agreement |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in [*report["categories"].items(), ("**all**", report["total"])]:
        n = r["samples"] or 1
        lines.append(
            f"| {name} | {r['samples']} | {r['official_valid']} "
            f"| {100 * r['valid_agree'] / n:.3f}% | {r['deviations']} | {r['unexplained']} "
            f"| {100 * r['error_type_agree'] / n:.3f}% |"
        )
    return "\n".join(lines) + "\n"


def replace_section(text: str, name: str, body: str) -> str:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    head, sep, rest = text.partition(start)
    if not sep or end not in rest:
        raise SystemExit(f"{DOCS_FILE}: markers {start} / {end} not found")
    return head + start + "\n" + body + end + rest.partition(end)[2]


def write_docs(report: dict[str, Any] | None, deviations: list[Deviation]) -> None:
    text = DOCS_FILE.read_text(encoding="utf-8")
    text = replace_section(text, "deviations", deviations_markdown(deviations))
    if report is not None:
        text = replace_section(text, "agreement", agreement_markdown(report))
    DOCS_FILE.write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.run", description=__doc__)
    parser.add_argument("--categories", default="", help="comma list (default: all 13)")
    parser.add_argument("--limit", type=int, default=0, help="first N entries per category")
    parser.add_argument("--ids", default="", help="glob on case ids, e.g. 'simple_java_*'")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--source", choices=["auto", "ours", "package"], default="auto")
    parser.add_argument("--report", default="build/conformance/report.json")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--show", type=int, default=40, help="disagreements to print")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="update the agreement and deviation sections of docs/conformance.md",
    )
    parser.add_argument(
        "--strict-error-type", action="store_true", help="also fail on error_type differences"
    )
    args = parser.parse_args(argv)

    categories = [c for c in args.categories.split(",") if c] or SINGLE_TURN_OFFICIAL
    t0 = time.perf_counter()
    cases, source = load_cases(categories, args.source)
    if args.ids:
        cases = [c for c in cases if fnmatch.fnmatchcase(c.id, args.ids)]
    if args.limit:
        seen: dict[str, int] = defaultdict(int)
        kept = []
        for c in cases:
            seen[c.category] += 1
            if seen[c.category] <= args.limit:
                kept.append(c)
        cases = kept
    mismatched = []
    if source != "bfcl_eval package data":
        mismatched = data_mismatches(cases, complete=not (args.ids or args.limit))
    for line in mismatched[:20]:
        print(f"data mismatch: {line}")
    samples = {c.id: case_samples(c, args.seed) for c in cases}
    n_samples = sum(map(len, samples.values()))
    print(f"{len(cases)} entries from {source}; {n_samples} samples (seed {args.seed})")
    cache = VerdictCache(None if args.no_cache else _cache_path())
    report = compare(cases, samples, load_deviations(), cache)
    report.update(
        {"seed": args.seed, "source": source, "entries": len(cases), "data_mismatches": mismatched}
    )
    report["seconds"]["total"] = round(time.perf_counter() - t0, 2)
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(json.dumps(report, indent=1, default=repr), encoding="utf-8")
    print_report(report, show=args.show)
    if args.write_docs:
        write_docs(report, load_deviations())
    print(f"report: {args.report}")
    failed = bool(unexplained(report)) or bool(mismatched)
    if args.strict_error_type:
        failed = failed or any(not d["valid_differs"] for d in report["disagreements"])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
