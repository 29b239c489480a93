"""A package index (PEP 503 "simple" pages) on 127.0.0.1 serving wheel files from a folder.

pip and uv are pointed at it through their own configuration (`PIP_INDEX_URL`,
`UV_INDEX_URL`), exactly as a user points them at a mirror, so a test exercises the real
download path of a data wheel without the network.
"""

from __future__ import annotations

import hashlib
import html
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class PackageIndex:
    """Serves every `*.whl` in `folder` (read on each request, so tests can add files)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.requests: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                body, kind = index.page(self.path)
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def page(self, path: str) -> tuple[bytes | None, str]:
        path = path.split("?", 1)[0]
        if path.startswith("/files/"):
            file = self.folder / path.removeprefix("/files/")
            if file.parent == self.folder and file.is_file():
                return file.read_bytes(), "application/octet-stream"
            return None, ""
        if path.startswith("/simple/"):
            project = path.removeprefix("/simple/").strip("/")
            links = []
            for wheel in sorted(self.folder.glob("*.whl")):
                if _normalise(wheel.name.split("-", 1)[0]) != _normalise(project):
                    continue
                digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
                name = html.escape(wheel.name)
                links.append(f'<a href="/files/{name}#sha256={digest}">{name}</a><br>')
            if not links:
                return None, ""
            text = f"<!DOCTYPE html><html><body>{''.join(links)}</body></html>"
            return text.encode(), "text/html"
        return None, ""

    def env(self) -> dict[str, str]:
        """Variables that make pip and uv use this index only, without their caches."""
        return {
            "PIP_INDEX_URL": self.url,
            "UV_INDEX_URL": self.url,
            "UV_DEFAULT_INDEX": self.url,
            "PIP_NO_CACHE_DIR": "1",
            "UV_NO_CACHE": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }


@contextmanager
def running_index(folder: Path) -> Iterator[PackageIndex]:
    index = PackageIndex(folder)
    index.thread.start()
    try:
        yield index
    finally:
        index.server.shutdown()
        index.server.server_close()
