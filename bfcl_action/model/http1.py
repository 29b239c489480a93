"""Keep-alive HTTP/1.1 POSTs on asyncio's own streams, for the chat requests of a run.

A chat request is the plainest HTTP there is: one POST with a JSON body, one answer. httpx
(through httpcore, h11 and anyio) spent about 0.85 ms of CPU on each (measured beside a bare
asyncio client at 0.05 ms, issue 27), most of the client's work at 300 requests a second.
This pool writes the head and the body in one send and reads the answer with a small parser:
a status line, headers, then a body framed by `Content-Length`, chunked, or the end of the
connection; `gzip` and `deflate` are decoded. What it does not do (proxies named by the
environment, redirects) the caller leaves to httpx: `direct_route` says when this pool may
carry a request at all, and a redirect answer comes back as `Answer.redirect`.

Every failure to connect, write or read a well-formed answer raises a `ConnectionError`
named as httpx names it (`ConnectError`, `ReadError`, `WriteError`, `RemoteProtocolError`),
so a retry and the circuit breaker see what they saw before. A body past the cap raises
`BodyTooLarge` (that request fails). A connection is reused only after a complete answer
that did not ask to close it, and never after it sat idle `KEEPALIVE_S` (httpx's default);
a cancelled or failed request closes its connection.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Final

HEAD_LIMIT: Final = 100 * 1024
"""Largest status line plus headers read (httpcore's own cap)."""
KEEPALIVE_S: Final = 5.0
"""An idle connection older than this is closed, not reused (httpx's default expiry)."""
_CHUNK: Final = 64 * 1024


class ConnectError(ConnectionError):
    """The connection (TCP or TLS) could not be made."""


class WriteError(ConnectionError):
    """The request could not be sent."""


class ReadError(ConnectionError):
    """The connection failed while the answer was read."""


class RemoteProtocolError(ConnectionError):
    """The server closed early or sent something that is not an HTTP/1.1 answer."""


class BodyTooLarge(Exception):
    """The answer's body is larger than the caller's cap."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: list[tuple[str, str]]
    """In the order sent; names lower-cased."""
    content: bytes
    """The body, content-decoded."""

    def header(self, name: str) -> str | None:
        """The last value of header `name` (lower case), if sent."""
        for key, value in reversed(self.headers):
            if key == name:
                return value
        return None

    @property
    def redirect(self) -> bool:
        return 300 <= self.status < 400 and self.header("location") is not None


def direct_route(scheme: str) -> bool:
    """Whether a request to a `scheme` URL may go straight to its server: not when the
    environment names a proxy for it (`HTTP(S)_PROXY`, `ALL_PROXY`), which httpx honours."""
    proxies = urllib.request.getproxies_environment()
    return not (proxies.get(scheme) or proxies.get("all"))


def header_block(headers: dict[str, str]) -> bytes | None:
    """`Name: value` lines, or None when a name or value could split the head (CR, LF, NUL
    or a colon in a name): such a request is left to httpx, which refuses it as before."""
    lines = []
    for name, value in headers.items():
        if not name or any(c in name for c in "\r\n\0: ") or any(c in value for c in "\r\n\0"):
            return None
        lines.append(f"{name}: {value}\r\n")
    try:
        return "".join(lines).encode("latin-1")
    except UnicodeEncodeError:
        return None


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self, now: float) -> bool:
        return (
            not self.writer.is_closing()
            and not self.reader.at_eof()
            and now - self.idle_since < KEEPALIVE_S
        )

    def close(self) -> None:
        self.writer.close()


class Http1Pool:
    """Connections to one origin (`scheme://host:port`), each carrying one request at a
    time; at most `keep` idle ones are kept. The caller bounds how many run at once."""

    def __init__(
        self,
        *,
        scheme: str,
        host: str,
        port: int,
        host_header: str,
        tls: ssl.SSLContext | None,
        keep: int,
    ) -> None:
        self._host = host
        self._port = port
        self._tls = tls if scheme == "https" else None
        self._host_line = f"Host: {host_header}\r\n".encode("latin-1")
        self._keep = max(1, keep)
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()

    async def post(self, target: bytes, headers: bytes, body: bytes, cap: int) -> Answer:
        """POST `body` to `target` (path and query) with `headers` (from `header_block`);
        the answer, whatever its status. Raises a `ConnectionError` above or `BodyTooLarge`."""
        connection = self._idle.pop() if self._idle else None
        now = time.monotonic()
        while connection is not None and not connection.usable(now):
            self._drop(connection)
            connection = self._idle.pop() if self._idle else None
        if connection is None:
            connection = await self._connect()
        done = False
        try:
            head = b"POST %s HTTP/1.1\r\n%s%sContent-Length: %d\r\n\r\n" % (
                target,
                self._host_line,
                headers,
                len(body),
            )
            try:
                connection.writer.write(head + body)
                await connection.writer.drain()
            except OSError as exc:
                raise WriteError(str(exc)) from exc
            answer, reusable = await _read_answer(connection.reader, cap)
            done = reusable
            return answer
        finally:
            if done and len(self._idle) < self._keep:
                connection.idle_since = time.monotonic()
                self._idle.append(connection)
            else:
                self._drop(connection)

    async def _connect(self) -> _Connection:
        try:
            reader, writer = await asyncio.open_connection(
                self._host,
                self._port,
                ssl=self._tls,
                server_hostname=self._host if self._tls is not None else None,
                limit=HEAD_LIMIT,
            )
        except (OSError, ssl.SSLError) as exc:
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        connection = _Connection(reader, writer)
        self._open.add(connection)
        return connection

    def _drop(self, connection: _Connection) -> None:
        self._open.discard(connection)
        connection.close()

    async def aclose(self) -> None:
        """Close every connection (idle or, after a cancelled run, still open)."""
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()
        await asyncio.sleep(0)  # the transports let go of their sockets on the next turn


async def _read_answer(reader: asyncio.StreamReader, cap: int) -> tuple[Answer, bool]:
    """The next answer on `reader` (informational 1xx answers skipped), and whether the
    connection can carry another request."""
    while True:
        status, version, headers = await _read_head(reader)
        if status >= 200:
            break
    fields = {name: value for name, value in headers}
    connection = fields.get("connection", "").lower()
    reusable = "close" not in connection and (version != "HTTP/1.0" or "keep-alive" in connection)
    encoding = fields.get("transfer-encoding", "").lower()
    length = fields.get("content-length")
    if status in (204, 304):
        raw = b""
    elif encoding:
        if encoding.rsplit(",", 1)[-1].strip() != "chunked":
            raise RemoteProtocolError(f"unsupported Transfer-Encoding {encoding!r}")
        raw = await _read_chunked(reader, cap)
    elif length is not None:
        values = {v.strip() for v in length.split(",")}
        if len(values) != 1 or not next(iter(values)).isdigit():
            raise RemoteProtocolError(f"bad Content-Length {length!r}")
        size = int(values.pop())
        if size > cap:
            raise BodyTooLarge(f"response body of {size} bytes, over the {cap}-byte cap")
        raw = await _exactly(reader, size)
    else:
        raw = await _until_close(reader, cap)
        reusable = False
    return Answer(status, headers, _decode(raw, fields.get("content-encoding", ""), cap)), reusable


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, str, list[tuple[str, str]]]:
    try:
        block = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        what = "without sending a response" if not exc.partial else "within the headers"
        raise RemoteProtocolError(f"server disconnected {what}") from None
    except asyncio.LimitOverrunError:
        raise RemoteProtocolError(f"response head over {HEAD_LIMIT} bytes") from None
    except OSError as exc:
        raise ReadError(str(exc) or type(exc).__name__) from exc
    lines = block[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise RemoteProtocolError(f"not an HTTP/1.1 status line: {lines[0][:40]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or line[0] in " \t":
            raise RemoteProtocolError(f"malformed header line {line[:40]!r}")
        headers.append((name.lower(), value.strip(" \t")))
    return int(parts[1]), parts[0], headers


async def _exactly(reader: asyncio.StreamReader, size: int) -> bytes:
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise RemoteProtocolError("server disconnected within the body") from None
    except OSError as exc:
        raise ReadError(str(exc) or type(exc).__name__) from exc


async def _line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.IncompleteReadError:
        raise RemoteProtocolError("server disconnected within the body") from None
    except asyncio.LimitOverrunError:
        raise RemoteProtocolError("chunk line too long") from None
    except OSError as exc:
        raise ReadError(str(exc) or type(exc).__name__) from exc


async def _read_chunked(reader: asyncio.StreamReader, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        line = (await _line(reader)).split(b";", 1)[0].strip()
        try:
            length = int(line, 16)
        except ValueError:
            raise RemoteProtocolError(f"bad chunk size {line[:20]!r}") from None
        if length < 0:
            raise RemoteProtocolError(f"bad chunk size {line[:20]!r}")
        if length == 0:
            while (await _line(reader)) != b"\r\n":  # trailers
                pass
            return b"".join(chunks)
        size += length
        if size > cap:
            raise BodyTooLarge(f"response body over the {cap}-byte cap")
        chunks.append(await _exactly(reader, length))
        if await _exactly(reader, 2) != b"\r\n":
            raise RemoteProtocolError("chunk not followed by CRLF")


async def _until_close(reader: asyncio.StreamReader, cap: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = await reader.read(_CHUNK)
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge(f"response body over the {cap}-byte cap")
        chunks.append(chunk)


def _decode(raw: bytes, encoding: str, cap: int) -> bytes:
    """`raw` undone of its `Content-Encoding` (gzip, deflate; others are passed through as
    httpx passes an encoding it has no decoder for), the result capped like the body."""
    data = raw
    for coding in reversed([c.strip().lower() for c in encoding.split(",") if c.strip()]):
        if coding in ("gzip", "x-gzip"):
            data = _inflate(data, zlib.MAX_WBITS | 16, cap)
        elif coding == "deflate":
            try:
                data = _inflate(data, zlib.MAX_WBITS, cap)
            except RemoteProtocolError:
                data = _inflate(data, -zlib.MAX_WBITS, cap)
        elif coding != "identity":
            return data
    return data


def _inflate(data: bytes, wbits: int, cap: int) -> bytes:
    decoder = zlib.decompressobj(wbits)
    try:
        out = decoder.decompress(data, cap + 1)
    except zlib.error as exc:
        raise RemoteProtocolError(f"undecodable body: {exc}") from None
    if len(out) > cap:
        raise BodyTooLarge(f"response body over the {cap}-byte cap")
    return out
