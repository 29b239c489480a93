"""All settings of a `bfcl-action github` run, parsed once from the environment.

action.yml passes every input as `INPUT_<NAME>` (kebab-case name upper-cased, `-` -> `_`)
through `env:`, never by interpolation into a script; the runner sets the `GITHUB_*`
variables. `ActionContext.from_env()` is the only place that reads them, so everything
downstream receives one typed object and tests can build it directly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from bfcl_action.core.errors import ConfigError
from bfcl_action.safety import credentials, redact

DEFAULT_CHECK_NAME = "bfcl-action"
"""Not `bfcl`: GitHub Actions gives every job a check run named after the job, and the quick
start names its job `bfcl`. Two runs of one name on a commit make the PR's checks list
ambiguous and let `filter=latest` answer with the job's run (no digest) instead of ours."""


SCHEDULED_EVENTS = ("schedule", "workflow_dispatch")
"""Events that track a model over time (no PR): fresh answers, history, alert issue."""


class CommentMode(StrEnum):
    """`comment` input: one comment updated in place, only when something regressed, or none."""

    STICKY = "sticky"
    ON_REGRESSION = "on-regression"
    OFF = "off"


class Inputs(BaseModel):
    """The action's inputs (action.yml); field names are the input names with `_` for `-`."""

    model_config = ConfigDict(frozen=True)

    config: str = ".bfcl.yml"
    model: str = ""
    models: str = ""
    base_url: str = ""
    mode: str = ""
    api_key: SecretStr = SecretStr("")
    categories: str = ""
    suites: str = ""
    sample: str = ""
    shard: str = ""
    concurrency: str = ""
    env_python: str = ""
    tool_timeout: str = ""
    exec_allow_hosts: str = ""
    batch: bool = False
    batch_wait: str = ""
    thresholds: str = ""
    fail_on_regression: bool = True
    comment: CommentMode = CommentMode.STICKY
    check_name: str = DEFAULT_CHECK_NAME
    statuses: bool = False
    github_token: SecretStr = SecretStr("")
    baseline: str = "auto"
    baseline_file: str = ""
    report: str = ""
    output_dir: str = "bfcl-results"
    comment_author: str = ""
    comment_artifact: str = ""
    working_directory: str = "."
    # Scheduled runs (docs/scheduled.md): alert issue, score history, metrics files.
    alert: bool = True
    history: str = "artifact"
    history_branch: str = "bfcl-data"
    metrics_json: str = ""
    metrics_openmetrics: str = ""
    metrics_emf: str = ""
    # The response cache across workflow runs (docs/action.md, "Paying only for what changed").
    response_cache: bool = True
    response_cache_max_age: str = ""


INPUT_NAMES: tuple[str, ...] = tuple(name.replace("_", "-") for name in Inputs.model_fields)
"""Every input name as action.yml spells it (kebab-case)."""

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", ""}


def input_env_name(name: str) -> str:
    """`fail-on-regression` -> `INPUT_FAIL_ON_REGRESSION` (the env var action.yml sets)."""
    return "INPUT_" + name.replace("-", "_").replace(" ", "_").upper()


def _read_input(env: Mapping[str, str], name: str) -> str | None:
    # JavaScript/Docker actions keep the hyphen (`INPUT_GITHUB-TOKEN`); accept both spellings.
    for key in (input_env_name(name), "INPUT_" + name.replace(" ", "_").upper()):
        if key in env:
            return env[key].strip()
    return None


def _parse_bool(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"expected true or false, found {value!r}", field=name, file="action input")


def parse_inputs(env: Mapping[str, str]) -> Inputs:
    """Inputs from `INPUT_*` variables; unset or empty ones keep their defaults."""
    values: dict[str, Any] = {}
    for field_name, info in Inputs.model_fields.items():
        name = field_name.replace("_", "-")
        raw = _read_input(env, name)
        if raw is None or (raw == "" and info.annotation is not bool):
            continue
        if info.annotation is bool:
            values[field_name] = _parse_bool(name, raw) if raw else info.default
        elif field_name == "comment":
            try:
                values[field_name] = CommentMode(raw.lower())
            except ValueError:
                choices = ", ".join(m.value for m in CommentMode)
                raise ConfigError(
                    f"expected one of {choices}, found {raw!r}", field=name, file="action input"
                ) from None
        else:
            values[field_name] = raw
    inputs = Inputs(**values)
    redact.register(inputs.api_key.get_secret_value())
    redact.register(inputs.github_token.get_secret_value())
    return inputs


class PullRequestInfo(BaseModel):
    """What the event says about the PR being checked."""

    number: int
    head_sha: str
    head_ref: str
    head_repo: str
    base_sha: str
    base_ref: str
    base_repo: str

    @property
    def is_fork(self) -> bool:
        return self.head_repo != self.base_repo


class ActionContext(BaseModel):
    """Inputs plus the workflow run's environment."""

    inputs: Inputs = Field(default_factory=Inputs)
    event_name: str = ""
    event: dict[str, Any] = Field(default_factory=dict)
    repository: str = ""
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    sha: str = ""
    ref: str = ""
    run_id: str = ""
    run_attempt: str = ""
    workflow: str = ""
    output_path: Path | None = None
    step_summary_path: Path | None = None
    workspace: Path = Path(".")
    github_throttle: float | None = None
    """Seconds between API writes; None keeps PyGithub's default (tests set 0)."""
    retry_wait_cap: float = 120.0
    """Longest `retry-after` the client will sleep on a rate limit before giving up."""
    response_cache_dir: Path | None = None
    """Where action.yml restores and saves the response cache (`BFCL_RESPONSE_CACHE_DIR`);
    None: the user cache directory of this machine."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ActionContext:
        env = credentials.environment() if env is None else env
        event: dict[str, Any] = {}
        event_path = env.get("GITHUB_EVENT_PATH", "")
        if event_path:
            try:
                event = json.loads(Path(event_path).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigError(f"cannot read the event payload: {exc}", file=event_path) from exc
        throttle = env.get("BFCL_GITHUB_THROTTLE", "")
        return cls(
            inputs=parse_inputs(env),
            event_name=env.get("GITHUB_EVENT_NAME", ""),
            event=event,
            repository=env.get("GITHUB_REPOSITORY", ""),
            api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
            server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
            sha=env.get("GITHUB_SHA", ""),
            ref=env.get("GITHUB_REF", ""),
            run_id=env.get("GITHUB_RUN_ID", ""),
            run_attempt=env.get("GITHUB_RUN_ATTEMPT", ""),
            workflow=env.get("GITHUB_WORKFLOW", ""),
            output_path=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            step_summary_path=(
                Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None
            ),
            workspace=Path(env.get("GITHUB_WORKSPACE") or "."),
            github_throttle=float(throttle) if throttle else None,
            retry_wait_cap=float(env.get("BFCL_GITHUB_RETRY_WAIT_CAP") or 120),
            response_cache_dir=(
                Path(env["BFCL_RESPONSE_CACHE_DIR"]) if env.get("BFCL_RESPONSE_CACHE_DIR") else None
            ),
        )

    # ------------------------------------------------------------------ derived facts
    @property
    def pull_request(self) -> PullRequestInfo | None:
        """The PR of a `pull_request`/`pull_request_target` event (head sha, not GITHUB_SHA)."""
        pr = self.event.get("pull_request")
        if not isinstance(pr, dict):
            return None
        head, base = pr.get("head") or {}, pr.get("base") or {}
        return PullRequestInfo(
            number=int(pr.get("number") or self.event.get("number") or 0),
            head_sha=str(head.get("sha") or ""),
            head_ref=str(head.get("ref") or ""),
            head_repo=str(((head.get("repo") or {}).get("full_name")) or ""),
            base_sha=str(base.get("sha") or ""),
            base_ref=str(base.get("ref") or ""),
            base_repo=str(((base.get("repo") or {}).get("full_name")) or self.repository),
        )

    @property
    def head_sha(self) -> str:
        """The commit results belong to: the PR head for PRs, else GITHUB_SHA."""
        pr = self.pull_request
        if pr is not None and pr.head_sha:
            return pr.head_sha
        if self.event_name == "workflow_run":
            return str((self.event.get("workflow_run") or {}).get("head_sha") or self.sha)
        return self.sha

    @property
    def default_branch(self) -> str:
        return str((self.event.get("repository") or {}).get("default_branch") or "main")

    @property
    def scheduled(self) -> bool:
        """A run that tracks the model over time (scheduled or dispatched, no PR)."""
        return self.event_name in SCHEDULED_EVENTS and self.pull_request is None

    @property
    def has_api_key(self) -> bool:
        return bool(self.inputs.api_key.get_secret_value())

    @property
    def run_url(self) -> str:
        if not (self.repository and self.run_id):
            return ""
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"
