"""`bfcl-action contribute`: turn chosen own cases into a Live contribution, locally.

The cases (picked by `--case ID` or `--ids REGEX` from the `.bfcl.yml` own cases) go through
the steps the weekly Live build applies to every contribution: the tool loaders, the
authoring rules, validation and the scrubbing of secrets and personal data. What scrubbing
changed is printed as a diff before anything is written. The licence (`--license`) and
whether your handle may be published (`--publish-handle yes|no`) are never assumed.

The result is a file: a `contributions/*.jsonl` file to add in a pull request to the
bfcl-action repository (`--format file`), or one issue-form body per case to paste into the
*Contribute a function-calling test* issue form (`--format issue`). Nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import ConfigError


def register(sub: Any) -> None:
    from curation.models import ACCEPTED_LICENSES

    parser = sub.add_parser(
        "contribute",
        help="turn own cases into a Live contribution file (scrubbed, previewed, local)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", type=Path, help="path to .bfcl.yml (default: search upward)")
    parser.add_argument(
        "--case", action="append", default=[], metavar="ID", help="an own case id (repeatable)"
    )
    parser.add_argument("--ids", metavar="REGEX", help="own cases whose id matches REGEX")
    parser.add_argument(
        "--license", required=True, choices=ACCEPTED_LICENSES, help="licence of the entries"
    )
    parser.add_argument(
        "--publish-handle",
        required=True,
        choices=["yes", "no"],
        help="may the release credit --contributor by name? (no: a pseudonym)",
    )
    parser.add_argument(
        "--contributor", help="your handle (required for --format file; an issue's author is)"
    )
    parser.add_argument("--source", default="", help="where the tools come from (a URL, an API)")
    parser.add_argument("--format", choices=["file", "issue"], default="file")
    parser.add_argument(
        "--output",
        type=Path,
        help="file to write (--format file, default bfcl-contribution.jsonl) or folder "
        "(--format issue, default bfcl-contribution/)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bfcl_action.cases.suites import load_own
    from bfcl_action.commands.impact import _config
    from curation.contribute import Consent, prepare, preview, render_file, render_issue

    if not args.case and not args.ids:
        raise ConfigError("name the cases to contribute: --case ID (repeatable) or --ids REGEX")
    if args.format == "file" and not args.contributor:
        raise ConfigError("--format file needs --contributor (your handle)", field="--contributor")
    config, config_dir = _config(args.config)
    _, own = load_own(config, base_dir=config_dir)
    try:
        pattern = re.compile(args.ids) if args.ids else None
    except re.error as exc:
        raise ConfigError(f"not a regular expression: {exc}", field="--ids") from None
    known = {c.id for c in own}
    missing = [i for i in args.case if i not in known]
    if missing:
        raise ConfigError(f"no own case with id {', '.join(missing)}", field="--case")
    chosen = [c for c in own if c.id in args.case or (pattern is not None and pattern.search(c.id))]
    if not chosen:
        raise ConfigError(f"no own case id matches {args.ids!r}", field="--ids")
    consent = Consent(
        license=args.license,
        publish_handle=args.publish_handle == "yes",
        contributor=args.contributor or "",
        source=args.source,
    )
    prepared = prepare(chosen, consent)
    problems = [p for p in prepared if p.after is None]
    for p in prepared:
        diff = preview(p)
        if p.after is None:
            print(f"{p.case_id}: cannot be contributed: {p.problem}")
        elif diff:
            found = ", ".join(f"{n} {kind}" for kind, n in sorted(p.replaced.items()))
            print(f"{p.case_id}: scrubbing replaced {found}:\n{diff}")
        else:
            print(f"{p.case_id}: nothing to scrub")
    if problems:
        raise ConfigError(
            f"{len(problems)} of {len(prepared)} cases cannot be contributed (listed above); "
            "nothing was written"
        )
    if args.format == "file":
        target = args.output or Path("bfcl-contribution.jsonl")
        target.write_text(render_file(prepared), encoding="utf-8")
        print(
            f"wrote {len(prepared)} contributions to {target}. Nothing was sent: add the file "
            "under contributions/ in a pull request to the bfcl-action repository."
        )
        return 0
    folder = args.output or Path("bfcl-contribution")
    bodies = {p.case_id: render_issue(p) for p in prepared}
    folder.mkdir(parents=True, exist_ok=True)
    for case_id, body in bodies.items():
        (folder / f"{_safe_name(case_id)}.md").write_text(body, encoding="utf-8")
    print(
        f"wrote {len(bodies)} issue-form bodies to {folder}/. Nothing was sent: open one "
        "'Contribute a function-calling test' issue per file and paste its text."
    )
    return 0


def _safe_name(case_id: str) -> str:
    return re.sub(r"[^\w.-]+", "_", case_id).strip("._") or "case"
