"""Tools served over HTTP for executable checks (`execute.function: http://127.0.0.1:PORT/x`).

A pull request writes the case files, so the URL is untrusted: on a self-hosted runner it
could name an internal service and reflect its answer into the PR comment. The rules:

- Only loopback endpoints (servers the workflow itself starts) by default. Any other host
  must be allowed explicitly by the workflow: the `exec-allow-hosts` Action input or
  `bfcl-action run --exec-allow-host HOST[:PORT]` (never `.bfcl.yml`, which a fork PR edits).
- The host is resolved once, every address checked, and the connection goes to the checked
  address (no DNS rebinding between check and connect).
- Redirects are not followed (a 3xx is the call's failure).
- The body is read up to `MAX_BODY_BYTES`; what reaches a report is a short escaped excerpt
  (`EXCERPT_CHARS`), never the whole answer.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import ssl
import urllib.parse
from collections.abc import Sequence
from typing import Any

from bfcl_action.safety.escape import log_line

MAX_BODY_BYTES = 1024 * 1024
EXCERPT_CHARS = 200


class EndpointRefused(Exception):
    """The URL is not one the workflow allowed."""


def _allowed(host: str, port: int, allow: Sequence[str]) -> bool:
    for entry in allow:
        name, _, want = (
            entry.strip().lower().rpartition(":")
            if ":" in entry
            else (
                entry.strip().lower(),
                "",
                "",
            )
        )
        name = name or entry.strip().lower()
        if name == host.lower() and (not want or want == str(port)):
            return True
    return False


def resolve_endpoint(
    url: str, allow: Sequence[str] = (), *, public: bool = False, loopback: bool | None = None
) -> tuple[str, str, int, str]:
    """(scheme, checked IP address, port, host) of an allowed URL; `EndpointRefused` else.

    A host the workflow allowed always passes. Otherwise, by default (a tool endpoint the case
    file names) only loopback. `public=True` (a URL a model or a search result chose, e.g. the
    web-search fetcher): only globally routable addresses; loopback, private, link-local and
    reserved ones are refused, so a model cannot make the runner read its own network or cloud
    metadata. `public=True, loopback=True` (the search endpoint `.bfcl.yml` names, like a model
    endpoint): global or loopback, never the private network."""
    loopback = not public if loopback is None else loopback
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(f"not an http(s) URL: {log_line(url, 80)}")
    host = parts.hostname
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise EndpointRefused(f"bad port in {log_line(url, 80)}") from None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise EndpointRefused(f"cannot resolve {log_line(host, 80)}: {exc.strerror}") from None
    addresses = [str(info[4][0]) for info in infos]
    explicitly = _allowed(host, port, allow)
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if explicitly or (loopback and ip.is_loopback):
            continue
        if public and not ip.is_global:
            raise EndpointRefused(
                f"{log_line(host, 80)} is not a public address; allow it with the "
                "`exec-allow-hosts` input (or `--exec-allow-host`)"
            )
        if not public:
            raise EndpointRefused(
                f"{log_line(host, 80)} is not a loopback address; allow it with the "
                "`exec-allow-hosts` input (or `--exec-allow-host`)"
            )
    return parts.scheme, addresses[0], port, host


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, address: str, host: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def pinned_connection(
    scheme: str, address: str, host: str, port: int, timeout: float
) -> http.client.HTTPConnection:
    """A connection to the address `resolve_endpoint` checked (TLS still verifies `host`)."""
    if scheme == "https":
        return _PinnedHTTPS(address, host, port, timeout)
    return http.client.HTTPConnection(address, port, timeout=timeout)


def request_target(url: str) -> tuple[str, str]:
    """The `Host` header and the request target (path and query) of `url`, for a
    connection `pinned_connection` opened to the checked address."""
    parts = urllib.parse.urlsplit(url)
    return parts.netloc, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def http_invoke(
    url: str, arguments: dict[str, Any], *, timeout: float, allow: Sequence[str] = ()
) -> dict[str, Any]:
    """POST the arguments as a JSON object; the JSON (or text) answer is the result.

    An HTTP error status is the call's exception; a refused endpoint, no answer within
    `timeout` or an unreachable server is an error of that call."""
    try:
        scheme, address, port, host = resolve_endpoint(url, allow)
    except EndpointRefused as exc:
        return {"ok": False, "error": f"endpoint refused: {exc}"}
    netloc, path = request_target(url)
    connection = pinned_connection(scheme, address, host, port, timeout)
    body = json.dumps(arguments).encode("utf-8")
    try:
        connection.request(
            "POST",
            path,
            body=body,
            headers={"Content-Type": "application/json", "Host": netloc},
        )
        response = connection.getresponse()
        raw = response.read(MAX_BODY_BYTES + 1)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        return {"ok": False, "error": f"{log_line(host, 80)}: {type(exc).__name__}"}
    finally:
        connection.close()
    if 300 <= status < 400:
        return {"ok": True, "raised": f"HTTP {status}: redirects are not followed"}
    if status >= 400:
        detail = excerpt(raw.decode("utf-8", "replace"))
        return {"ok": True, "raised": f"HTTP {status}: {detail}".strip()}
    if len(raw) > MAX_BODY_BYTES:
        return {"ok": True, "raised": f"answer larger than {MAX_BODY_BYTES} bytes"}
    text = raw.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = text
    return {"ok": True, "value": value, "repr": excerpt(repr(value))}


def excerpt(text: str) -> str:
    return log_line(text, EXCERPT_CHARS)
