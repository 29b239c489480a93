"""A local HTTP/1.1 server that answers each request with scripted raw bytes, for tests of
how a client reads answers real servers send (chunked, gzip, until close, 1xx, redirects,
malformed heads). 127.0.0.1, ephemeral port, one thread per connection.

`server.answers` is a list of callables `(request) -> bytes | None` used in order, the last
one for every later request; None closes the connection without answering, and so does
every answer when `close_after` is set. `requests` records each `RawRequest`;
`connections` counts accepted connections. With `tls` (a server context), every connection is
TLS (`self_signed_tls` makes one for 127.0.0.1 with the `openssl` command).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class RawRequest:
    line: str
    headers: dict[str, str]
    body: bytes


Answer = Callable[[RawRequest], bytes | None]


def reply(
    status: int = 200,
    body: bytes = b"{}",
    headers: dict[str, str] | None = None,
    *,
    length: bool = True,
) -> bytes:
    """An HTTP/1.1 answer as bytes (`Content-Length` unless `length=False`)."""
    lines = [f"HTTP/1.1 {status} X"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if length:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class RawServer:
    def __init__(
        self,
        answers: list[Answer],
        *,
        close_after: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.answers = answers
        self.close_after = close_after
        self.tls = tls
        self.requests: list[RawRequest] = []
        self.connections = 0
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base_url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        if self.tls is not None:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (OSError, ssl.SSLError):  # the client refused our certificate
                conn.close()
                return
        with conn:
            reader = conn.makefile("rb")
            while True:
                line = reader.readline()
                if not line:
                    return
                headers: dict[str, str] = {}
                while (header := reader.readline()) not in (b"\r\n", b""):
                    name, _, value = header.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = reader.read(int(headers.get("content-length", "0")))
                request = RawRequest(line.decode("latin-1").strip(), headers, body)
                with self._lock:
                    index = len(self.requests)
                    self.requests.append(request)
                answer = self.answers[min(index, len(self.answers) - 1)](request)
                if answer is None:
                    return
                try:
                    conn.sendall(answer)
                except OSError:
                    return
                if self.close_after or b"\r\nConnection: close" in answer.split(b"\r\n\r\n")[0]:
                    return

    def close(self) -> None:
        """Stop listening (a thread blocked in `accept` is woken by the shutdown)."""
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def self_signed_tls(directory: Path) -> tuple[ssl.SSLContext, Path] | None:
    """A server context with a fresh self-signed certificate for 127.0.0.1, and the
    certificate's file (for a client to trust); None without the `openssl` command."""
    if shutil.which("openssl") is None:
        return None
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context, cert
