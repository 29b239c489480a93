"""GitHub's REST description (npm `@octokit/openapi`, pinned) and a validator of the local
GitHub server's exchanges against it.

The full description is a 29 MB npm tarball; the operations the local server serves, with
every component they reference, are vendored as a trimmed subset (317 KB of its 13 MB:
`tests/fixtures/github_openapi/api.github.com.subset.json`), so tests need no network. The
subset records the tarball's version and sha256; regenerate it with

    python -m tests.support.github_openapi --refresh

which downloads the pinned tarball from the npm registry over HTTPS (no `npm` needed),
checks its sha256 and rewrites the subset. `--check` re-derives the subset from the tarball
and fails when the vendored file differs (the CI `spec` check; it needs the registry).

`ExchangeValidator.problems` checks one recorded exchange: the operation exists, the request
body matches the operation's request schema, the status is one GitHub documents for it and
the JSON body matches that response's schema. The schemas are OpenAPI 3.0: `nullable`
becomes a `null` alternative and the rest is JSON Schema draft 4, which 3.0 follows.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import re
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
SUBSET = ROOT / "tests" / "fixtures" / "github_openapi" / "api.github.com.subset.json"
PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
TARBALL = f"https://registry.npmjs.org/{PACKAGE}/-/openapi-{VERSION}.tgz"
TARBALL_SHA256 = "71a18407dd5e8464f4e0525daf03deabbe65abd9287d6adc7b5d98f516cd0d0c"
MEMBER = "package/generated/api.github.com.json"

R = "/repos/{owner}/{repo}"
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("get", "/user"),
    ("get", "/users/{username}"),
    ("get", R),
    ("get", R + "/commits"),
    ("get", R + "/commits/{ref}"),
    ("get", R + "/commits/{ref}/check-runs"),
    ("get", R + "/commits/{ref}/statuses"),
    ("get", R + "/commits/{ref}/status"),
    ("get", R + "/branches"),
    ("get", R + "/branches/{branch}"),
    ("get", R + "/git/ref/{ref}"),
    ("get", R + "/git/matching-refs/{ref}"),
    ("post", R + "/git/refs"),
    ("patch", R + "/git/refs/{ref}"),
    ("delete", R + "/git/refs/{ref}"),
    ("post", R + "/git/blobs"),
    ("post", R + "/git/trees"),
    ("post", R + "/git/commits"),
    ("get", R + "/compare/{basehead}"),
    ("get", R + "/pulls"),
    ("post", R + "/pulls"),
    ("get", R + "/pulls/{pull_number}"),
    ("patch", R + "/pulls/{pull_number}"),
    ("get", R + "/issues"),
    ("post", R + "/issues"),
    ("get", R + "/issues/comments/{comment_id}"),
    ("patch", R + "/issues/comments/{comment_id}"),
    ("delete", R + "/issues/comments/{comment_id}"),
    ("get", R + "/issues/{issue_number}"),
    ("patch", R + "/issues/{issue_number}"),
    ("get", R + "/issues/{issue_number}/comments"),
    ("post", R + "/issues/{issue_number}/comments"),
    ("get", R + "/issues/{issue_number}/labels"),
    ("post", R + "/issues/{issue_number}/labels"),
    ("get", R + "/labels"),
    ("post", R + "/labels"),
    ("get", R + "/labels/{name}"),
    ("post", R + "/check-runs"),
    ("get", R + "/check-runs/{check_run_id}"),
    ("patch", R + "/check-runs/{check_run_id}"),
    ("get", R + "/check-runs/{check_run_id}/annotations"),
    ("post", R + "/statuses/{sha}"),
)
"""The operations the local server serves (method, path template as GitHub names it)."""
ALIASES = {
    ("GET", R + "/statuses/{ref}"): R + "/commits/{ref}/statuses",
}
"""Routes GitHub serves but no longer documents, checked as the documented twin.
PyGithub's `Commit.get_statuses()` calls `GET /repos/{owner}/{repo}/statuses/{sha}`."""
ANY_OPERATION_ERRORS = frozenset({401, 403, 404, 409, 422, 429, 500, 502, 503})
"""Error statuses GitHub may answer on any operation (permissions, rate limits, validation,
outages) though the description lists them on some operations only; their body must still
be GitHub's error shape (`message`)."""
_GREEDY = {"ref", "basehead"}
"""Path parameters that may hold slashes (`heads/main`, `main...feature`)."""


# ------------------------------------------------------------------------------ the subset
def fetch_tarball(dest: Path) -> Path:
    """The pinned tarball at `dest` (downloaded from the npm registry if absent), verified."""
    if not dest.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(TARBALL, timeout=300) as reply:
            dest.write_bytes(reply.read())
    digest = hashlib.sha256(dest.read_bytes()).hexdigest()
    if digest != TARBALL_SHA256:
        raise SystemExit(
            f"{dest}: sha256 {digest}, expected {TARBALL_SHA256} ({PACKAGE}@{VERSION})"
        )
    return dest


def read_description(tarball: Path) -> dict[str, Any]:
    with tarfile.open(tarball, "r:gz") as archive:
        member = archive.extractfile(MEMBER)
        if member is None:
            raise SystemExit(f"{tarball} has no {MEMBER}")
        data: dict[str, Any] = json.load(io.TextIOWrapper(member, encoding="utf-8"))
    return data


def build_subset(full: dict[str, Any]) -> dict[str, Any]:
    """The operations in `OPERATIONS` and the components they reference, nothing else."""
    paths: dict[str, dict[str, Any]] = {}
    for method, template in OPERATIONS:
        operation = full["paths"][template][method]
        paths.setdefault(template, {})[method] = operation
    components: dict[str, dict[str, Any]] = {}
    pending = [paths]
    while pending:
        node = pending.pop()
        for ref in _refs(node):
            _, section, name = ref.removeprefix("#/").split("/", 2)
            if section == "examples" or name in components.get(section, {}):
                continue
            target = full["components"][section][name]
            components.setdefault(section, {})[name] = target
            pending.append(target)
    for section in ("responses", "parameters", "schemas", "headers"):
        components.setdefault(section, {})
    for operation in (op for ops in paths.values() for op in ops.values()):
        _drop_examples(operation)
    for items in components.values():
        for item in items.values():
            _drop_examples(item)
    return {
        "openapi": full["openapi"],
        "info": {
            "title": full["info"]["title"],
            "version": full["info"]["version"],
            "x-subset-of": {"package": PACKAGE, "version": VERSION, "sha256": TARBALL_SHA256},
        },
        "paths": dict(sorted(paths.items())),
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and key not in ("examples",):
                found.append(value)
            elif key != "examples":
                found.extend(_refs(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_refs(item))
    return found


def _drop_examples(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("examples", None)
        node.pop("example", None)
        for value in node.values():
            _drop_examples(value)
    elif isinstance(node, list):
        for item in node:
            _drop_examples(item)


def write_subset(subset: dict[str, Any], path: Path = SUBSET) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(subset, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------------ validation
def _to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema draft 4: `nullable: true` admits `null`."""
    if isinstance(node, list):
        return [_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _to_json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True:
        if "$ref" in out:
            return {"anyOf": [{"$ref": out["$ref"]}, {"type": "null"}]}
        return {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    regex: re.Pattern[str]
    spec: dict[str, Any]


class ExchangeValidator:
    """Checks recorded exchanges against the vendored subset of GitHub's description."""

    def __init__(self, subset: dict[str, Any]) -> None:
        self.info = subset["info"]
        self.components = _to_json_schema(subset["components"])
        self.operations: list[Operation] = []
        for template, methods in subset["paths"].items():
            for method, spec in methods.items():
                self.operations.append(
                    Operation(method.upper(), template, _template_regex(template), spec)
                )
        by_template = {(op.method, op.template): op for op in self.operations}
        for (method, alias), documented in ALIASES.items():
            twin = by_template[(method, documented)]
            self.operations.append(Operation(method, alias, _template_regex(alias), twin.spec))
        self.operations.sort(key=lambda op: op.template.count("{"))
        self._validators: dict[int, jsonschema.Draft4Validator] = {}

    def operation(self, method: str, path: str) -> Operation | None:
        """The documented operation serving `method path`, the most literal match first."""
        for op in self.operations:
            if op.method == method and op.regex.fullmatch(path):
                return op
        return None

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            _, section, name = node["$ref"].removeprefix("#/").split("/", 2)
            node = self.components[section][name]
        return node

    def _validator(self, schema: dict[str, Any]) -> jsonschema.Draft4Validator:
        key = id(schema)
        if key not in self._validators:
            wrapped = {"allOf": [schema], "components": self.components}
            self._validators[key] = jsonschema.Draft4Validator(wrapped)
        return self._validators[key]

    def _errors(self, schema: dict[str, Any], instance: Any, what: str) -> list[str]:
        errors = sorted(
            self._validator(schema).iter_errors(instance), key=lambda e: list(e.absolute_path)
        )
        out = []
        for error in errors[:20]:
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            out.append(f"{what} at {where}: {_short(error)}")
        return out

    def problems(
        self, method: str, path: str, request: Any, status: int, response: Any
    ) -> list[str]:
        op = self.operation(method, path)
        if op is None:
            return [f"{method} {path}: no such operation in GitHub's REST description"]
        label = f"{method} {op.template} -> {status}"
        found: list[str] = []
        body = op.spec.get("requestBody")
        if body is not None and request is not None and 200 <= status < 300:
            schema = self._schema_of(_to_json_schema(self._resolve(body)))
            if schema is not None:  # the server accepted it: GitHub must accept it too
                found += self._errors(schema, request, f"{label}: request body GitHub rejects")
        responses = op.spec.get("responses", {})
        declared = responses.get(str(status)) or responses.get("default")
        if declared is None:
            if status in ANY_OPERATION_ERRORS:
                if not (isinstance(response, dict) and isinstance(response.get("message"), str)):
                    found.append(f"{label}: error reply without GitHub's `message`")
                return found
            return [*found, f"{label}: status {status} is not documented for this operation"]
        schema = self._schema_of(_to_json_schema(self._resolve(declared)))
        if schema is not None and response is not None:
            found += self._errors(schema, response, f"{label}: response body")
        return found

    def response_schema(self, method: str, path: str, status: int) -> dict[str, Any] | None:
        op = self.operation(method, path)
        if op is None:
            return None
        declared = op.spec.get("responses", {}).get(str(status))
        if declared is None:
            return None
        return self._schema_of(_to_json_schema(self._resolve(declared)))

    def complete(self, method: str, path: str, status: int, body: Any) -> Any:
        """`body` with every *required* property it lacks added as a type-correct
        placeholder (null where nullable). Properties the server sets are kept as they are,
        and still validated; only what bfcl-action never reads is filled in."""
        schema = self.response_schema(method, path, status)
        if schema is None or body is None:
            return body
        return self._fill(body, schema, 0)

    def _deref(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            _, section, name = schema["$ref"].removeprefix("#/").split("/", 2)
            schema = self.components[section][name]
        return schema

    def _fill(self, value: Any, schema: dict[str, Any], depth: int) -> Any:
        schema = self._deref(schema)
        if depth > 12:
            return value
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [self._deref(o) for o in schema[key]]
                if value is None:
                    return value
                for option in options:
                    if _kind_matches(option, value):
                        return self._fill(value, option, depth + 1)
                return value
        for part in schema.get("allOf", []):
            value = self._fill(value, part, depth + 1)
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for name in schema.get("required", []):
                if name not in value:
                    value[name] = self._placeholder(props.get(name, {}), depth + 1)
            for name, sub in props.items():
                if name in value and value[name] is not None:
                    value[name] = self._fill(value[name], sub, depth + 1)
        elif isinstance(value, list) and "items" in schema:
            value = [self._fill(item, schema["items"], depth + 1) for item in value]
        return value

    def _placeholder(self, schema: dict[str, Any], depth: int) -> Any:
        schema = self._deref(schema)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [self._deref(o) for o in schema[key]]
                if any(o.get("type") == "null" for o in options):
                    return None
                return self._placeholder(options[0], depth + 1)
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                self._fill(merged, part, depth + 1)
            return merged
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = kind[0]
        if kind == "string":
            return {"date-time": "2026-01-01T00:00:00Z", "uri": "https://github.com/"}.get(
                schema.get("format", ""), ""
            )
        if kind in ("integer", "number"):
            return 0
        if kind == "boolean":
            return False
        if kind == "array":
            return []
        if kind == "object" or "properties" in schema:
            return self._fill({}, schema, depth + 1)
        return None

    @staticmethod
    def _schema_of(declared: dict[str, Any]) -> dict[str, Any] | None:
        content = declared.get("content") or {}
        for kind in ("application/json", "application/scim+json"):
            if kind in content and "schema" in content[kind]:
                schema: dict[str, Any] = content[kind]["schema"]
                return schema
        return None


def _short(error: jsonschema.ValidationError) -> str:
    if error.validator in ("anyOf", "oneOf") and error.context:
        inner = jsonschema.exceptions.best_match(error.context)
        where = "/".join(str(p) for p in inner.relative_path)
        return f"{_short(inner)}{f' (at {where})' if where else ''}"
    if len(error.message) > 160:
        return f"violates {error.validator}: {str(error.validator_value)[:80]}"
    return str(error.message)


def _kind_matches(schema: dict[str, Any], value: Any) -> bool:
    kind = schema.get("type")
    if kind is None:
        return isinstance(value, dict) and ("properties" in schema or "allOf" in schema)
    python: dict[str, type | tuple[type, ...]] = {
        "object": dict,
        "array": list,
        "string": str,
        "boolean": bool,
        "integer": int,
        "number": (int, float),
        "null": type(None),
    }
    return isinstance(value, python.get(kind, object))


def _template_regex(template: str) -> re.Pattern[str]:
    def param(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"(?P<{name}>.+)" if name in _GREEDY else f"(?P<{name}>[^/]+)"

    return re.compile(
        re.sub(r"\{(\w+)\}", param, re.escape(template).replace(r"\{", "{").replace(r"\}", "}"))
    )


@cache
def vendored_validator() -> ExchangeValidator:
    subset: dict[str, Any] = json.loads(SUBSET.read_text(encoding="utf-8"))
    return ExchangeValidator(copy.deepcopy(subset))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--refresh", action="store_true", help="rewrite the vendored subset")
    parser.add_argument("--check", action="store_true", help="fail if the subset is stale")
    parser.add_argument(
        "--tarball", type=Path, default=ROOT / ".cache" / f"octokit-openapi-{VERSION}.tgz"
    )
    args = parser.parse_args(argv)
    subset = build_subset(read_description(fetch_tarball(args.tarball)))
    if args.check:
        vendored = json.loads(SUBSET.read_text(encoding="utf-8"))
        if vendored != json.loads(json.dumps(subset)):
            print(f"{SUBSET} is not the subset of {PACKAGE}@{VERSION}; run --refresh")
            return 1
        print(f"{SUBSET.name} is the subset of {PACKAGE}@{VERSION} ({len(OPERATIONS)} operations)")
        return 0
    write_subset(subset)
    print(f"wrote {SUBSET} ({SUBSET.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
