"""The files and batches endpoints of the local OpenAI-compatible server.

Behaves like OpenAI's Batch API where a client can tell: an upload is multipart/form-data
with `purpose` and `file`; a batch names an uploaded input file, one of OpenAI's batch
endpoints and the `24h` window (anything else is a 400 with OpenAI's wording); the input is
validated line by line (JSON, a unique `custom_id`, `method` POST, `url` equal to the batch's
endpoint, one model for the whole file) and a batch whose input does not validate ends
`failed` with `errors.data`, as OpenAI's does. A batch moves `validating` -> `in_progress`
-> a final status as it is polled; each line is answered by the chat server's own logic.

Scripting: `batches.plan.append(BatchPlan(...))` shapes the next created batch: how many
polls it stays in progress, its final status (`completed`, `failed`, `expired`,
`cancelled`), which lines fail (by a substring of the last user message) and, for an
expired batch, how many lines were answered before it expired.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

BATCH_ENDPOINTS = {
    "/v1/responses",
    "/v1/chat/completions",
    "/v1/embeddings",
    "/v1/completions",
    "/v1/moderations",
}
ChatAnswer = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
"""A chat request body -> (HTTP status, response body), the chat server's own answer."""


@dataclass
class BatchPlan:
    polls: int = 1
    """Retrieves answered `in_progress` before the batch reaches its final status."""
    outcome: str = "completed"
    fail: list[str] = field(default_factory=list)
    """Lines whose last user message contains one of these get a line error (500)."""
    answered_before_expiry: int = 0
    planted: list[dict[str, Any]] = field(default_factory=list)
    """Extra output lines (a provider answering requests the batch never held)."""
    errors: Any = None
    """When set, the `errors` field of a failed batch as sent (malformed ones included)."""


def _error(message: str, kind: str = "invalid_request_error", param: str | None = None) -> bytes:
    return json.dumps(
        {"error": {"message": message, "type": kind, "param": param, "code": None}}
    ).encode()


def _last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class BatchAPI:
    """State of uploaded files and batches; `respond` answers one HTTP request."""

    def __init__(self, chat: ChatAnswer) -> None:
        self.chat = chat
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.plan: list[BatchPlan] = []
        self.created: list[str] = []
        self.events: list[tuple[str, str]] = []
        """`("created", id)` and `("final", id)` in the order they happened."""
        self.answered_lines = 0
        self._plans: dict[str, BatchPlan] = {}
        self._polls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._n = 0

    def handles(self, path: str) -> bool:
        rest = path.split("?", 1)[0].split("/v1", 1)[-1]
        return rest.startswith("/files") or rest.startswith("/batches")

    def respond(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, bytes, str]:
        """(status, body, content type) for one request to /files or /batches."""
        parts = [p for p in path.split("?", 1)[0].split("/v1", 1)[-1].split("/") if p]
        with self._lock:
            if parts == ["files"] and method == "POST":
                return self._upload(headers, raw)
            if len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
                content = self.contents.get(parts[1])
                if content is None:
                    return 404, _error(f"No such File object: {parts[1]}", param="id"), "json"
                return 200, content, "application/octet-stream"
            if len(parts) == 2 and parts[0] == "files" and method == "GET":
                found = self.files.get(parts[1])
                if found is None:
                    return 404, _error(f"No such File object: {parts[1]}", param="id"), "json"
                return 200, json.dumps(found).encode(), "json"
            if parts == ["batches"] and method == "POST":
                return self._create(raw)
            if len(parts) == 2 and parts[0] == "batches" and method == "GET":
                return self._retrieve(parts[1])
        return 404, _error(f"Invalid URL ({method} {path})"), "json"

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n:06d}"

    def _upload(self, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, str]:
        ctype = headers.get("content-type", "")
        if not ctype.startswith("multipart/form-data"):
            return 400, _error("Uploads must be multipart/form-data."), "json"
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + ctype.encode("latin-1") + b"\r\n\r\n" + raw
        )
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = (part.get_filename(), payload)
        purpose = fields.get("purpose", (None, b""))[1].decode()
        if "file" not in fields:
            return 400, _error("Missing required parameter: 'file'.", param="file"), "json"
        if purpose not in {"batch", "assistants", "fine-tune", "vision", "user_data", "evals"}:
            return 400, _error(f"Invalid purpose: {purpose!r}.", param="purpose"), "json"
        filename, content = fields["file"]
        file_id = self._id("file-")
        self.files[file_id] = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename or "upload",
            "purpose": purpose,
            "status": "processed",
            "expires_at": None,
            "status_details": None,
        }
        self.contents[file_id] = content
        return 200, json.dumps(self.files[file_id]).encode(), "json"

    def _create(self, raw: bytes) -> tuple[int, bytes, str]:
        try:
            body = json.loads(raw)
        except ValueError:
            return 400, _error("We could not parse the JSON body of your request."), "json"
        input_id = body.get("input_file_id")
        endpoint = body.get("endpoint")
        if body.get("completion_window") != "24h":
            return (
                400,
                _error("completion_window must be '24h'.", param="completion_window"),
                ("json"),
            )
        if endpoint not in BATCH_ENDPOINTS:
            return 400, _error(f"Invalid endpoint: {endpoint!r}.", param="endpoint"), "json"
        found = self.files.get(str(input_id))
        if found is None:
            return 404, _error(f"No such File object: {input_id}", param="input_file_id"), ("json")
        if found["purpose"] != "batch":
            return 400, _error("The input file must have purpose 'batch'."), "json"
        batch_id = self._id("batch_")
        now = int(time.time())
        lines = self.contents[str(input_id)].decode().splitlines()
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": endpoint,
            "errors": None,
            "input_file_id": input_id,
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "in_progress_at": None,
            "expires_at": now + 86400,
            "finalizing_at": None,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        self._plans[batch_id] = self.plan.pop(0) if self.plan else BatchPlan()
        self._polls[batch_id] = 0
        self.created.append(batch_id)
        self.events.append(("created", batch_id))
        return 200, json.dumps(self.batches[batch_id]).encode(), "json"

    def _retrieve(self, batch_id: str) -> tuple[int, bytes, str]:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, _error(f"No batch found with id '{batch_id}'.", param="batch_id"), "json"
        if batch["status"] in {"validating", "in_progress"}:
            self._polls[batch_id] += 1
            plan = self._plans[batch_id]
            if self._polls[batch_id] > plan.polls:
                self._finish(batch, plan)
                self.events.append(("final", batch_id))
            else:
                batch["status"] = "in_progress"
                batch["in_progress_at"] = batch["in_progress_at"] or int(time.time())
        return 200, json.dumps(batch).encode(), "json"

    def _validate(self, lines: list[str], endpoint: str) -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        seen: set[str] = set()
        models: set[str] = set()
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line)
            except ValueError:
                errors.append({"code": "invalid_json_line", "line": number, "message": "not JSON"})
                continue
            custom_id = entry.get("custom_id") if isinstance(entry, dict) else None
            if not isinstance(custom_id, str) or not custom_id:
                errors.append({"code": "missing_custom_id", "line": number, "message": "no id"})
            elif custom_id in seen:
                errors.append(
                    {
                        "code": "duplicate_custom_id",
                        "line": number,
                        "message": "The custom_id for this request is a duplicate.",
                    }
                )
            else:
                seen.add(custom_id)
            if entry.get("method") != "POST":
                errors.append({"code": "invalid_method", "line": number, "message": "POST"})
            if entry.get("url") != endpoint:
                errors.append(
                    {
                        "code": "mismatched_endpoint",
                        "line": number,
                        "message": f"The url must be {endpoint}.",
                    }
                )
            body = entry.get("body")
            if isinstance(body, dict):
                models.add(str(body.get("model")))
        if len(models) > 1:
            errors.append(
                {
                    "code": "mismatched_model",
                    "line": None,
                    "message": "All requests in a batch must use the same model.",
                }
            )
        return errors

    def _finish(self, batch: dict[str, Any], plan: BatchPlan) -> None:
        now = int(time.time())
        lines = self.contents[batch["input_file_id"]].decode().splitlines()
        problems = self._validate(lines, batch["endpoint"])
        if problems or plan.outcome == "failed":
            batch["status"] = "failed"
            batch["failed_at"] = now
            batch["errors"] = {
                "object": "list",
                "data": problems
                or [{"code": "scripted_failure", "line": None, "message": "batch failed"}],
            }
            if plan.errors is not None:
                batch["errors"] = plan.errors
            return
        out: list[str] = []
        err: list[str] = []
        for index, line in enumerate(lines):
            entry = json.loads(line)
            body = entry["body"]
            request_id = self._id("batch_req_")
            stop = plan.outcome in {"expired", "cancelled"} and index >= plan.answered_before_expiry
            if stop:
                code = "batch_expired" if plan.outcome == "expired" else "batch_cancelled"
                err.append(
                    json.dumps(
                        {
                            "id": request_id,
                            "custom_id": entry["custom_id"],
                            "response": None,
                            "error": {
                                "code": code,
                                "message": f"This request was not run ({code}).",
                            },
                        }
                    )
                )
                continue
            if any(needle in _last_user(body) for needle in plan.fail):
                status, payload = 500, {"error": {"message": "scripted line failure"}}
            else:
                status, payload = self.chat(body)
            record = {
                "id": request_id,
                "custom_id": entry["custom_id"],
                "response": {"status_code": status, "request_id": request_id, "body": payload},
                "error": None,
            }
            (out if status == 200 else err).append(json.dumps(record))
            self.answered_lines += status == 200
        out.extend(json.dumps(line) for line in plan.planted)
        batch["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(err)}
        for name, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                file_id = self._id("file-")
                data = ("\n".join(rows) + "\n").encode()
                self.files[file_id] = {
                    "id": file_id,
                    "object": "file",
                    "bytes": len(data),
                    "created_at": now,
                    "filename": f"{batch['id']}_{name}.jsonl",
                    "purpose": "batch_output",
                    "status": "processed",
                }
                self.contents[file_id] = data
                batch[name] = file_id
        batch["status"] = plan.outcome
        batch[
            {"completed": "completed_at", "expired": "expired_at"}.get(plan.outcome, "cancelled_at")
        ] = now
