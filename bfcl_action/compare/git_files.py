"""The git edge: files as committed at a ref, and files on a data branch.

`impact` and `history` are pure; what they need from git is read here and passed in:
`tools_at_ref` / `tree_at_ref` give the base side of a comparison (the tool set, or the
whole config directory, at the merge-base), `BranchStore` reads and commits the history
file on a data branch. Every call goes through gitpython against the local checkout.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.safety.globs import matches_any
from bfcl_action.tools.load import ToolSet, tools_from_sources
from bfcl_action.tools.validate import ToolLimits


def _commit_at(repo_dir: Path, ref: str) -> tuple[Any, Path]:
    """The commit `ref` names in the repository holding `repo_dir`, and its work tree root;
    a missing repository or an unknown ref is an `InputError`."""
    import git

    try:
        repo = git.Repo(repo_dir, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"not a git repository: {repo_dir}") from None
    try:
        commit = repo.commit(ref)
    except (git.BadName, ValueError):
        raise InputError(f"unknown git ref {ref!r}", field="--base-ref") from None
    return commit, Path(repo.working_tree_dir or repo_dir).resolve()


def tools_at_ref(
    repo_dir: Path,
    ref: str,
    patterns: Sequence[str],
    *,
    config_dir: Path | None = None,
    exclude: Sequence[str] = (),
    limits: ToolLimits | None = None,
) -> ToolSet:
    """The tool set as committed at `ref`, using the working tree's globs.

    Globs are relative to `config_dir` (default: the repository root), as in `.bfcl.yml`.
    A bad ref is an `InputError`; tool files that do not validate at the ref raise the usual
    `ToolValidationError` (names prefixed with `REF:`).
    """
    commit, root = _commit_at(repo_dir, ref)
    prefix = ""
    if config_dir is not None:
        rel = config_dir.resolve().relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
    sources: list[tuple[str, str]] = []
    items: list[Any] = list(commit.tree.traverse())
    for blob in items:
        if getattr(blob, "type", "") != "blob":
            continue
        path = str(blob.path)
        if not path.startswith(prefix):
            continue
        rel_path = path[len(prefix) :]
        if matches_any(rel_path, patterns) and not matches_any(rel_path, exclude):
            data = blob.data_stream.read().decode("utf-8", errors="replace")
            sources.append((f"{ref}:{rel_path}", data))
    sources.sort()
    return tools_from_sources(sources, limits or ToolLimits())


def tree_at_ref(repo_dir: Path, ref: str, directory: Path, dest: Path) -> Path:
    """Write the files under `directory` as committed at `ref` into `dest`; returns the
    directory's counterpart inside `dest` (what `build_cases` needs to build the base's cases
    from the base's own config, tools, cases and pools, without touching the work tree)."""
    commit, root = _commit_at(repo_dir, ref)
    rel = directory.resolve().relative_to(root).as_posix()
    prefix = "" if rel == "." else rel + "/"
    items: list[Any] = list(commit.tree.traverse())
    for blob in items:
        path = str(getattr(blob, "path", ""))
        if getattr(blob, "type", "") != "blob" or not path.startswith(prefix):
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.data_stream.read())
    out = dest / rel
    out.mkdir(parents=True, exist_ok=True)
    return out


BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


class BranchStore:
    """Files on a data branch of the checkout's `origin`, read and committed with git plumbing.

    Nothing in the user's working tree, index or branches is touched: the branch is fetched
    into a private ref, commits are built in a temporary index, and pushed by sha. A push
    that loses a race (another run pushed first) is retried on the new tip, so no line is
    lost. The checkout's credentials are used (actions/checkout keeps them for `git push`;
    the job needs `contents: write`).
    """

    def __init__(self, checkout: Path, branch: str, *, remote: str = "origin") -> None:
        import git

        self.repo = git.Repo(checkout, search_parent_directories=True)
        self.branch = branch
        self.remote = remote
        self.ref = f"refs/bfcl-action/{branch}"

    def fetch(self) -> str | None:
        """Fetch the branch; its tip sha, or None when the branch does not exist yet."""
        import git

        try:
            self.repo.git.fetch(
                "--quiet", "--no-tags", self.remote, f"+refs/heads/{self.branch}:{self.ref}"
            )
        except git.GitCommandError as exc:
            if "couldn't find remote ref" in str(exc) or "could not find remote ref" in str(exc):
                return None
            raise
        return str(self.repo.git.rev_parse(self.ref))

    def read(self, tip: str | None, path: str) -> str:
        import git

        if tip is None:
            return ""
        try:
            return str(self.repo.git.show(f"{tip}:{path}", strip_newline_in_stdout=False))
        except git.GitCommandError:
            return ""

    def commit(self, parent: str | None, files: dict[str, str], message: str) -> str:
        """A commit of `files` over `parent`'s tree (built in a throwaway index)."""
        with tempfile.TemporaryDirectory(prefix="bfcl-history-") as tmp:
            env = {
                "GIT_INDEX_FILE": str(Path(tmp) / "index"),
                "GIT_AUTHOR_NAME": BOT_NAME,
                "GIT_AUTHOR_EMAIL": BOT_EMAIL,
                "GIT_COMMITTER_NAME": BOT_NAME,
                "GIT_COMMITTER_EMAIL": BOT_EMAIL,
            }
            g = self.repo.git
            if parent is None:
                g.read_tree("--empty", env=env)
            else:
                g.read_tree(parent, env=env)
            for number, (path, text) in enumerate(sorted(files.items())):
                blob_file = Path(tmp) / f"blob{number}"
                blob_file.write_text(text, encoding="utf-8", newline="\n")
                blob = g.hash_object("-w", str(blob_file))
                g.update_index("--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
            tree = g.write_tree(env=env)
            args = [tree, "-m", message] + (["-p", parent] if parent else [])
            return str(g.commit_tree(*args, env=env))

    def push(self, sha: str) -> bool:
        """Push `sha` as the branch; False when the branch moved meanwhile (not a fast-forward)."""
        import git

        try:
            self.repo.git.push("--quiet", self.remote, f"{sha}:refs/heads/{self.branch}")
        except git.GitCommandError as exc:
            text = str(exc)
            if "non-fast-forward" in text or "rejected" in text or "fetch first" in text:
                return False
            raise
        return True

    def update(
        self, build: Callable[[Callable[[str], str]], dict[str, str]], message: str, tries: int = 3
    ) -> str:
        """Commit what `build(read)` returns over the branch tip and push; returns the commit.

        `build` gets a reader of the tip's files and is called again after a lost race.
        """
        for _ in range(tries):
            tip = self.fetch()
            reader: Callable[[str], str] = functools.partial(self.read, tip)
            files = build(reader)
            sha = self.commit(tip, files, message)
            if self.push(sha):
                return sha
        raise BfclActionError(
            f"could not push to the `{self.branch}` branch: it kept moving ({tries} attempts)"
        )
