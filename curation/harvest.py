"""`bfcl-curate harvest`: fresh function definitions -> drafted Live entries for review.

The Live set exists so models meet functions they cannot have memorised. Harvest reads
`data/live/sources.yml`, a list of public tool definitions pinned by URL and commit (the
commit in the URL) or by sha256 (MCP `tools/list` snapshots, OpenAPI specifications, tool
JSON files: every format the tool loaders read), keeps the functions never seen in BFCL's
sets or an earlier release (MinHash over the function docs, as near-duplicate detection
compares them), and drafts test entries for them with the `generate` engine (propose,
hostile text, format, grounding, near-duplicates, agreement of a verify model judged by our
checker).

Drafts are never released by harvest. They are written to `drafts/<version>.jsonl` (origin
`generated`) with a review file `review/<version>.md` listing each draft's request, expected
call and the verify model's answer, both part of the weekly data PR. A maintainer approves a
draft by adding its id to `approved.txt`; the next `build` releases the approved drafts
(`approved_drafts`), which then appear in that release's `fresh` configuration.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from bfcl_action.core.errors import ConfigError, InputError
from bfcl_action.core.records import FunctionDoc
from bfcl_action.tools import ToolValidationError, parse_tools
from curation.canonical import function_text
from curation.models import ACCEPTED_LICENSES, Item, Origin
from curation.neardup import Signer, TextIndex
from curation.settings import CurationSettings

SOURCES_FILE = "sources.yml"
APPROVED_FILE = "approved.txt"
DRAFTS_DIR = "drafts"
REVIEW_DIR = "review"
HARVEST_CONTRIBUTOR = "bfcl-curate-harvest"
MAX_SOURCE_BYTES = 8 * 1024 * 1024
_COMMIT = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")


class Source(BaseModel):
    """One pinned public tool definition file."""

    model_config = ConfigDict(extra="forbid")

    url: str
    commit: str | None = None
    """A 40-hex commit that the URL itself names (a raw file at that commit)."""
    sha256: str | None = None
    """The digest of the file's bytes; checked after download."""
    license: str
    name: str = ""

    @model_validator(mode="after")
    def _pinned(self) -> Source:
        if not self.url.startswith(("https://", "http://")):
            raise ValueError("url must be http(s)")
        if self.commit is None and self.sha256 is None:
            raise ValueError("pin the file: give `commit` (named in the url) or `sha256`")
        if self.commit is not None and (
            not _COMMIT.fullmatch(self.commit) or self.commit not in self.url
        ):
            raise ValueError("`commit` must be a 40-hex commit that the url names")
        if self.sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            raise ValueError("`sha256` must be 64 lowercase hex digits")
        if self.license not in ACCEPTED_LICENSES:
            raise ValueError(f"license must be one of {', '.join(ACCEPTED_LICENSES)}")
        return self

    @property
    def label(self) -> str:
        return self.name or self.url


def load_sources(path: Path) -> list[Source]:
    """`sources.yml`: a list of sources; a bad entry names the file, line and field."""
    try:
        data = YAML(typ="rt").load(path.read_text(encoding="utf-8")) or []
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=str(path)) from None
    except YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", file=str(path)) from None
    if not isinstance(data, list):
        raise ConfigError("expected a list of sources", file=str(path))
    out = []
    for index, entry in enumerate(data):
        line = entry.lc.line + 1 if hasattr(entry, "lc") else None
        try:
            out.append(Source.model_validate(dict(entry) if isinstance(entry, dict) else entry))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or f"[{index}]"
            raise ConfigError(err["msg"], file=str(path), line=line, field=where) from None
    return out


def fetch(source: Source, *, timeout: float = 30.0) -> bytes:
    """The source's bytes, bounded in size and checked against its sha256 when pinned so."""
    request = urllib.request.Request(source.url, headers={"User-Agent": "bfcl-curate"})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            data: bytes = response.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot fetch: {exc}", file=source.url) from None
    if len(data) > MAX_SOURCE_BYTES:
        raise InputError(f"over {MAX_SOURCE_BYTES} bytes", file=source.url)
    if source.sha256 is not None:
        found = hashlib.sha256(data).hexdigest()
        if found != source.sha256:
            raise InputError(
                f"sha256 {found} is not the pinned {source.sha256}; the file changed upstream",
                file=source.url,
            )
    return data


def functions_of(source: Source, data: bytes) -> list[FunctionDoc]:
    """The functions of one fetched file, read by the tool loaders (every format)."""
    name = source.url.rsplit("/", 1)[-1].split("?", 1)[0] or "tools.json"
    try:
        return parse_tools(data.decode("utf-8"), name).functions
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=source.url) from None
    except ToolValidationError as exc:
        raise InputError(
            f"not a tool definition file: {exc.issues[0].render()}", file=source.url
        ) from None


def fresh_functions(
    functions: Sequence[FunctionDoc], known: Sequence[FunctionDoc], signer: Signer
) -> tuple[list[FunctionDoc], list[FunctionDoc]]:
    """`(never seen, seen)`: a function is seen when its docs are near-identical (MinHash,
    confirmed by exact Jaccard >= `function_threshold`) to a function of BFCL or of an
    earlier release, or its name and parameters equal one exactly."""
    index = TextIndex(signer)
    index.add_all(function_text([f]) for f in known)
    shapes = {_shape(f) for f in known}
    fresh, seen = [], []
    for f in functions:
        if _shape(f) in shapes or index.similar(function_text([f])):
            seen.append(f)
        else:
            fresh.append(f)
    return fresh, seen


def _shape(function: FunctionDoc) -> str:
    props = function.parameters.get("properties") or {}
    return json.dumps([function.name, sorted(props) if isinstance(props, dict) else []])


@dataclass
class Draft:
    """One drafted entry: the contribution it would be, and what the verify model said."""

    draft_id: str
    contribution: dict[str, Any]
    source: str
    verify_output: Any = None
    verdict: str = "agrees"

    def line(self) -> str:
        return json.dumps(
            {
                "draft_id": self.draft_id,
                "contribution": self.contribution,
                "source": self.source,
                "verify_output": self.verify_output,
                "verdict": self.verdict,
            },
            ensure_ascii=False,
            sort_keys=True,
        )


@dataclass
class HarvestReport:
    sources: int = 0
    functions: int = 0
    fresh: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    disagreements: int = 0


def draft_id(contribution: dict[str, Any]) -> str:
    """A stable id from what the draft asks and expects (`gen-` + 12 hex)."""
    body = {k: contribution[k] for k in ("question", "functions", "ground_truth")}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    return f"gen-{digest[:12]}"


def harvest(
    sources: Sequence[Source],
    *,
    known: Sequence[FunctionDoc],
    link: Any,
    per_tool: int = 2,
    seed: int = 0,
    settings: CurationSettings | None = None,
    fetcher: Any = fetch,
) -> HarvestReport:
    """Fetch, keep the fresh functions, draft entries for them (nothing is released)."""
    from bfcl_action.generate.models import Review
    from bfcl_action.generate.pipeline import GenerateOptions, generate

    settings = settings or CurationSettings()
    signer = Signer(settings.near_duplicates.settings())
    report = HarvestReport(sources=len(sources))
    batches: list[tuple[Source, list[FunctionDoc]]] = []
    for source in sources:
        functions = functions_of(source, fetcher(source))
        report.functions += len(functions)
        fresh, seen = fresh_functions(functions, known, signer)
        report.seen += [f.name for f in seen]
        report.fresh += [f.name for f in fresh]
        if fresh:
            known = [*known, *fresh]
            batches.append((source, fresh))

    async def draft_all() -> list[Any]:
        try:
            return [
                await generate(
                    fresh, [f.name for f in fresh], [], link, GenerateOptions(per_tool, seed=seed)
                )
                for _, fresh in batches
            ]
        finally:
            await link.aclose()

    results = asyncio.run(draft_all()) if batches else []
    for (source, _), result in zip(batches, results, strict=True):
        pinned = f"{source.url}@{source.commit or 'sha256:' + (source.sha256 or '')}"
        for candidate in result.kept:
            assert candidate.case is not None
            report.drafts.append(_draft(candidate.case, source, pinned, None, "agrees"))
        for review in result.reviews:
            case = review.candidate.case
            assert case is not None and isinstance(review, Review)
            report.disagreements += 1
            report.drafts.append(
                _draft(case, source, pinned, _plain_output(review.verify_output), review.verdict)
            )
    return report


def _plain_output(output: Any) -> Any:
    try:
        json.dumps(output)
    except (TypeError, ValueError):
        return repr(output)
    return output


def _draft(case: Any, source: Source, pinned: str, output: Any, verdict: str) -> Draft:
    users = [m.content or "" for m in case.question[0] if m.role == "user"]
    contribution = {
        "question": users[-1] if users else "",
        "functions": [f.model_dump(mode="json") for f in case.functions],
        "ground_truth": [dict(c) for c in case.possible_answer],
        "contributor": HARVEST_CONTRIBUTOR,
        "license": source.license,
        "source": pinned,
    }
    return Draft(draft_id(contribution), contribution, source.label, output, verdict)


def write_drafts(live_dir: Path, version: str, report: HarvestReport) -> tuple[Path, Path]:
    """`drafts/<version>.jsonl` and the review file `review/<version>.md` (both reviewed in
    the data PR); returns their paths."""
    drafts = live_dir / DRAFTS_DIR / f"{version}.jsonl"
    review = live_dir / REVIEW_DIR / f"{version}.md"
    drafts.parent.mkdir(parents=True, exist_ok=True)
    review.parent.mkdir(parents=True, exist_ok=True)
    drafts.write_text("".join(d.line() + "\n" for d in report.drafts), encoding="utf-8")
    review.write_text(render_review(version, report), encoding="utf-8")
    return drafts, review


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "`" + text.replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def render_review(version: str, report: HarvestReport) -> str:
    """The maintainer's review list: one row per draft, approval by id in `approved.txt`."""
    lines = [
        f"# Drafts from harvest {version}",
        "",
        f"{report.sources} sources, {report.functions} functions: {len(report.fresh)} never "
        f"seen in BFCL or an earlier release, {len(report.seen)} seen (skipped). "
        f"{len(report.drafts)} drafts ({report.disagreements} where the verify model "
        "disagreed). None is released until its id is added to `data/live/approved.txt`.",
        "",
        "| id | request | expected call | verify model | verdict |",
        "| --- | --- | --- | --- | --- |",
    ]
    for d in report.drafts:
        answer = d.verify_output if d.verify_output is not None else "(agrees)"
        lines.append(
            f"| {d.draft_id} | {_cell(d.contribution['question'])} | "
            f"{_cell(d.contribution['ground_truth'])} | {_cell(answer)} | {_cell(d.verdict)} |"
        )
    return "\n".join(lines) + "\n"


def read_approved(live_dir: Path) -> set[str]:
    """Draft ids a maintainer approved (`approved.txt`: one id a line, `#` comments)."""
    path = live_dir / APPROVED_FILE
    if not path.exists():
        return set()
    ids = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        if not re.fullmatch(r"gen-[0-9a-f]{12}", text):
            raise InputError(f"not a draft id: {text!r}", file=str(path), line=number)
        ids.add(text)
    return ids


def approved_drafts(live_dir: Path) -> list[tuple[dict[str, Any], Origin]]:
    """Every approved draft (from any `drafts/*.jsonl`) as a raw contribution with origin
    `generated`; the build's exact dedup keeps one released entry from being added again."""
    approved = read_approved(live_dir)
    out = []
    for path in sorted((live_dir / DRAFTS_DIR).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                ident, contribution = row["draft_id"], row["contribution"]
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"not a draft: {exc}", file=str(path), line=number) from None
            if ident in approved:
                out.append((contribution, Origin(kind="generated", ref=ident)))
    return out


def known_functions(
    previous: Sequence[Item], reference_functions: Sequence[FunctionDoc]
) -> list[FunctionDoc]:
    """Functions a harvested one must differ from: every function of BFCL's sets and of the
    releases so far."""
    seen: dict[str, FunctionDoc] = {}
    for f in [*reference_functions, *(f for i in previous for f in i.functions)]:
        seen.setdefault(function_text([f]), f)
    return list(seen.values())
