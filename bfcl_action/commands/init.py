"""`bfcl-action init`: a commented starter `.bfcl.yml` and workflow for this repository.

Finds the tool-definition files already in the repository (OpenAI, MCP and its `.snap`
snapshots, Anthropic, Gemini, VS Code `package.json`, Dify, BFCL; JSON or YAML), lists them
in the config, and writes `.github/workflows/bfcl.yml` that runs the
Action on pull requests. Existing files are never overwritten without `--force`.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import itertools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.safety.numbers import integer
from bfcl_action.settings.config_schema import MODELINE
from bfcl_action.tools.formats import FROM_FILE, ToolFormat, find_tools
from bfcl_action.tools.issues import Severity
from bfcl_action.tools.source import JSON_SUFFIXES, JSONL_SUFFIXES, YAML_SUFFIXES, parse_text

ACTION_REPOSITORY = "bfcl-action/bfcl-action"
"""`owner/name` of the published Action; the workflow pins its `v1` tag."""
SKIP_DIRS = {
    ".git",
    ".github",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".tox",
    ".nox",
    "dist",
    "build",
    ".mypy_cache",
    ".pytest_cache",
    "site-packages",
}
MAX_FILE_BYTES = 1_000_000
SNAPSHOT_SUFFIXES = {".snap"}
"""MCP tool snapshots (one tool's JSON per file, as GitHub's MCP server keeps them)."""
GLOB_AT = 5
SPECIFIC_FORMATS = {ToolFormat.GEMINI, ToolFormat.VSCODE, ToolFormat.DIFY}
SCHEMA_KEYS = ("parameters", "inputSchema", "input_schema")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "init",
        help="write a starter .bfcl.yml and GitHub workflow for the tools found here",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dir", type=Path, default=Path("."), help="repository root")
    parser.add_argument("--model", default="gpt-4o-mini", help="model id for the config")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.add_argument(
        "--scheduled",
        action="store_true",
        help="also write .github/workflows/bfcl-scheduled.yml: a weekly run with score history "
        "and one alert issue on degradation (keeps an existing .bfcl.yml and bfcl.yml)",
    )
    parser.add_argument(
        "--generate",
        type=integer,
        metavar="N",
        help="then draft N verified cases per tool with the model (`bfcl-action generate`; "
        "prints the command instead when no API key is set)",
    )
    parser.set_defaults(func=run)


def _is_tool_file(path: Path, root: Path) -> int:
    """Number of tools in a file that holds nothing but tool definitions (else 0)."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return 0
        doc = parse_text(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    except (InputError, OSError, UnicodeDecodeError):
        return 0
    raws, issues = find_tools(doc)
    if not raws or any(i.severity is Severity.ERROR for i in issues):
        return 0
    for raw in raws:
        if raw.schema is not FROM_FILE or raw.format in SPECIFIC_FORMATS:
            continue  # a shape only tool files have (a parameter list, languageModelTools)
        node: Any = doc.data
        for part in raw.schema_path[:-1]:
            node = node[part]
        if not isinstance(node, dict) or raw.schema_path[-1] not in node:
            return 0
    return len(raws)


def _walk(root: Path) -> Iterator[tuple[Path, list[str]]]:
    """Each directory of the repository with its file names, in path order, never entering
    `SKIP_DIRS` (a virtualenv or `node_modules` is pruned, not listed and then filtered)."""
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        yield Path(directory), sorted(files)


def _python_files(root: Path, limit: int) -> list[Path]:
    """The first `limit` Python files of the repository, in path order."""
    found = (folder / name for folder, names in _walk(root) for name in names)
    return list(itertools.islice((p for p in found if p.suffix == ".py"), limit))


def find_tool_files(root: Path) -> list[tuple[str, int]]:
    """Repository-relative paths (or globs) of tool files with their tool counts, by path.

    MCP servers keep one snapshot per tool (`__toolsnaps__/*.snap`, GitHub's MCP server has
    117): a directory where every file of a suffix is a tool file, and there are at least
    `GLOB_AT` of them, is proposed as one glob."""
    suffixes = YAML_SUFFIXES | JSON_SUFFIXES | JSONL_SUFFIXES | SNAPSHOT_SUFFIXES
    found: list[tuple[str, int]] = []
    for directory, files in _walk(root):
        here: dict[str, list[tuple[str, int]]] = {}
        for name in files:
            path = directory / name
            if path.suffix.lower() not in suffixes or name.startswith(".bfcl"):
                continue
            count = _is_tool_file(path, root)
            here.setdefault(path.suffix.lower(), []).append(
                (path.relative_to(root).as_posix(), count)
            )
        for suffix, listed in here.items():
            if len(listed) >= GLOB_AT and all(n for _, n in listed):
                rel = directory.relative_to(root).as_posix()
                pattern = f"*{suffix}" if rel == "." else f"{rel}/*{suffix}"
                found.append((pattern, sum(n for _, n in listed)))
            else:
                found.extend((p, n) for p, n in listed if n)
    return sorted(found)


def find_mcp_server(root: Path) -> list[str] | None:
    """The command of the MCP server this repository is, if it is one: an `mcp`/`fastmcp`
    dependency in `pyproject.toml` and a Python file creating the server, or the MCP SDK in
    `package.json` and its `main` (or `bin`) script."""
    pyproject = root / "pyproject.toml"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = pyproject.read_text(encoding="utf-8")[:MAX_FILE_BYTES]
        if re.search(r"""["'](mcp|fastmcp)\b""", text):
            for path in _python_files(root, 500):
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    if MCP_SERVER_CODE.search(path.read_text(encoding="utf-8")[:MAX_FILE_BYTES]):
                        return ["python", path.relative_to(root).as_posix()]
    package = root / "package.json"
    with contextlib.suppress(OSError, UnicodeDecodeError, ValueError, AttributeError):
        data = json.loads(package.read_text(encoding="utf-8")[:MAX_FILE_BYTES])
        deps = {**data.get("dependencies", {}), **data.get("devDependencies", {})}
        if "@modelcontextprotocol/sdk" in deps:
            script = data.get("bin") or data.get("main") or "build/index.js"
            if isinstance(script, dict):
                script = next(iter(script.values()), "build/index.js")
            return ["node", str(script)]
    return None


PYTHON_TOOL_FILE = re.compile(r"(.*_)?tools?(_.*)?\.py")
"""Where teams keep tools written as Python functions: `tools.py`, `shop_tools.py`,
`tools_v2.py`, or any module of a `tools/` package."""
MAX_PYTHON_TOOLS = 64


def find_python_tools(root: Path) -> list[tuple[str, list[str]]]:
    """Python modules whose public, documented top-level functions look like tools, with
    those functions' names: `[("agent.tools", ["search", "book"])]`.

    The files are read with `ast`, never imported (a repository's code runs only inside the
    jail, when a run loads the config); test files and skipped directories are left out."""
    found: list[tuple[str, list[str]]] = []
    for path in _python_files(root, 2000):
        rel = path.relative_to(root)
        if any(part.startswith((".", "test")) for part in rel.parts[:-1]):
            continue
        in_tools_package = len(rel.parts) > 1 and rel.parts[-2] in ("tools", "tool")
        if path.name.startswith("test") or not (
            PYTHON_TOOL_FILE.fullmatch(path.name) or in_tools_package
        ):
            continue
        if path.name == "__init__.py" or not all(
            p.isidentifier() for p in rel.with_suffix("").parts
        ):
            continue
        # A hostile module can exhaust the parser (`x = ------...1` is a MemoryError, deep
        # nesting a RecursionError): such a file is not a tool module.
        unreadable = (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError)
        with contextlib.suppress(*unreadable, MemoryError):
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = [
                node.name
                for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not node.name.startswith("_")
                and ast.get_docstring(node)
            ][:MAX_PYTHON_TOOLS]
            if names:
                found.append((".".join(rel.with_suffix("").parts), names))
    return found


MCP_SERVER_CODE = re.compile(r"\b(FastMCP|MCPServer)\(|mcp\.server")


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./*@+-]*")
_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"})


def _scalar(value: str) -> str:
    """`value` as a YAML scalar that stays one string: plain when it plainly is one
    (`tools/weather.json`, `gpt-4o-mini`), else a JSON string (a YAML double-quoted scalar;
    `ensure_ascii` escapes newlines, line and paragraph separators too)."""
    if _PLAIN.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=True)


def render_config(
    tool_files: list[tuple[str, int]],
    *,
    model: str,
    server: list[str] | None = None,
    python_tools: list[tuple[str, list[str]]] | None = None,
) -> str:
    """The starter `.bfcl.yml`: every section present, defaults spelled out, comments on why.

    Every value that came from outside this function (tool file names, the MCP server's
    command, the model name) is emitted as a JSON scalar (valid YAML, quoted and escaped),
    never concatenated: a crafted file name cannot add a key such as `models:` to the file."""
    lines = [f"  - {_scalar(path)}   # {n} tool{'s' if n != 1 else ''}" for path, n in tool_files]
    for module, names in python_tools or []:
        listed = ", ".join(_scalar(name) for name in names)
        n = len(names)
        lines.append(
            f"  - python: {{module: {_scalar(module)}, names: [{listed}]}}"
            f"   # {n} function{'s' if n != 1 else ''}"
        )
    if server:
        command = ", ".join(_scalar(part) for part in server)
        lines.append(f"  - mcp: {{command: [{command}]}}   # this MCP server's tools/list")
    if lines:
        tools_key = "tools:\n" + "\n".join(lines)
    else:
        tools_key = "tools: []\n  # - tools/*.json   # no tool files found; list yours here"
    return f"""\
{MODELINE}
# bfcl-action configuration. Reference: docs/own-tools.md (the line above lets editors
# validate and complete this file with the shipped JSON Schema)
version: 1

# Tool definitions (globs relative to this file): OpenAI, MCP (tools/list results, .snap
# snapshots), Anthropic, Gemini, VS Code package.json, Dify or BFCL tool files, in JSON, JSON
# Lines or YAML; Python functions (`python:`), MCP servers (`mcp:`), OpenAPI documents
# (docs/own-tools.md lists every shape).
{tools_key}

# Your own test cases (YAML). Example case file:
#   cases:
#     - id: weather_tokyo
#       question: What's the weather in Tokyo?
#       tools: [get_weather]            # optional subset; default all tools
#       expect:                         # [] = no call expected; any = some call expected
#         - get_weather: {{city: [Tokyo, "Tokyo, Japan"], unit: [celsius, ""]}}
cases: []

suites:
  own: [own]          # own categories: own_simple ... own_irrelevance, own_distractors
  official: []        # official BFCL categories or groups, e.g. [simple_python, live]
  live: []            # categories of the weekly Live set, e.g. [live_simple]
  dataset: bfcl@2026.3.23
  live_dataset: live@latest

# Suites derived from your tools (no cases to write).
derived:
  irrelevance:        # unrelated questions from BFCL/Live pools; correct iff no call
    count: 50
    max_similarity: 90
    exclude_ids: []
  distractors:        # each simple case re-asked with k extra pool functions
    k: [0, 4, 16, 32]

seed: 0               # fixes every sample

model:
  name: {_scalar(model)}
  mode: fc            # fc (native tool calls) or prompt
  api_key_env: OPENAI_API_KEY
  temperature: 0

# When the PR check fails (scores are percentages).
thresholds:
  max_drop: 2.0       # points of accuracy lost vs the merge-base...
  alpha: 0.05         # ...and significant at this level
  min_score: null     # or an absolute floor, e.g. 80
  categories: {{}}      # per category, e.g. own_irrelevance: {{min_score: 90}}

weights: {{}}           # per-category weights of the overall own score, e.g. own_simple: 2
"""


def render_workflow(*, action: str = ACTION_REPOSITORY, branch: str = "main") -> str:
    """The starter workflow: the Action on pull requests and on pushes to main, with pinned
    actions, the PR head checked out (`ref:`, `fetch-depth: 0`), no persisted credentials and
    job-level permissions (the same text is docs/workflows/quick-start.yml and the README's
    quick start). The model is named once, in `.bfcl.yml` (`model:` or a `models:` matrix),
    so switching to a matrix needs no workflow edit. `branch` is the default branch, whose
    pushes store the baselines."""
    ref = _scalar(branch)
    return f"""\
# .github/workflows/bfcl.yml: the single-step setup (see docs/action.md); `bfcl-action init`
# writes this file.
name: bfcl

on:
  push:
    branches: [{ref}]  # each {ref} commit stores the baseline digest in its check run
  pull_request:

permissions:
  contents: read

jobs:
  bfcl:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      checks: write         # the check run (also the baseline store)
      pull-requests: write  # the sticky comment
      issues: read          # private repositories: the PR's comments are read as issue comments
    steps:
      - uses: {CHECKOUT}
        with:
          ref: ${{{{ github.event.pull_request.head.sha || github.sha }}}}  # PR head, not merge
          fetch-depth: 0  # the merge-base's tool files, to name changed tools in the comment
          persist-credentials: false
      - uses: {action}@v1
        with:
          api-key: ${{{{ secrets.OPENAI_API_KEY }}}}
"""


SCHEDULED_WORKFLOW = Path(".github") / "workflows" / "bfcl-scheduled.yml"
CHECKOUT = "actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0"
UPLOAD_ARTIFACT = "actions/upload-artifact@330a01c490aca151604b8cf639adc76d48f6c5d4 # v5.0.0"


def render_scheduled_workflow(*, action: str = ACTION_REPOSITORY) -> str:
    """The weekly workflow: history in an artifact, one alert issue on degradation
    (docs/scheduled.md; the same text is docs/workflows/scheduled.yml)."""
    return f"""\
# Weekly evaluation of the model behind your tools; one alert issue when it degrades.
# Reference: docs/scheduled.md
name: bfcl-scheduled

on:
  schedule:
    - cron: "17 6 * * 1"   # Mondays 06:17 UTC
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: bfcl-scheduled   # one run at a time: the alert issue and the history stay consistent
  cancel-in-progress: false

jobs:
  bfcl:
    runs-on: ubuntu-latest
    permissions:
      contents: read   # `write` (and persist-credentials: true) for `history: branch`
      checks: write    # the check run: its digest is the next run's baseline
      issues: write    # the alert issue
      actions: read    # download the previous run's history artifact
    steps:
      - uses: {CHECKOUT}
        with:
          persist-credentials: false
      - name: Fetch the score history of the previous runs
        env:
          GH_TOKEN: ${{{{ github.token }}}}
          WORKFLOW: ${{{{ github.workflow }}}}
          BRANCH: ${{{{ github.ref_name }}}}
        run: |
          ids=$(gh run list --workflow "$WORKFLOW" --branch "$BRANCH" --status completed \\
            --limit 10 --json databaseId --jq '.[].databaseId' || true)
          for id in $ids; do
            if gh run download "$id" --name bfcl-history --dir bfcl-results/history; then
              echo "history of run $id restored"; break
            fi
          done
      - uses: {action}@v1
        id: bfcl
        with:
          api-key: ${{{{ secrets.OPENAI_API_KEY }}}}
          check-name: bfcl-weekly   # its own check run, alert and history (PR checks keep `bfcl`)
          # suites: bfcl@2026.3.23   # a pinned set keeps weeks comparable; live@latest
          #                          # changes weekly, so only the floors apply across weeks
          history: artifact
          metrics-openmetrics: bfcl-results/metrics.prom
      - name: Keep the score history (also when the evaluation failed)
        if: always()
        uses: {UPLOAD_ARTIFACT}
        with:
          name: bfcl-history
          path: bfcl-results/history/
          if-no-files-found: ignore
          retention-days: 90
      # Ship the metrics to a Prometheus Pushgateway (docs/scheduled.md has an OTLP recipe):
      # - name: Push metrics
      #   if: always()
      #   env:
      #     PUSHGATEWAY_URL: ${{{{ secrets.PUSHGATEWAY_URL }}}}
      #   run: >-
      #     curl --fail-with-body --data-binary @bfcl-results/metrics.prom
      #     "$PUSHGATEWAY_URL/metrics/job/bfcl/check/bfcl-weekly"
"""


def default_branch(root: Path) -> str:
    """The branch whose pushes should store baselines: the remote's default (`origin/HEAD`),
    else a local `main` or `master`, else the checked-out branch; `main` outside git."""
    try:
        import git

        repo = git.Repo(root, search_parent_directories=True)
    except Exception:  # not a repository, or git missing: the common default
        return "main"
    with contextlib.suppress(Exception):  # no remote HEAD recorded: look at local branches
        return str(repo.git.symbolic_ref("refs/remotes/origin/HEAD", short=True)).split("/", 1)[1]
    names = {head.name for head in repo.heads}
    for name in ("main", "master"):
        if name in names:
            return name
    try:
        return str(repo.active_branch.name)
    except (TypeError, ValueError):  # detached HEAD
        return "main"


def existing_case_glob(root: Path) -> str | None:
    """`cases/*.yml` (or `.yaml`) when the repository already has case files there."""
    for glob in (CASE_GLOB, "cases/*.yaml"):
        if any((root / "cases").glob(glob.split("/", 1)[1])):
            return glob
    return None


def next_steps(sources: int, cases: str | None, branch: str) -> str:
    """What a new user does after `init`, in order (printed, not written anywhere);
    `sources` counts the tool files, Python modules and MCP servers it listed."""
    lines = ["", "next:"]
    if not sources:
        lines.append(
            "  ! no tool definitions were found: list your tool files under `tools:` in "
            ".bfcl.yml (OpenAI, MCP, Anthropic or BFCL JSON/YAML; Python functions; MCP servers)"
        )
    lines.append("  1. bfcl-action validate      checks the tools and cases, with file:line errors")
    if cases is None:
        lines.append(
            "  2. write cases (docs/own-tools.md) and list their files under `cases:` in "
            ".bfcl.yml, or draft verified ones: bfcl-action generate --per-tool 3"
        )
    else:
        lines.append(f"  2. your cases in {cases} are listed under `cases:`")
    lines.append(
        "  3. add the repository secret OPENAI_API_KEY (Settings > Secrets and variables > "
        "Actions); another endpoint: model.base_url in .bfcl.yml"
    )
    lines.append(
        f"  4. commit and push to {branch}: that run stores the baseline every pull request "
        "compares with"
    )
    lines.append("  several candidate models? list them under `models:` (docs/model-matrix.md)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    root: Path = args.dir
    if not root.is_dir():
        raise InputError(f"not a directory: {root}", field="--dir")
    tool_files = find_tool_files(root)
    cases = existing_case_glob(root)
    branch = default_branch(root)
    server = find_mcp_server(root)
    python_tools = find_python_tools(root)
    config_text = render_config(
        tool_files, model=args.model, server=server, python_tools=python_tools
    )
    if cases is not None:
        config_text = with_case_glob(config_text, cases, "your cases")
    targets = {
        root / ".bfcl.yml": config_text,
        root / ".github" / "workflows" / "bfcl.yml": render_workflow(branch=branch),
    }
    if getattr(args, "scheduled", False):
        for path in [p for p in targets if p.exists() and not args.force]:
            del targets[path]  # adding the scheduled workflow to an initialised repository
            print(f"kept {path}")
        targets[root / SCHEDULED_WORKFLOW] = render_scheduled_workflow()
    existing = [p for p in targets if p.exists()]
    if existing and not args.force:
        names = ", ".join(str(p) for p in existing)
        raise InputError(f"refusing to overwrite {names}; use --force to replace")
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if args.generate is not None:
        return draft_cases(root / ".bfcl.yml", args.generate)
    if root / ".bfcl.yml" in targets:
        print(next_steps(len(tool_files) + len(python_tools) + bool(server), cases, branch))
    return 0


CASE_GLOB = "cases/*.yml"


def with_case_glob(
    config_text: str,
    glob: str = CASE_GLOB,
    note: str = "drafts from `bfcl-action generate`: cases/generated.yml",
) -> str:
    """The starter config listing `glob` under `cases:` (where `generate` writes its drafts,
    or where the repository's case files already are)."""
    return config_text.replace("cases: []\n", f"cases:\n  - {glob}   # {note}\n", 1)


def draft_cases(config: Path, per_tool: int) -> int:
    """`generate` for the new config, or the exact command when no key is configured."""
    from bfcl_action.commands.generate import GenerateCommand, _settings, run_generate
    from bfcl_action.core.errors import ConfigError
    from bfcl_action.settings.resolve import api_key

    command = f"bfcl-action generate --config {config} --per-tool {per_tool}"
    generate = GenerateCommand(config=config, per_tool=per_tool, note_unlisted=False)
    settings = _settings(generate)
    try:
        api_key(settings)
    except ConfigError:
        print(
            f"no {settings.api_key_env} set, so no cases were drafted; set it (or "
            f"OPENAI_BASE_URL for a local server) and run:\n  {command}"
        )
        return 0
    print(f"drafting {per_tool} cases per tool: {command}")
    code = run_generate(generate)
    text = config.read_text(encoding="utf-8")
    listed = with_case_glob(text)
    if code == 0 and listed != text:
        config.write_text(listed, encoding="utf-8")
        print(f"listed {CASE_GLOB} under cases: in {config}")
    return code
