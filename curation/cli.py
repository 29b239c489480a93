"""`bfcl-curate`: build, verify and publish Live releases under `data/live/`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bfcl_action.core.errors import BfclActionError, ConfigError
from bfcl_action.safety.logstream import std_streams
from bfcl_action.safety.redact import scrub

DEFAULT_LIVE_DIR = Path("data/live")
CURATE_EXTRA_MODULES = frozenset({"datasketch"})
"""Imports that come with `pip install 'bfcl-action[curate]'` only."""


def _withdrawals(values: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        ident, sep, reason = v.partition("=")
        if not sep or not reason.strip():
            raise ConfigError(f"expected ID=REASON, found {v!r}", field="--withdraw")
        out[ident.strip()] = reason.strip()
    return out


def cmd_build(args: argparse.Namespace) -> int:
    from curation.build import build, gather, iso_week, references_from_cases
    from curation.sources import bfcl_live_cases, official_cases

    intake = gather(args.input)
    notes: list[str] = list(args.note)
    if args.from_bfcl:
        intake.add_cases(bfcl_live_cases(args.from_bfcl), source=f"bfcl-eval {args.from_bfcl}")
    from curation.harvest import approved_drafts

    for raw, origin in approved_drafts(args.live_dir):  # drafts a maintainer approved
        intake.add(raw, origin)
    if args.contributions_since_release:
        from curation.sources import contributions_since_release

        for path in contributions_since_release(Path(args.repo_dir), args.live_dir):
            intake.add_file(path)
    if args.from_issues:
        from curation.issue_forms import add_issues

        add_issues(
            intake, _github_repo(args.from_issues, args.token_env, args.api_url), args.issue_label
        )
    if args.reference == "none":
        references = []
        notes.append(
            "contamination against the official BFCL sets was not checked (--reference none)"
        )
    else:
        references = references_from_cases(official_cases(args.reference))
    report = build(
        live_dir=args.live_dir,
        items=intake.items,
        intake_drops=intake.drops,
        references=references,
        version=args.version or iso_week(),
        withdrawals=_withdrawals(args.withdraw),
        notes=notes,
    )
    if args.report:
        # a file for people to read: no secret the run knows, no key shape a contributor sent
        args.report.write_text(scrub(report.model_dump_json(indent=2)) + "\n", encoding="utf-8")
    from curation.summary import print_funnel

    print_funnel(report)
    return 0


def _github_repo(repository: str, token_env: str, api_url: str | None) -> object:
    import os

    from github import Auth, Github

    token = os.environ.get(token_env, "")
    auth = Auth.Token(token) if token else None
    gh = Github(
        auth=auth, base_url=api_url or os.environ.get("GITHUB_API_URL", "https://api.github.com")
    )
    return gh.get_repo(repository)


def cmd_verify(args: argparse.Namespace) -> int:
    from curation.verify import verify_live_dir

    problems = verify_live_dir(args.live_dir, check_history=not args.no_history)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"bfcl-curate: {len(problems)} problem(s) in {args.live_dir}", file=sys.stderr)
        return 1
    print(f"{args.live_dir}: every release verified")
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    from curation.publish import publish

    result = publish(
        repo_dir=Path(args.repo_dir),
        live_dir=args.live_dir,
        report_path=args.report,
        repository=args.repository,
        token_env=args.token_env,
        api_url=args.api_url,
        remote=args.remote,
        base=args.base,
    )
    print(json.dumps(result))
    return 0


def cmd_harvest(args: argparse.Namespace) -> int:
    import os

    from bfcl_action.core.records import Mode
    from bfcl_action.generate.model import ModelLink, verify_options
    from bfcl_action.model.options import BackendOptions
    from curation.build import iso_week
    from curation.harvest import (
        SOURCES_FILE,
        harvest,
        known_functions,
        load_sources,
        write_drafts,
    )
    from curation.sources import official_cases
    from curation.store import latest_version, read_release_items

    sources = load_sources(args.sources or args.live_dir / SOURCES_FILE)
    parent = latest_version(args.live_dir)
    previous = read_release_items(args.live_dir / "releases" / parent) if parent else []
    reference = [] if args.reference == "none" else official_cases(args.reference)
    known = known_functions(previous, [f for c in reference for f in c.functions])
    options = BackendOptions(
        model=args.model,
        mode=Mode.FC,
        base_url=args.base_url,
        api_key=os.environ.get(args.api_key_env),
        seed=args.seed,
    )
    link = ModelLink(proposer=options, verifier=verify_options(options, args.verify_model))
    report = harvest(sources, known=known, link=link, per_tool=args.per_tool, seed=args.seed)
    version = args.version or iso_week()
    drafts, review = write_drafts(args.live_dir, version, report)
    print(
        f"{report.functions} functions from {report.sources} sources: {len(report.fresh)} "
        f"fresh, {len(report.seen)} seen before; {len(report.drafts)} drafts "
        f"({report.disagreements} disagreements) in {drafts}; review list {review}. "
        "Nothing is released until a draft id is added to approved.txt."
    )
    return 0


def cmd_wheel(args: argparse.Namespace) -> int:
    from curation.live_wheel import build_wheel

    print(build_wheel(args.live_dir, args.version, args.out))
    return 0


def cmd_register(args: argparse.Namespace) -> int:
    from curation.live_wheel import REGISTRY, registry_for, render_registry, write_registry

    target = args.registry or REGISTRY
    if args.check:
        expected = render_registry(registry_for(args.live_dir))
        found = target.read_text(encoding="utf-8") if target.is_file() else ""
        if found != expected:
            print(
                f"bfcl-curate: error: {target} does not match {args.live_dir}; run "
                "`bfcl-curate register` and commit it with the release",
                file=sys.stderr,
            )
            return 1
        return 0
    changed = write_registry(args.live_dir, target)
    print(f"{target}: {'updated' if changed else 'unchanged'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bfcl-curate", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="curate contributions into the next Live release")
    b.add_argument("--input", type=Path, nargs="*", default=[], help="files or folders")
    b.add_argument("--live-dir", type=Path, default=DEFAULT_LIVE_DIR)
    b.add_argument("--version", help="release version YYYY-Www (default: this ISO week)")
    b.add_argument("--report", type=Path, help="write the build report (JSON) here")
    b.add_argument("--from-bfcl", metavar="VERSION", help="import BFCL's own Live sets")
    b.add_argument(
        "--reference",
        default="bfcl@2026.3.23",
        help="official dataset to check contamination against, or 'none'",
    )
    b.add_argument(
        "--contributions-since-release",
        action="store_true",
        help="add files under contributions/ added (git) since the latest release",
    )
    b.add_argument("--repo-dir", default=".", help="git repository root (default: .)")
    b.add_argument(
        "--withdraw",
        action="append",
        default=[],
        metavar="ID=REASON",
        help="withdraw a released id (it becomes a tombstone, never reused)",
    )
    b.add_argument(
        "--note",
        action="append",
        default=[],
        metavar="TEXT",
        help="a line for the changelog and the build report saying why (repeatable)",
    )
    b.add_argument("--from-issues", metavar="OWNER/NAME", help="read open issue-form contributions")
    b.add_argument("--issue-label", default="live-contribution")
    b.add_argument(
        "--token-env", default="GITHUB_TOKEN", help="env var with a token for --from-issues"
    )
    b.add_argument("--api-url", default=None, help="GitHub API URL (default GITHUB_API_URL)")
    b.set_defaults(func=cmd_build)

    v = sub.add_parser("verify", help="check every release's checksums and immutability")
    v.add_argument("live_dir", type=Path, nargs="?", default=DEFAULT_LIVE_DIR)
    v.add_argument("--no-history", action="store_true", help="skip the git-history check")
    v.set_defaults(func=cmd_verify)

    h = sub.add_parser(
        "harvest", help="draft entries for fresh public function definitions (for review)"
    )
    h.add_argument("--live-dir", type=Path, default=DEFAULT_LIVE_DIR)
    h.add_argument("--sources", type=Path, help="sources file (default: <live-dir>/sources.yml)")
    h.add_argument("--model", required=True, help="the proposing model")
    h.add_argument("--verify-model", help="the verify model (default: --model)")
    h.add_argument("--base-url", help="OpenAI-compatible endpoint")
    h.add_argument("--api-key-env", default="OPENAI_API_KEY")
    h.add_argument("--per-tool", type=int, default=2, help="drafts per fresh function")
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--version", help="names the drafts and review files (default: this week)")
    h.add_argument(
        "--reference",
        default="bfcl@2026.3.23",
        help="official dataset whose functions count as seen, or 'none'",
    )
    h.set_defaults(func=cmd_harvest)

    w = sub.add_parser("wheel", help="package one release as its data wheel (bfcl-action-live)")
    w.add_argument("version", help="release version YYYY-Www")
    w.add_argument("--live-dir", type=Path, default=DEFAULT_LIVE_DIR)
    w.add_argument("--out", type=Path, default=Path("dist"), help="output folder (default dist)")
    w.set_defaults(func=cmd_wheel)

    r = sub.add_parser(
        "register", help="record every release's manifest sha256 in the package's registry"
    )
    r.add_argument("--live-dir", type=Path, default=DEFAULT_LIVE_DIR)
    r.add_argument("--registry", type=Path, help="registry file (default: the package's own)")
    r.add_argument("--check", action="store_true", help="fail if the registry is out of date")
    r.set_defaults(func=cmd_register)

    p = sub.add_parser("publish", help="branch, commit, push and open/update the data PR")
    p.add_argument("--repo-dir", default=".")
    p.add_argument("--live-dir", type=Path, default=DEFAULT_LIVE_DIR)
    p.add_argument("--report", type=Path, required=True, help="the build report (JSON)")
    p.add_argument("--repository", required=True, help="owner/name")
    p.add_argument("--token-env", default="BFCL_CURATE_TOKEN", help="env var with the token")
    p.add_argument("--api-url", default=None, help="GitHub API URL (default GITHUB_API_URL)")
    p.add_argument("--remote", default="origin")
    p.add_argument("--base", default="main")
    p.set_defaults(func=cmd_publish)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command with every printed line redacted and defused: the same log edge as
    `bfcl-action` (`bfcl_action.safety.logstream`), since contributions name licences and files."""
    with std_streams():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except BfclActionError as exc:
        print(f"bfcl-curate: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in CURATE_EXTRA_MODULES:
            raise
        print(
            f"bfcl-curate: error: {exc.name} is missing; install the curation extra: "
            "pip install 'bfcl-action[curate]'",
            file=sys.stderr,
        )
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
