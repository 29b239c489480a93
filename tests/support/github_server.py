"""A local, stateful GitHub REST server that PyGithub talks to through `base_url`.

Serves the parts of the REST API that bfcl-action and the Live curation pipeline call, with
GitHub's response shapes (enough for PyGithub objects to load without lazy re-fetches) and
GitHub's limits and error replies:

- repositories, commits (a small commit graph; list from a sha), branches and git refs, git
  commits;
- pull requests (get, list, create, update) with `head`/`base` shas and fork heads;
- compare `base...head` with `merge_base_commit`;
- issues (create, list by label/state, edit, close), labels, issue comments (create, list with
  `Link`-header pagination, edit, delete); a comment body over 65,536 chars -> 422;
- check runs (create, update, get, list by ref, annotations); more than 50 annotations in one
  request, or a summary / text over 65,535 characters or 65,535 UTF-8 bytes -> 422 (GitHub's
  "exceeds a maximum bytesize of 65535"); updates append annotations like GitHub does;
- commit statuses and the combined status;
- authentication: tokens with a login, a kind (`user` or `app`; an app token such as
  `GITHUB_TOKEN` gets 403 on `GET /user`) and write permissions per area (read-only tokens get
  403 "Resource not accessible by integration" on writes, like a fork PR's token);
- injectable faults (any status/body/headers for N matching requests), with helpers for the
  secondary rate limit (403 + `retry-after`);
- a record of every request for assertions.

Start it with the `github_server` pytest fixture (import it into a test module) or with
`GitHubServer()` as a context manager. Tests set up state through the `GitHubServer` helpers
(`add_repo`, `commit`, `open_pull`, `add_token`) and read it back the same way.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

COMMENT_MAX = 65_536
SUMMARY_MAX = 65_535
"""Check-run `output.summary` / `output.text`, in characters *and* in UTF-8 bytes."""
ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024
ANNOTATION_TITLE_MAX = 255
ANNOTATIONS_PER_REQUEST = 50
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100

WRITE_AREAS = ("contents", "issues", "pull_requests", "checks", "statuses")
"""Permission areas a token can be granted write access to (GitHub's `permissions:` names)."""

SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiError(Exception):
    """An error reply: raised by handlers, turned into GitHub's JSON error body."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "message": self.message,
            "documentation_url": "https://docs.github.com/rest",
            "status": str(self.status),
        }
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def _validation(resource: str, field_name: str, message: str) -> ApiError:
    return ApiError(
        422,
        "Validation Failed",
        errors=[{"resource": resource, "code": "custom", "field": field_name, "message": message}],
    )


@dataclass
class Token:
    token: str
    login: str
    kind: str = "app"  # "app" (GITHUB_TOKEN, installation) or "user" (PAT)
    write: frozenset[str] = frozenset(WRITE_AREAS)
    user_id: int = 0


@dataclass
class Fault:
    """Reply `status`/`body`/`headers` to the next `times` requests matching method and path."""

    method: str
    path: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int

    def matches(self, method: str, path: str) -> bool:
        return self.times > 0 and self.method in (method, "*") and bool(self.path.search(path))


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    token: str | None
    status: int = 0
    response: Any = None
    fault: bool = False
    """The reply was an injected fault (a test's choice, not the server's model of GitHub)."""


@dataclass
class Commit:
    sha: str
    parents: list[str]
    message: str = ""
    date: str = field(default_factory=_now)


@dataclass
class Repo:
    full_name: str
    id: int
    default_branch: str = "main"
    fork_of: str | None = None
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    # Issues and pull requests share one numbering, like on GitHub.
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    annotations: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    statuses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def owner(self) -> str:
        return self.full_name.split("/")[0]

    @property
    def name(self) -> str:
        return self.full_name.split("/")[1]


Handler = Callable[["_Ctx"], Any]


@dataclass
class _Ctx:
    """One request as a handler sees it."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    token: Token | None
    match: re.Match[str]
    server: GitHubServer

    def arg(self, name: str) -> str:
        return urllib.parse.unquote(self.match.group(name))

    @property
    def repo(self) -> Repo:
        return self.server.repo(f"{self.arg('owner')}/{self.arg('repo')}")

    def need_write(self, area: str) -> None:
        if self.token is None:
            raise ApiError(401, "Requires authentication")
        if area not in self.token.write:
            raise ApiError(403, "Resource not accessible by integration")


class GitHubServer:
    """The server and its state; thread-safe (one lock around every request)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._ids = itertools.count(1001)
        self._shas = itertools.count(1)
        self._clock = datetime.now(UTC).replace(microsecond=0)
        self.repos: dict[str, Repo] = {}
        self.tokens: dict[str, Token] = {}
        self.users: dict[str, dict[str, Any]] = {}
        self.faults: list[Fault] = []
        self.requests: list[RecordedRequest] = []
        self.allow_anonymous_reads = True
        self.validate_against_spec = True
        """On a clean exit every exchange is checked against GitHub's description."""
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._add_routes()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> GitHubServer:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body, headers = server.handle(
                    self.command, self.path, raw, self.headers.get("Authorization")
                )
                payload = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> GitHubServer:
        return self.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.stop()
        if exc_type is None and self.validate_against_spec:
            self.assert_matches_spec()

    def spec_problems(self) -> list[str]:
        """Every recorded exchange checked against GitHub's REST description (the vendored
        subset of `@octokit/openapi`, tests/support/github_openapi.py); injected faults are
        the test's own replies and are skipped, as are requests that failed authentication."""
        from tests.support.github_openapi import vendored_validator

        validator = vendored_validator()
        seen: set[str] = set()
        out: list[str] = []
        with self._lock:
            records = list(self.requests)
        for record in records:
            if record.fault or record.status == 401:
                continue
            for problem in validator.problems(
                record.method, record.path, record.body, record.status, record.response
            ):
                if problem not in seen:
                    seen.add(problem)
                    out.append(problem)
        return out

    def assert_matches_spec(self) -> None:
        problems = self.spec_problems()
        if problems:
            raise AssertionError(
                "the local GitHub server drifted from GitHub's REST description "
                f"({len(problems)} problem(s)):\n  " + "\n  ".join(problems)
            )

    # ----------------------------------------------------------------- setup helpers
    def next_id(self) -> int:
        return next(self._ids)

    def _tick(self) -> str:
        """Check-run times: a clock that moves one second per reading, so runs created in
        the same second still have distinct, ordered `started_at` / `completed_at`."""
        self._clock = max(
            self._clock + timedelta(seconds=1), datetime.now(UTC).replace(microsecond=0)
        )
        return self._clock.strftime("%Y-%m-%dT%H:%M:%SZ")

    def new_sha(self) -> str:
        return f"{next(self._shas):040x}"

    def add_user(self, login: str, kind: str = "User") -> dict[str, Any]:
        if login not in self.users:
            uid = self.next_id()
            self.users[login] = {
                "login": login,
                "id": uid,
                "node_id": f"U_{uid}",
                "type": kind,
                "site_admin": False,
                "url": f"{self.url}/users/{urllib.parse.quote(login)}",
                "html_url": f"https://github.com/{login}",
                "avatar_url": f"https://avatars.example/{uid}",
            }
        return self.users[login]

    def add_token(
        self,
        token: str,
        login: str = "github-actions[bot]",
        *,
        kind: str = "app",
        write: frozenset[str] | set[str] | tuple[str, ...] = WRITE_AREAS,
    ) -> Token:
        """Register a token; `write=()` makes it read-only (like a fork PR's GITHUB_TOKEN)."""
        user = self.add_user(login, "Bot" if kind == "app" else "User")
        tok = Token(token, login, kind, frozenset(write), user["id"])
        self.tokens[token] = tok
        return tok

    def add_repo(self, full_name: str, *, default_branch: str = "main") -> Repo:
        """A repository whose default branch holds one root commit."""
        with self._lock:
            self.add_user(full_name.split("/")[0])
            repo = Repo(full_name, self.next_id(), default_branch)
            self.repos[full_name] = repo
            root = self.new_sha()
            repo.commits[root] = Commit(root, [], "initial commit")
            repo.branches[default_branch] = root
            return repo

    def fork(self, source: str, full_name: str) -> Repo:
        """A fork sharing the source's commits and branches."""
        with self._lock:
            src = self.repo(source)
            repo = self.add_repo(full_name, default_branch=src.default_branch)
            repo.fork_of = source
            repo.commits = dict(src.commits)
            repo.branches = dict(src.branches)
            return repo

    def repo(self, full_name: str) -> Repo:
        try:
            return self.repos[full_name]
        except KeyError:
            raise ApiError(404, "Not Found") from None

    def commit(
        self,
        full_name: str,
        branch: str,
        message: str = "change",
        *,
        parents: list[str] | None = None,
        sha: str | None = None,
    ) -> str:
        """Add a commit on `branch` (created from the default branch if new); returns its sha.

        `sha` gives the commit a real git sha, so a test's local git checkout and the server
        agree on commits (e.g. the merge-base).
        """
        with self._lock:
            repo = self.repo(full_name)
            if parents is None:
                tip = repo.branches.get(branch) or repo.branches[repo.default_branch]
                parents = [tip]
            sha = sha or self.new_sha()
            repo.commits[sha] = Commit(sha, parents, message)
            repo.branches[branch] = sha
            for other in self.repos.values():  # forks and parents see each other's commits
                if other is not repo and (
                    other.fork_of == repo.full_name or repo.fork_of == other.full_name
                ):
                    other.commits.setdefault(sha, repo.commits[sha])
            return sha

    def open_pull(
        self,
        full_name: str,
        head: str,
        base: str | None = None,
        *,
        head_repo: str | None = None,
        title: str = "A change",
        author: str = "contributor",
    ) -> dict[str, Any]:
        """Open a PR from `head` (a branch of `head_repo`, default the same repo) into `base`."""
        with self._lock:
            repo = self.repo(full_name)
            user = self.add_user(author)
            return self._create_pull(
                repo, title, "", head, base or repo.default_branch, head_repo, user
            )

    def pull_event(
        self, full_name: str, number: int, action: str = "synchronize"
    ) -> dict[str, Any]:
        """The `pull_request` event payload GitHub writes to GITHUB_EVENT_PATH."""
        with self._lock:
            repo = self.repo(full_name)
            return {
                "action": action,
                "number": number,
                "pull_request": self._pull_json(repo, repo.pulls[number]),
                "repository": self._repo_json(repo),
                "sender": repo.issues[number]["user"],
            }

    @staticmethod
    def fork_workflow_run_event(full_name: str, head_sha: str, fork: str) -> dict[str, Any]:
        """The `workflow_run` payload of a fork PR's finished `pull_request` run (the one a
        poster job gets): the head lives in `fork`, the run lists no pull request."""
        return {
            "action": "completed",
            "workflow_run": {
                "head_sha": head_sha,
                "head_branch": "patch",
                "head_repository": {"full_name": fork},
                "pull_requests": [],
                "event": "pull_request",
            },
            "repository": {"full_name": full_name},
        }

    def push_event(self, full_name: str, branch: str) -> dict[str, Any]:
        with self._lock:
            repo = self.repo(full_name)
            sha = repo.branches[branch]
            return {
                "ref": f"refs/heads/{branch}",
                "before": repo.commits[sha].parents[0] if repo.commits[sha].parents else "0" * 40,
                "after": sha,
                "repository": self._repo_json(repo),
                "head_commit": {"id": sha, "message": repo.commits[sha].message},
            }

    # ----------------------------------------------------------------- faults and records
    def fail(
        self,
        method: str,
        path: str,
        status: int,
        message: str = "error",
        *,
        headers: dict[str, str] | None = None,
        errors: list[dict[str, Any]] | None = None,
        times: int = 1,
    ) -> Fault:
        """Reply `status` to the next `times` requests whose path matches the regex `path`."""
        body = ApiError(status, message, errors=errors).body()
        fault = Fault(method.upper(), re.compile(path), status, body, headers or {}, times)
        with self._lock:
            self.faults.append(fault)
        return fault

    def secondary_rate_limit(
        self, method: str, path: str, *, retry_after: int = 1, times: int = 1
    ) -> Fault:
        """GitHub's secondary rate limit reply: 403 with a `retry-after` header."""
        return self.fail(
            method,
            path,
            403,
            SECONDARY_RATE_LIMIT_MESSAGE,
            headers={"retry-after": str(retry_after)},
            times=times,
        )

    def calls(self, method: str, path: str = "") -> list[RecordedRequest]:
        """Recorded requests with this method whose path matches the regex `path`."""
        pattern = re.compile(path)
        with self._lock:
            return [
                r for r in self.requests if r.method == method.upper() and pattern.search(r.path)
            ]

    def writes(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.method != "GET"]

    # ----------------------------------------------------------------- dispatch
    def handle(
        self, method: str, raw_path: str, raw_body: bytes, authorization: str | None
    ) -> tuple[int, Any, dict[str, str]]:
        parsed = urllib.parse.urlsplit(raw_path)
        path = parsed.path
        if path.startswith("/api/v3/"):  # GitHub Enterprise-style prefix
            path = path[len("/api/v3") :]
        query = dict(urllib.parse.parse_qsl(parsed.query))
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        token_text = None
        if authorization:
            parts = authorization.split(None, 1)
            token_text = parts[1] if len(parts) == 2 else parts[0]
        record = RecordedRequest(method, path, query, body, token_text)
        with self._lock:
            self.requests.append(record)
            record.fault = any(f.matches(method, path) for f in self.faults)
            status, reply, headers = self._dispatch(method, path, query, body, token_text)
            if 200 <= status < 300 and not record.fault:
                reply = self._as_documented(method, path, status, reply)
            record.status, record.response = status, reply
            return status, reply, headers

    @staticmethod
    def _as_documented(method: str, path: str, status: int, reply: Any) -> Any:
        """The reply with the required fields of GitHub's description that the server does
        not model filled with type-correct placeholders (see `ExchangeValidator.complete`)."""
        import copy

        from tests.support.github_openapi import vendored_validator

        return vendored_validator().complete(method, path, status, copy.deepcopy(reply))

    def _dispatch(
        self, method: str, path: str, query: dict[str, str], body: Any, token_text: str | None
    ) -> tuple[int, Any, dict[str, str]]:
        headers = {"X-GitHub-Request-Id": f"REQ-{len(self.requests)}"}
        for fault in self.faults:
            if fault.matches(method, path):
                fault.times -= 1
                return fault.status, fault.body, {**headers, **fault.headers}
        token: Token | None = None
        if token_text is not None:
            token = self.tokens.get(token_text)
            if token is None:
                return 401, ApiError(401, "Bad credentials").body(), headers
        elif not self.allow_anonymous_reads or method != "GET":
            return 401, ApiError(401, "Requires authentication").body(), headers
        for route_method, pattern, handler in self._routes:
            if route_method != method:
                continue
            match = pattern.fullmatch(path)
            if match is None:
                continue
            ctx = _Ctx(method, path, query, body, token, match, self)
            try:
                result = handler(ctx)
            except ApiError as err:
                return err.status, err.body(), {**headers, **err.headers}
            if isinstance(result, _Reply):
                return result.status, result.body, {**headers, **result.headers}
            status = 201 if method == "POST" else 200
            return status, result, headers
        return 404, ApiError(404, "Not Found").body(), headers

    def _route(self, method: str, pattern: str, handler: Handler) -> None:
        regex = pattern.replace("{owner}", r"(?P<owner>[^/]+)").replace(
            "{repo}", r"(?P<repo>[^/]+)"
        )
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", regex)
        regex = regex.replace("{rest}", r"(?P<rest>.+)")
        self._routes.append((method, re.compile(regex), handler))

    def _add_routes(self) -> None:
        r = "/repos/{owner}/{repo}"
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/user", self._get_user),
            ("GET", "/users/{login}", self._get_named_user),
            ("GET", r, lambda c: self._repo_json(c.repo)),
            ("GET", r + "/commits", self._list_commits),
            ("GET", r + "/commits/{ref}/check-runs", self._list_check_runs),
            ("GET", r + "/commits/{ref}/statuses", self._list_statuses),
            ("GET", r + "/commits/{ref}/status", self._combined_status),
            ("GET", r + "/commits/{ref}", self._get_commit),
            ("GET", r + "/branches", self._list_branches),
            ("GET", r + "/branches/{branch}", self._get_branch),
            ("GET", r + "/git/ref/(?P<ref>.+)", self._get_ref),
            ("GET", r + "/git/matching-refs/(?P<ref>.*)", self._matching_refs),
            ("POST", r + "/git/refs", self._create_ref),
            ("PATCH", r + "/git/refs/(?P<ref>.+)", self._update_ref),
            ("DELETE", r + "/git/refs/(?P<ref>.+)", self._delete_ref),
            ("POST", r + "/git/blobs", self._create_blob),
            ("POST", r + "/git/trees", self._create_tree),
            ("POST", r + "/git/commits", self._create_git_commit),
            ("GET", r + "/compare/(?P<base>.+?)\\.\\.\\.(?P<head>.+)", self._compare),
            ("GET", r + "/pulls", self._list_pulls),
            ("POST", r + "/pulls", self._post_pull),
            ("GET", r + "/pulls/{number}", self._get_pull),
            ("PATCH", r + "/pulls/{number}", self._patch_pull),
            ("GET", r + "/issues", self._list_issues),
            ("POST", r + "/issues", self._create_issue),
            ("GET", r + "/issues/comments/{id}", self._get_comment),
            ("PATCH", r + "/issues/comments/{id}", self._edit_comment),
            ("DELETE", r + "/issues/comments/{id}", self._delete_comment),
            ("GET", r + "/issues/{number}", self._get_issue),
            ("PATCH", r + "/issues/{number}", self._edit_issue),
            ("GET", r + "/issues/{number}/comments", self._list_comments),
            ("POST", r + "/issues/{number}/comments", self._create_comment),
            ("GET", r + "/issues/{number}/labels", self._issue_labels),
            ("POST", r + "/issues/{number}/labels", self._add_labels),
            ("GET", r + "/labels", self._list_labels),
            ("POST", r + "/labels", self._create_label),
            ("GET", r + "/labels/{name}", self._get_label),
            ("POST", r + "/check-runs", self._create_check_run),
            ("GET", r + "/check-runs/{id}", self._get_check_run),
            ("PATCH", r + "/check-runs/{id}", self._update_check_run),
            ("GET", r + "/check-runs/{id}/annotations", self._list_annotations),
            ("POST", r + "/statuses/{sha}", self._create_status),
            ("GET", r + "/statuses/{ref}", self._list_statuses),
        ]
        for method, pattern, handler in routes:
            self._route(method, pattern, handler)

    # ----------------------------------------------------------------- JSON shapes
    def _repo_json(self, repo: Repo) -> dict[str, Any]:
        url = f"{self.url}/repos/{repo.full_name}"
        data: dict[str, Any] = {
            "id": repo.id,
            "node_id": f"R_{repo.id}",
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": self.add_user(repo.owner),
            "private": False,
            "fork": repo.fork_of is not None,
            "default_branch": repo.default_branch,
            "url": url,
            "html_url": f"https://github.com/{repo.full_name}",
            "description": "",
            "visibility": "public",
        }
        return data

    def _commit_json(self, repo: Repo, sha: str) -> dict[str, Any]:
        commit = repo.commits[sha]
        url = f"{self.url}/repos/{repo.full_name}/commits/{sha}"
        person = {"name": "Dev", "email": "dev@example.com", "date": commit.date}
        return {
            "sha": sha,
            "node_id": f"C_{sha[-8:]}",
            "url": url,
            "html_url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "commit": {
                "message": commit.message,
                "author": person,
                "committer": person,
                "tree": {
                    "sha": "f" * 40,
                    "url": f"{self.url}/repos/{repo.full_name}/git/trees/{'f' * 40}",
                },
                "url": f"{self.url}/repos/{repo.full_name}/git/commits/{sha}",
            },
            "author": None,
            "committer": None,
            "parents": [
                {"sha": p, "url": f"{self.url}/repos/{repo.full_name}/commits/{p}"}
                for p in commit.parents
            ],
        }

    def _pull_json(self, repo: Repo, pull: dict[str, Any]) -> dict[str, Any]:
        def side(which: str) -> dict[str, Any]:
            ref_repo = self.repos[pull[f"{which}_repo"]]
            branch = pull[f"{which}_ref"]
            sha = ref_repo.branches.get(branch, pull.get(f"{which}_sha_frozen", ""))
            return {
                "label": f"{ref_repo.owner}:{branch}",
                "ref": branch,
                "sha": sha,
                "user": self.add_user(ref_repo.owner),
                "repo": self._repo_json(ref_repo),
            }

        number = pull["number"]
        url = f"{self.url}/repos/{repo.full_name}/pulls/{number}"
        issue = repo.issues[number]
        return {
            "id": pull["id"],
            "node_id": f"PR_{pull['id']}",
            "number": number,
            "state": issue["state"],
            "title": issue["title"],
            "body": issue["body"],
            "user": issue["user"],
            "labels": issue["labels"],
            "draft": False,
            "merged": False,
            "locked": False,
            "created_at": issue["created_at"],
            "updated_at": issue["updated_at"],
            "closed_at": issue["closed_at"],
            "url": url,
            "html_url": f"https://github.com/{repo.full_name}/pull/{number}",
            "issue_url": f"{self.url}/repos/{repo.full_name}/issues/{number}",
            "comments_url": f"{self.url}/repos/{repo.full_name}/issues/{number}/comments",
            "head": side("head"),
            "base": side("base"),
        }

    def _issue_json(self, repo: Repo, issue: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in issue.items() if not k.startswith("_")}
        if issue["number"] in repo.pulls:
            data["pull_request"] = {
                "url": f"{self.url}/repos/{repo.full_name}/pulls/{issue['number']}",
                "html_url": f"https://github.com/{repo.full_name}/pull/{issue['number']}",
            }
        data["comments"] = sum(1 for c in repo.comments.values() if c["_number"] == issue["number"])
        return data

    # ----------------------------------------------------------------- pagination
    def _page(self, ctx: _Ctx, items: list[Any], *, key: str | None = None) -> _Reply:
        per_page = max(1, min(int(ctx.query.get("per_page", DEFAULT_PER_PAGE)), MAX_PER_PAGE))
        page = max(1, int(ctx.query.get("page", 1)))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []

        def link(n: int, rel: str) -> str:
            q = {**ctx.query, "per_page": str(per_page), "page": str(n)}
            return f'<{self.url}{ctx.path}?{urllib.parse.urlencode(q)}>; rel="{rel}"'

        if page > 1:
            links.append(link(1, "first"))
            links.append(link(page - 1, "prev"))
        if page < last:
            links.append(link(page + 1, "next"))
            links.append(link(last, "last"))
        headers = {"Link": ", ".join(links)} if links else {}
        body: Any = {"total_count": len(items), key: chunk} if key else chunk
        return _Reply(200, body, headers)

    # ----------------------------------------------------------------- users
    def _get_user(self, ctx: _Ctx) -> Any:
        if ctx.token is None:
            raise ApiError(401, "Requires authentication")
        if ctx.token.kind == "app":
            raise ApiError(403, "Resource not accessible by integration")
        return self.users[ctx.token.login]

    def _get_named_user(self, ctx: _Ctx) -> Any:
        login = ctx.arg("login")
        if login not in self.users:
            raise ApiError(404, "Not Found")
        return self.users[login]

    # ----------------------------------------------------------------- commits, refs
    def _resolve(self, repo: Repo, ref: str) -> str:
        ref = urllib.parse.unquote(ref)
        for prefix in ("refs/heads/", "heads/"):
            if ref.startswith(prefix):
                ref = ref[len(prefix) :]
        if ref in repo.branches:
            return repo.branches[ref]
        if ref in repo.commits:
            return ref
        matches = [sha for sha in repo.commits if sha.startswith(ref)] if len(ref) >= 7 else []
        if len(matches) == 1:
            return matches[0]
        raise ApiError(422, f"No commit found for SHA: {ref}")

    def _get_commit(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        return self._commit_json(repo, self._resolve(repo, ctx.arg("ref")))

    def _list_commits(self, ctx: _Ctx) -> Any:
        """`sha` (a branch or commit, default the default branch) and its ancestors."""
        repo = ctx.repo
        start = self._resolve(repo, ctx.query.get("sha") or repo.default_branch)
        return self._page(
            ctx, [self._commit_json(repo, sha) for sha in self._ancestors(repo, start)]
        )

    def _branch_json(self, repo: Repo, name: str) -> dict[str, Any]:
        return {
            "name": name,
            "commit": self._commit_json(repo, repo.branches[name]),
            "protected": False,
        }

    def _list_branches(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        return self._page(ctx, [self._branch_json(repo, b) for b in sorted(repo.branches)])

    def _get_branch(self, ctx: _Ctx) -> Any:
        repo, name = ctx.repo, ctx.arg("branch")
        if name not in repo.branches:
            raise ApiError(404, "Branch not found")
        return self._branch_json(repo, name)

    def _ref_json(self, repo: Repo, branch: str) -> dict[str, Any]:
        sha = repo.branches[branch]
        return {
            "ref": f"refs/heads/{branch}",
            "node_id": f"REF_{branch}",
            "url": f"{self.url}/repos/{repo.full_name}/git/refs/heads/{branch}",
            "object": {
                "sha": sha,
                "type": "commit",
                "url": f"{self.url}/repos/{repo.full_name}/git/commits/{sha}",
            },
        }

    def _branch_of(self, ref: str) -> str:
        ref = urllib.parse.unquote(ref)
        for prefix in ("refs/heads/", "heads/"):
            if ref.startswith(prefix):
                return ref[len(prefix) :]
        raise ApiError(422, f"Reference is not a branch: {ref}")

    def _get_ref(self, ctx: _Ctx) -> Any:
        repo, branch = ctx.repo, self._branch_of(ctx.arg("ref"))
        if branch not in repo.branches:
            raise ApiError(404, "Not Found")
        return self._ref_json(repo, branch)

    def _matching_refs(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        prefix = ctx.arg("ref")
        return [
            self._ref_json(repo, b)
            for b in sorted(repo.branches)
            if f"heads/{b}".startswith(prefix) or f"refs/heads/{b}".startswith(prefix)
        ]

    def _create_ref(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        repo, body = ctx.repo, ctx.body or {}
        branch = self._branch_of(str(body.get("ref", "")))
        if branch in repo.branches:
            raise ApiError(422, "Reference already exists")
        repo.branches[branch] = self._resolve(repo, str(body.get("sha", "")))
        return self._ref_json(repo, branch)

    def _update_ref(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        repo, body = ctx.repo, ctx.body or {}
        branch = self._branch_of(ctx.arg("ref"))
        if branch not in repo.branches:
            raise ApiError(422, "Reference does not exist")
        sha = self._resolve(repo, str(body.get("sha", "")))
        if not body.get("force") and repo.branches[branch] not in self._ancestors(repo, sha):
            raise ApiError(422, "Update is not a fast forward")
        repo.branches[branch] = sha
        return self._ref_json(repo, branch)

    def _delete_ref(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        repo = ctx.repo
        branch = self._branch_of(ctx.arg("ref"))
        if repo.branches.pop(branch, None) is None:
            raise ApiError(422, "Reference does not exist")
        return _Reply(204, None, {})

    def _create_blob(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        sha = self.new_sha()
        return {"sha": sha, "url": f"{self.url}/repos/{ctx.repo.full_name}/git/blobs/{sha}"}

    def _create_tree(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        sha = self.new_sha()
        return {
            "sha": sha,
            "url": f"{self.url}/repos/{ctx.repo.full_name}/git/trees/{sha}",
            "tree": (ctx.body or {}).get("tree", []),
            "truncated": False,
        }

    def _create_git_commit(self, ctx: _Ctx) -> Any:
        ctx.need_write("contents")
        repo, body = ctx.repo, ctx.body or {}
        parents = [self._resolve(repo, p) for p in body.get("parents", [])]
        sha = self.new_sha()
        repo.commits[sha] = Commit(sha, parents, str(body.get("message", "")))
        data = self._commit_json(repo, sha)["commit"]
        return {
            **data,
            "sha": sha,
            "url": f"{self.url}/repos/{repo.full_name}/git/commits/{sha}",
            "parents": [{"sha": p} for p in parents],
        }

    def _ancestors(self, repo: Repo, sha: str) -> list[str]:
        """`sha` and its ancestors in breadth-first order (nearest first)."""
        seen: list[str] = []
        queue = [sha]
        while queue:
            current = queue.pop(0)
            if current in seen or current not in repo.commits:
                continue
            seen.append(current)
            queue.extend(repo.commits[current].parents)
        return seen

    def _compare(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        base_ref, head_ref = ctx.arg("base"), ctx.arg("head")
        if ":" in head_ref:  # "owner:branch" of a fork
            owner, branch = head_ref.split(":", 1)
            forks = [r for r in self.repos.values() if r.owner == owner and r.name == repo.name]
            head_ref = forks[0].branches[branch] if forks else branch
        base, head = self._resolve(repo, base_ref), self._resolve(repo, head_ref)
        base_anc = self._ancestors(repo, base)
        head_anc = self._ancestors(repo, head)
        merge_base = next((sha for sha in head_anc if sha in base_anc), None)
        if merge_base is None:
            raise ApiError(404, f"No common ancestor between {base_ref} and {head_ref}.")
        ahead = [sha for sha in head_anc if sha not in self._ancestors(repo, merge_base)]
        behind = [sha for sha in base_anc if sha not in self._ancestors(repo, merge_base)]
        status = (
            "identical"
            if base == head
            else "ahead"
            if not behind
            else "behind"
            if not ahead
            else "diverged"
        )
        return {
            "url": f"{self.url}{ctx.path}",
            "html_url": f"https://github.com/{repo.full_name}/compare/{base_ref}...{head_ref}",
            "status": status,
            "ahead_by": len(ahead),
            "behind_by": len(behind),
            "total_commits": len(ahead),
            "base_commit": self._commit_json(repo, base),
            "merge_base_commit": self._commit_json(repo, merge_base),
            "commits": [self._commit_json(repo, sha) for sha in reversed(ahead)],
            "files": [],
        }

    # ----------------------------------------------------------------- pulls
    def _create_pull(
        self,
        repo: Repo,
        title: str,
        body: str,
        head: str,
        base: str,
        head_repo: str | None,
        user: dict[str, Any],
    ) -> dict[str, Any]:
        if ":" in head and head_repo is None:
            owner, head = head.split(":", 1)
            if owner != repo.owner:
                head_repo = f"{owner}/{repo.name}"
        head_repo = head_repo or repo.full_name
        source = self.repo(head_repo)
        if head not in source.branches:
            raise _validation("PullRequest", "head", "invalid")
        if base not in repo.branches:
            raise _validation("PullRequest", "base", "invalid")
        for pull in repo.pulls.values():
            if (
                pull["head_repo"] == head_repo
                and pull["head_ref"] == head
                and pull["base_ref"] == base
                and repo.issues[pull["number"]]["state"] == "open"
            ):
                raise _validation(
                    "PullRequest",
                    "",
                    f"A pull request already exists for {source.owner}:{head}.",
                )
        issue = self._new_issue(repo, title, body, user, [])
        pull = {
            "number": issue["number"],
            "id": self.next_id(),
            "head_repo": head_repo,
            "head_ref": head,
            "base_repo": repo.full_name,
            "base_ref": base,
        }
        repo.pulls[issue["number"]] = pull
        return self._pull_json(repo, pull)

    def _author(self, ctx: _Ctx) -> dict[str, Any]:
        assert ctx.token is not None
        return self.users[ctx.token.login]

    def _post_pull(self, ctx: _Ctx) -> Any:
        ctx.need_write("pull_requests")
        repo, body = ctx.repo, ctx.body or {}
        if not body.get("title") or not body.get("head") or not body.get("base"):
            raise _validation("PullRequest", "title", "missing_field")
        return self._create_pull(
            repo,
            body["title"],
            body.get("body") or "",
            body["head"],
            body["base"],
            None,
            self._author(ctx),
        )

    def _get_pull(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        number = int(ctx.arg("number"))
        if number not in repo.pulls:
            raise ApiError(404, "Not Found")
        return self._pull_json(repo, repo.pulls[number])

    def _list_pulls(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        state = ctx.query.get("state", "open")
        out = []
        for number in sorted(repo.pulls, reverse=True):
            data = self._pull_json(repo, repo.pulls[number])
            if state != "all" and data["state"] != state:
                continue
            if "head" in ctx.query and data["head"]["label"] != ctx.query["head"]:
                continue
            if "base" in ctx.query and data["base"]["ref"] != ctx.query["base"]:
                continue
            out.append(data)
        return self._page(ctx, out)

    def _patch_pull(self, ctx: _Ctx) -> Any:
        ctx.need_write("pull_requests")
        repo, body = ctx.repo, ctx.body or {}
        number = int(ctx.arg("number"))
        if number not in repo.pulls:
            raise ApiError(404, "Not Found")
        issue = repo.issues[number]
        for key in ("title", "body", "state"):
            if key in body:
                issue[key] = body[key]
        if "base" in body:
            repo.pulls[number]["base_ref"] = body["base"]
        issue["updated_at"] = _now()
        issue["closed_at"] = _now() if issue["state"] == "closed" else None
        return self._pull_json(repo, repo.pulls[number])

    # ----------------------------------------------------------------- issues and labels
    def _label(self, repo: Repo, name: str) -> dict[str, Any]:
        if name not in repo.labels:
            lid = self.next_id()
            repo.labels[name] = {
                "id": lid,
                "node_id": f"L_{lid}",
                "name": name,
                "color": "ededed",
                "description": None,
                "default": False,
                "url": f"{self.url}/repos/{repo.full_name}/labels/{urllib.parse.quote(name)}",
            }
        return repo.labels[name]

    def _new_issue(
        self, repo: Repo, title: str, body: str, user: dict[str, Any], labels: list[str]
    ) -> dict[str, Any]:
        number = max([0, *repo.issues]) + 1
        url = f"{self.url}/repos/{repo.full_name}/issues/{number}"
        issue = {
            "id": self.next_id(),
            "node_id": f"I_{number}",
            "number": number,
            "title": title,
            "body": body,
            "user": user,
            "state": "open",
            "state_reason": None,
            "labels": [self._label(repo, name) for name in labels],
            "assignees": [],
            "locked": False,
            "created_at": _now(),
            "updated_at": _now(),
            "closed_at": None,
            "url": url,
            "html_url": f"https://github.com/{repo.full_name}/issues/{number}",
            "comments_url": f"{url}/comments",
            "repository_url": f"{self.url}/repos/{repo.full_name}",
        }
        repo.issues[number] = issue
        return issue

    def _issue(self, ctx: _Ctx) -> dict[str, Any]:
        number = int(ctx.arg("number"))
        repo = ctx.repo
        if number not in repo.issues:
            raise ApiError(404, "Not Found")
        return repo.issues[number]

    def _create_issue(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        repo, body = ctx.repo, ctx.body or {}
        if not body.get("title"):
            raise _validation("Issue", "title", "missing_field")
        text = body.get("body") or ""
        if len(text) > COMMENT_MAX:
            raise _validation(
                "Issue", "body", f"body is too long (maximum is {COMMENT_MAX} characters)"
            )
        labels = [lb if isinstance(lb, str) else lb["name"] for lb in body.get("labels", [])]
        issue = self._new_issue(repo, body["title"], text, self._author(ctx), labels)
        return self._issue_json(repo, issue)

    def _list_issues(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        state = ctx.query.get("state", "open")
        wanted = [lb for lb in ctx.query.get("labels", "").split(",") if lb]
        creator = ctx.query.get("creator")
        out = []
        for number in sorted(repo.issues, reverse=True):
            issue = repo.issues[number]
            names = {lb["name"] for lb in issue["labels"]}
            if state != "all" and issue["state"] != state:
                continue
            if any(lb not in names for lb in wanted):
                continue
            if creator and issue["user"]["login"] != creator:
                continue
            out.append(self._issue_json(repo, issue))
        return self._page(ctx, out)

    def _get_issue(self, ctx: _Ctx) -> Any:
        return self._issue_json(ctx.repo, self._issue(ctx))

    def _edit_issue(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        repo, body = ctx.repo, ctx.body or {}
        issue = self._issue(ctx)
        if "body" in body and len(body["body"] or "") > COMMENT_MAX:
            raise _validation(
                "Issue", "body", f"body is too long (maximum is {COMMENT_MAX} characters)"
            )
        for key in ("title", "body", "state", "state_reason"):
            if key in body:
                issue[key] = body[key]
        if "labels" in body:
            issue["labels"] = [
                self._label(repo, lb if isinstance(lb, str) else lb["name"])
                for lb in body["labels"]
            ]
        issue["closed_at"] = _now() if issue["state"] == "closed" else None
        issue["updated_at"] = _now()
        return self._issue_json(repo, issue)

    def _issue_labels(self, ctx: _Ctx) -> Any:
        return self._page(ctx, self._issue(ctx)["labels"])

    def _add_labels(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        repo, body = ctx.repo, ctx.body
        issue = self._issue(ctx)
        names = body.get("labels", []) if isinstance(body, dict) else (body or [])
        have = {lb["name"] for lb in issue["labels"]}
        for name in names:
            if name not in have:
                issue["labels"].append(self._label(repo, name))
        return issue["labels"]

    def _list_labels(self, ctx: _Ctx) -> Any:
        return self._page(ctx, list(ctx.repo.labels.values()))

    def _create_label(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        repo, body = ctx.repo, ctx.body or {}
        name = str(body.get("name", ""))
        if name in repo.labels:
            raise _validation("Label", "name", "already_exists")
        label = self._label(repo, name)
        label.update({k: body[k] for k in ("color", "description") if k in body})
        return label

    def _get_label(self, ctx: _Ctx) -> Any:
        name = ctx.arg("name")
        if name not in ctx.repo.labels:
            raise ApiError(404, "Not Found")
        return ctx.repo.labels[name]

    # ----------------------------------------------------------------- issue comments
    def _comment_json(self, comment: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in comment.items() if not k.startswith("_")}

    def _check_comment_body(self, body: Any) -> str:
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text:
            raise _validation("IssueComment", "body", "missing_field")
        if len(text) > COMMENT_MAX:
            raise _validation(
                "IssueComment", "body", f"body is too long (maximum is {COMMENT_MAX} characters)"
            )
        return text

    def _create_comment(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        repo = ctx.repo
        issue = self._issue(ctx)
        text = self._check_comment_body(ctx.body)
        cid = self.next_id()
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{self.url}/repos/{repo.full_name}/issues/comments/{cid}",
            "html_url": f"{issue['html_url']}#issuecomment-{cid}",
            "issue_url": issue["url"],
            "body": text,
            "user": self._author(ctx),
            "created_at": _now(),
            "updated_at": _now(),
            "author_association": "NONE",
            "_number": issue["number"],
        }
        repo.comments[cid] = comment
        return self._comment_json(comment)

    def _list_comments(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        number = self._issue(ctx)["number"]
        items = [self._comment_json(c) for c in repo.comments.values() if c["_number"] == number]
        return self._page(ctx, items)

    def _comment(self, ctx: _Ctx) -> dict[str, Any]:
        cid = int(ctx.arg("id"))
        if cid not in ctx.repo.comments:
            raise ApiError(404, "Not Found")
        return ctx.repo.comments[cid]

    def _get_comment(self, ctx: _Ctx) -> Any:
        return self._comment_json(self._comment(ctx))

    def _edit_comment(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        comment = self._comment(ctx)
        assert ctx.token is not None
        if comment["user"]["login"] != ctx.token.login:
            raise ApiError(403, "Resource not accessible by integration")
        comment["body"] = self._check_comment_body(ctx.body)
        comment["updated_at"] = _now()
        return self._comment_json(comment)

    def _delete_comment(self, ctx: _Ctx) -> Any:
        ctx.need_write("issues")
        comment = self._comment(ctx)
        del ctx.repo.comments[comment["id"]]
        return _Reply(204, None, {})

    # ----------------------------------------------------------------- check runs
    def _check_output(self, output: Any, run_id: int) -> list[dict[str, Any]]:
        """Validate a check-run `output`; returns its annotations."""
        if output is None:
            return []
        if not isinstance(output, dict) or not output.get("title") or "summary" not in output:
            raise _validation("CheckRun", "output", "title and summary are required")
        for key in ("summary", "text"):
            self._check_output_size(key, output.get(key) or "")
        annotations = list(output.get("annotations") or [])
        if len(annotations) > ANNOTATIONS_PER_REQUEST:
            raise ApiError(
                422,
                f"Invalid request.\n\nOnly {ANNOTATIONS_PER_REQUEST} annotations are allowed "
                "per request; use the update endpoint to add more.",
            )
        out = []
        for ann in annotations:
            missing = [
                k
                for k in ("path", "start_line", "end_line", "annotation_level", "message")
                if k not in ann
            ]
            if missing or ann["annotation_level"] not in ("notice", "warning", "failure"):
                raise ApiError(422, f"Invalid request.\n\nInvalid annotation: missing {missing}")
            if len(str(ann["message"]).encode("utf-8")) > ANNOTATION_MESSAGE_MAX_BYTES:
                raise _validation(
                    "CheckRun",
                    "message",
                    f"message exceeds a maximum bytesize of {ANNOTATION_MESSAGE_MAX_BYTES}",
                )
            if len(str(ann.get("title") or "")) > ANNOTATION_TITLE_MAX:
                raise _validation(
                    "CheckRun", "title", f"title is too long (maximum is {ANNOTATION_TITLE_MAX})"
                )
            out.append({**ann, "blob_href": f"https://github.com/blob/{run_id}/{ann['path']}"})
        return out

    @staticmethod
    def _check_output_size(key: str, text: str) -> None:
        """GitHub's two checks on `output.summary` / `output.text`: characters first
        ("Only 65535 characters are allowed"), then UTF-8 bytes ("exceeds a maximum
        bytesize"), which is what a multi-byte (CJK, emoji) text runs into."""
        if len(text) > SUMMARY_MAX:
            raise ApiError(
                422,
                f"Invalid request.\n\nOnly {SUMMARY_MAX} characters are allowed; "
                f"{len(text)} were supplied.",
            )
        if len(text.encode("utf-8")) > SUMMARY_MAX:
            raise _validation("CheckRun", key, f"{key} exceeds a maximum bytesize of {SUMMARY_MAX}")

    def _check_run_json(self, repo: Repo, run: dict[str, Any]) -> dict[str, Any]:
        data = {k: v for k, v in run.items() if not k.startswith("_")}
        output = dict(run["_output"])
        output["annotations_count"] = len(repo.annotations.get(run["id"], []))
        output["annotations_url"] = f"{run['url']}/annotations"
        data["output"] = output
        return data

    def _apply_check_fields(self, run: dict[str, Any], body: dict[str, Any]) -> None:
        for key in (
            "name",
            "details_url",
            "external_id",
            "started_at",
            "status",
            "conclusion",
            "completed_at",
        ):
            if key in body:
                run[key] = body[key]
        if body.get("conclusion"):
            run["status"] = "completed"
            run["completed_at"] = run.get("completed_at") or self._tick()
        if run["status"] == "completed" and not run.get("conclusion"):
            raise _validation("CheckRun", "conclusion", "conclusion is required when completed")
        if "output" in body and body["output"] is not None:
            out = body["output"]
            run["_output"] = {
                "title": out.get("title"),
                "summary": out.get("summary"),
                "text": out.get("text"),
            }

    def _create_check_run(self, ctx: _Ctx) -> Any:
        ctx.need_write("checks")
        repo, body = ctx.repo, ctx.body or {}
        if not body.get("name") or not body.get("head_sha"):
            raise _validation("CheckRun", "name", "missing_field")
        head_sha = self._resolve(repo, str(body["head_sha"]))
        rid = self.next_id()
        annotations = self._check_output(body.get("output"), rid)
        assert ctx.token is not None
        run: dict[str, Any] = {
            "id": rid,
            "node_id": f"CR_{rid}",
            "head_sha": head_sha,
            "external_id": "",
            "url": f"{self.url}/repos/{repo.full_name}/check-runs/{rid}",
            "html_url": f"https://github.com/{repo.full_name}/runs/{rid}",
            "details_url": None,
            "status": "queued",
            "conclusion": None,
            "started_at": self._tick(),
            "completed_at": None,
            "name": body["name"],
            "app": {
                "id": 15368,
                "slug": "github-actions",
                "name": "GitHub Actions",
                "owner": self.add_user("github"),
            },
            "pull_requests": [],
            "check_suite": {"id": rid},
            "_output": {"title": None, "summary": None, "text": None},
            "_creator": ctx.token.login,
        }
        self._apply_check_fields(run, body)
        repo.check_runs[rid] = run
        repo.annotations[rid] = annotations
        return self._check_run_json(repo, run)

    def _run(self, ctx: _Ctx) -> dict[str, Any]:
        rid = int(ctx.arg("id"))
        if rid not in ctx.repo.check_runs:
            raise ApiError(404, "Not Found")
        return ctx.repo.check_runs[rid]

    def _get_check_run(self, ctx: _Ctx) -> Any:
        return self._check_run_json(ctx.repo, self._run(ctx))

    def _update_check_run(self, ctx: _Ctx) -> Any:
        ctx.need_write("checks")
        repo, body = ctx.repo, ctx.body or {}
        run = self._run(ctx)
        annotations = self._check_output(body.get("output"), run["id"])
        self._apply_check_fields(run, body)
        repo.annotations[run["id"]].extend(annotations)
        return self._check_run_json(repo, run)

    def _list_check_runs(self, ctx: _Ctx) -> Any:
        """`GET /commits/{ref}/check-runs` as GitHub answers it.

        `filter=latest` (the default) keeps only the most recent run per check name, by
        `completed_at` (incomplete runs count as newest), so a workflow job's own check run
        of the same name hides an earlier one; `filter=all` returns every run. Runs come in
        creation order, not completion order: callers must not take the first as the newest.
        """
        repo = ctx.repo
        sha = self._resolve(repo, ctx.arg("ref"))
        name = ctx.query.get("check_name")
        status = ctx.query.get("status")
        which = ctx.query.get("filter", "latest")
        if which not in ("latest", "all"):
            raise _validation("CheckRun", "filter", f"filter must be latest or all, not {which}")
        on_sha = [r for r in repo.check_runs.values() if r["head_sha"] == sha]
        if which == "latest":
            newest: dict[str, dict[str, Any]] = {}
            for run in on_sha:
                rank = (run["completed_at"] or "9999", run["id"])
                held = newest.get(run["name"])
                if held is None or rank > (held["completed_at"] or "9999", held["id"]):
                    newest[run["name"]] = run
            on_sha = list(newest.values())
        runs = [
            self._check_run_json(repo, run)
            for run in sorted(on_sha, key=lambda r: r["id"])
            if (name is None or run["name"] == name) and (status is None or run["status"] == status)
        ]
        return self._page(ctx, runs, key="check_runs")

    def job_check_run(self, full_name: str, sha: str, job: str) -> dict[str, Any]:
        """The check run GitHub Actions creates for a workflow job named `job`: created when
        the job starts, completed (no output) when it ends, i.e. after every step's runs."""
        with self._lock:
            repo = self.repo(full_name)
            rid = self.next_id()
            run: dict[str, Any] = {
                "id": rid,
                "node_id": f"CR_{rid}",
                "head_sha": self._resolve(repo, sha),
                "external_id": "",
                "url": f"{self.url}/repos/{repo.full_name}/check-runs/{rid}",
                "html_url": f"https://github.com/{repo.full_name}/actions/runs/1/job/{rid}",
                "details_url": f"https://github.com/{repo.full_name}/actions/runs/1/job/{rid}",
                "status": "completed",
                "conclusion": "success",
                "started_at": self._tick(),
                "completed_at": self._tick(),
                "name": job,
                "app": {
                    "id": 15368,
                    "slug": "github-actions",
                    "name": "GitHub Actions",
                    "owner": self.add_user("github"),
                },
                "pull_requests": [],
                "check_suite": {"id": rid},
                "_output": {"title": None, "summary": None, "text": None},
                "_creator": "github-actions[bot]",
            }
            repo.check_runs[rid] = run
            repo.annotations[rid] = []
            return self._check_run_json(repo, run)

    def _list_annotations(self, ctx: _Ctx) -> Any:
        run = self._run(ctx)
        return self._page(ctx, ctx.repo.annotations[run["id"]])

    # ----------------------------------------------------------------- statuses
    def _create_status(self, ctx: _Ctx) -> Any:
        ctx.need_write("statuses")
        repo, body = ctx.repo, ctx.body or {}
        sha = self._resolve(repo, ctx.arg("sha"))
        if body.get("state") not in ("error", "failure", "pending", "success"):
            raise _validation("Status", "state", "invalid")
        if len(body.get("description") or "") > 140:
            raise _validation(
                "Status", "description", "description is too long (maximum is 140 characters)"
            )
        sid = self.next_id()
        status = {
            "id": sid,
            "node_id": f"S_{sid}",
            "url": f"{self.url}/repos/{repo.full_name}/statuses/{sha}",
            "state": body["state"],
            "description": body.get("description"),
            "target_url": body.get("target_url"),
            "context": body.get("context") or "default",
            "created_at": _now(),
            "updated_at": _now(),
            "creator": self._author(ctx),
        }
        repo.statuses.setdefault(sha, []).insert(0, status)
        return status

    def _list_statuses(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        return self._page(ctx, repo.statuses.get(self._resolve(repo, ctx.arg("ref")), []))

    def latest_statuses(self, full_name: str, sha: str) -> dict[str, dict[str, Any]]:
        """The newest status per context on a commit (what branch protection sees)."""
        latest: dict[str, dict[str, Any]] = {}
        for status in self.repo(full_name).statuses.get(sha, []):
            latest.setdefault(status["context"], status)
        return latest

    def _combined_status(self, ctx: _Ctx) -> Any:
        repo = ctx.repo
        sha = self._resolve(repo, ctx.arg("ref"))
        latest = list(self.latest_statuses(repo.full_name, sha).values())
        states = {s["state"] for s in latest}
        state = (
            "failure"
            if states & {"failure", "error"}
            else "pending"
            if "pending" in states or not states
            else "success"
        )
        return {
            "state": state,
            "sha": sha,
            "total_count": len(latest),
            "statuses": latest,
            "repository": self._repo_json(repo),
            "commit_url": f"{self.url}/repos/{repo.full_name}/commits/{sha}",
            "url": f"{self.url}/repos/{repo.full_name}/commits/{sha}/status",
        }

    # ----------------------------------------------------------------- read-back helpers
    def comments_on(self, full_name: str, number: int) -> list[dict[str, Any]]:
        with self._lock:
            return [
                self._comment_json(c)
                for c in self.repo(full_name).comments.values()
                if c["_number"] == number
            ]

    def check_runs_on(self, full_name: str, sha: str) -> list[dict[str, Any]]:
        with self._lock:
            repo = self.repo(full_name)
            return [
                self._check_run_json(repo, r)
                for r in repo.check_runs.values()
                if r["head_sha"] == sha
            ]

    def annotations_of(self, full_name: str, run_id: int) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.repo(full_name).annotations.get(run_id, []))


@dataclass
class _Reply:
    status: int
    body: Any
    headers: dict[str, str]


@contextlib.contextmanager
def running_github_server() -> Iterator[GitHubServer]:
    """A running server with repo `octo/app` and tokens `write-token` / `read-token`.

    `write-token` is an app token (like GITHUB_TOKEN with write permissions) for the bot
    `github-actions[bot]`; `read-token` is the read-only token a fork PR gets.
    """
    with GitHubServer() as server:
        server.add_repo("octo/app")
        server.add_token("write-token")
        server.add_token("read-token", write=())
        yield server


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    """`running_github_server()` as a fixture (for a conftest `pytest_plugins` entry).

    A test module can instead define its own two-line fixture around
    `running_github_server()`, which keeps linters happy about fixture imports.
    """
    with running_github_server() as server:
        yield server
