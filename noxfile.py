"""The one way to lint, test, check conformance, benchmark and demo bfcl-action."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint", "tests", "conformance"]


# The official checker, installed light: its runtime dependencies would pull many GB, and it
# is a test-only reference that we read, never import at runtime (see docs/conformance.md).
OFFICIAL_LIGHT = [
    "bfcl-eval==2026.3.23",
    "tree_sitter==0.21.3",
    "tree-sitter-java==0.21.0",
    "tree-sitter-javascript==0.21.4",
    "filelock==3.20.0",
    "tenacity",
    "mpmath==1.3.0",
]


@nox.session
def tests(session: nox.Session) -> None:
    """Unit and end-to-end tests (local HTTP servers, local git remotes; no network)."""
    session.install("-e", ".[test,curate,mcp]")
    args = session.posargs or ["-n", "2", "-q"]
    session.run("pytest", *args)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict and the import-linter layering contracts on the packages."""
    session.install("-e", ".[lint,curate]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "bfcl_action", "curation")
    session.run("mypy")
    _lint_imports(session)
    _lint_github_files(session)
    # The vendored subset of GitHub's REST description is what the pinned @octokit/openapi
    # tarball gives (downloaded from the npm registry over HTTPS into .cache/, sha256-checked).
    session.run("python", "-m", "tests.support.github_openapi", "--check")


def _lint_imports(session: nox.Session) -> None:
    """Every import-linter contract in pyproject.toml must hold, except those listed under
    [tool.bfcl-action.lint] pending-import-contracts, which are only reported."""
    import tomllib

    config = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))
    ids = [c["id"] for c in config["tool"]["importlinter"]["contracts"]]
    waiting = set(config["tool"]["bfcl-action"]["lint"]["pending-import-contracts"])
    enforced = [i for i in ids if i not in waiting]
    session.run("lint-imports", "--no-logo", *(f"--contract={i}" for i in enforced))
    pending = [i for i in ids if i in waiting]
    if pending:
        session.log(f"pending layering contracts (reported, not enforced): {', '.join(pending)}")
        session.run(
            "lint-imports",
            "--no-logo",
            *(f"--contract={i}" for i in pending),
            success_codes=[0, 1],
        )


# Both work offline: zizmor --offline skips its online audits, and check-jsonschema's
# builtin schemas are vendored in the package.
GITHUB_LINTERS = ["zizmor==1.32.0", "check-jsonschema==0.39.0"]


def _lint_github_files(session: nox.Session) -> None:
    """zizmor and the JSON schemas on action.yml, the workflows and docs/workflows examples."""
    import glob

    session.install(*GITHUB_LINTERS)
    workflows = sorted(glob.glob(".github/workflows/*.yml") + glob.glob("docs/workflows/*.yml"))
    session.run("zizmor", "--offline", "--config", ".github/zizmor.yml", "action.yml", *workflows)
    # What `bfcl-action init` writes for a new user, audited as written (not only the docs copy).
    scratch = Path(session.create_tmp()) / "init-repo"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    session.run("bfcl-action", "init", "--scheduled", "--dir", str(scratch), silent=True)
    written = sorted(str(p) for p in (scratch / ".github" / "workflows").glob("*.yml"))
    session.run("zizmor", "--offline", "--config", ".github/zizmor.yml", *written)
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *written)
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-actions", "action.yml")


def _install_official(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.install("--no-deps", *OFFICIAL_LIGHT)
    session.env["BFCL_PROJECT_ROOT"] = session.create_tmp()


@nox.session
def conformance(session: nox.Session) -> None:
    """Our verdicts against the official bfcl-eval checker's, per category and mutation."""
    _install_official(session)
    session.run("python", "-m", "tests.conformance.run", *session.posargs)
    # score files and leaderboard columns against the official scorer (skipped elsewhere)
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "conformance",
        "tests/conformance",
        "tests/checker/test_conformance_agreement.py",
        "tests/decode/test_decode_python_fast_corpus.py",
    )
    # Multi-turn: bfcl-eval's environments and checker against ours (25 entries per category;
    # `python -m tests.conformance.multi_turn` alone runs all 800).
    session.run("python", "-m", "tests.conformance.multi_turn", "--limit", "25")


@nox.session
def bench(session: nox.Session) -> None:
    """Throughput and scaling figures; written to bench-results/ and printed."""
    _install_official(session)
    session.install("-e", ".[test,curate]")
    os.makedirs("bench-results", exist_ok=True)
    session.run("python", "-m", "benchmarks", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    """The main job on the bundled example, with the replay model (no API key, no network).

    What the Action does on a pull request, step by step: evaluate the base and the head of
    examples/weather-app (recorded model answers), find the tool definitions the PR changed,
    compare, and print the PR comment. Everything it writes lands in demo-output/.
    """
    session.install(".")
    example, out = _demo_comment(session)
    print("\n" + "=" * 30 + " the PR comment " + "=" * 30 + "\n")
    print((out / "comment.md").read_text(encoding="utf-8"))
    print("=" * 76)
    print(f"written to {out}/: " + ", ".join(sorted(p.name for p in out.iterdir())))
    verdict = json.loads((out / "comparison.json").read_text(encoding="utf-8"))["verdict"]
    print(f"The Action's verdict on this PR: {verdict} (exit 1 fails the check).")
    _demo_generate(session, example, out)


def _demo_comment(session: nox.Session) -> tuple[Path, Path]:
    """Evaluate base and head with the replayed answers, find the changed tools, compare:
    the steps of `tests.support.demo_docs.demo_steps`, written to demo-output/."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from tests.support.demo_docs import EXAMPLE, demo_steps

    out = Path("demo-output")
    out.mkdir(exist_ok=True)
    for step in demo_steps(EXAMPLE, out):
        if step[0] == "run":
            session.log(f"evaluating {step[4]} (replayed answers)")
        # compare exits 1 on a regression, which is what the demo shows
        session.run("bfcl-action", *step, success_codes=[0, 1] if step[0] == "compare" else [0])
    return EXAMPLE, out


@nox.session
def docs(session: nox.Session) -> None:
    """Write the demo's PR comment into docs/pr-comment-example.md and the README, and the
    `.bfcl.yml` JSON Schema from the config model (tests fail when either is stale)."""
    session.install(".")
    _, out = _demo_comment(session)
    session.run("python", "-m", "tests.support.demo_docs", str(out / "comment.md"))
    session.install("-e", ".")  # the schema file is written into the source tree
    session.run("python", "-m", "bfcl_action.settings.config_schema")


def _demo_generate(session: nox.Session, example: Path, out: Path) -> None:
    """Draft cases for three weather tools with a scripted model, as `bfcl-action generate`
    does with a real one (docs/generate.md), on a copy of the example; then evaluate them."""
    import shutil
    import tempfile

    session.log("drafting verified cases with a scripted model (bfcl-action generate)")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "weather-app"
        shutil.copytree(example, copy)
        # a repository of its own, as a user's is: config paths may not leave it
        session.run("git", "init", "-q", str(copy), external=True)
        session.run(
            "python",
            str(example / "generate" / "make_generated.py"),
            "--dir",
            str(copy),
            "--run",
        )
        for name in ("generated.yml", "generated.review.md"):
            made = (copy / "generate" / name).read_bytes()
            shutil.copy(copy / "generate" / name, out / name)
            same = made == (example / "generate" / name).read_bytes()
            print(f"{name}: {'identical to' if same else 'DIFFERS from'} the committed one")
    print("\n" + "=" * 28 + " the generated cases " + "=" * 27 + "\n")
    print((out / "generated.yml").read_text(encoding="utf-8"))
