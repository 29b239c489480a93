"""BFCL's web-search tools, run in this process (they need the network, the sandbox has none).

BFCL v4's `web_search_base` / `web_search_no_snippet` offer two tools (bfcl-eval's
`WebSearchAPI`, behaviour read from 2026.3.23, not copied):

- `search_engine_query(keywords, max_results=10, region="wt-wt")`: a DuckDuckGo search through
  a SerpAPI-compatible endpoint (`engine=duckduckgo&q=...&kl=...&api_key=...`); the first
  `max_results` of its `organic_results` as `{title, href, body}` (`body` left out when the
  category hides snippets). A 429 (status or error payload) is retried with a doubling
  back-off, as upstream, but a bounded number of times (upstream retries forever); an answer
  without `organic_results` is BFCL's "Failed to retrieve the search results from server.
  Please try again later."; a failed request is `{"error": "<what failed>"}`.
- `fetch_url_content(url, mode="raw")`: GET the page; `raw` is the HTML, `truncate` its text
  (scripts and styles dropped, one stripped text piece per line, as BeautifulSoup's
  `get_text("\\n", strip=True)`), `markdown` a small HTML-to-Markdown rendering (upstream uses
  html2text; ours is close, not byte-equal). Failures read as upstream's
  `{"error": "An error occurred while fetching <url>: <reason>"}`, an HTTP error as requests
  words it (`404 Client Error: Not Found for url: <url>`).

The search endpoint (named by `.bfcl.yml`, like a model endpoint) may be a public or a
loopback address, never the private network unless the workflow allows the host; redirects
of the search are not followed. The fetched URL comes from the model (or a search result), so
the fetcher is fenced
(`http_tools.resolve_endpoint(public=True)`): only globally routable addresses, or hosts the
workflow allowed (`exec-allow-hosts`); every redirect hop is checked again (at most
`MAX_REDIRECTS`); the connection goes to the checked address; each read waits at most
`timeout_s`, the whole fetch at most `deadline_s`, and at most `max_bytes` of the page are read
(a longer page is cut there, upstream returns it whole).

Results reach the model as BFCL's executor renders them: a dict as JSON, anything else with
`str()`, an exception as `Error during execution: <message>`.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from bfcl_action.multiturn.conversation import WEB_SEARCH_ENVIRONMENT as ENVIRONMENT
from bfcl_action.safety.escape import log_line
from bfcl_action.safety.http_tools import (
    EndpointRefused,
    pinned_connection,
    request_target,
    resolve_endpoint,
)
from bfcl_action.safety.sandbox import EnvironmentSpec

METHODS = ("search_engine_query", "fetch_url_content")
SEARCH_FAILED = "Failed to retrieve the search results from server. Please try again later."
"""BFCL's result when the search answer carries no `organic_results`."""
MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (compatible; bfcl-action web search)"


@dataclass(frozen=True)
class SearchBackend:
    """Where searches go and how fetches are bounded; built once per run from the settings.

    `api_key` is sent as SerpAPI's `api_key` parameter, only to `endpoint`. `allow` is the
    workflow's allow-list of non-public hosts (`exec-allow-hosts`), never a repository file's.
    """

    endpoint: str
    api_key: str | None = None
    engine: str = "duckduckgo"
    allow: tuple[str, ...] = ()
    timeout_s: float = 20.0
    """Per connect or read, as upstream's requests timeout."""
    deadline_s: float = 60.0
    """A whole search or fetch, redirects and slow pages included."""
    max_bytes: int = 1024 * 1024
    retries: int = 4
    """Retries of a rate-limited (429) search before its error is the result."""
    backoff_s: float = 2.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)


class FetchError(Exception):
    """Why a GET failed, worded like the requests exception upstream would show."""


@dataclass
class Page:
    url: str
    status: int
    reason: str
    body: bytes
    charset: str

    @property
    def text(self) -> str:
        try:
            return self.body.decode(self.charset, "replace")
        except LookupError:
            return self.body.decode("utf-8", "replace")


def http_get(
    url: str,
    *,
    allow: Sequence[str],
    public: bool,
    loopback: bool = False,
    timeout_s: float,
    deadline_s: float,
    max_bytes: int,
    headers: dict[str, str] | None = None,
    follow: bool = True,
) -> Page:
    """GET `url` through the fence, following redirects (each hop fenced); `FetchError` when
    the address is refused, the server is unreachable or too slow, or redirects loop."""
    deadline = time.monotonic() + deadline_s
    for _ in range(MAX_REDIRECTS + 1):
        try:
            scheme, address, port, host = resolve_endpoint(
                url, allow, public=public, loopback=loopback
            )
        except EndpointRefused as exc:
            raise FetchError(f"refused: {exc}") from None
        netloc, path = request_target(url)
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError(f"no answer within {deadline_s:g} seconds")
        connection = pinned_connection(scheme, address, host, port, min(timeout_s, left))
        try:
            connection.request(
                "GET",
                path,
                headers={
                    "Host": netloc,
                    "User-Agent": USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml,application/json,*/*;q=0.8",
                    "Accept-Encoding": "identity",
                    **(headers or {}),
                },
            )
            response = connection.getresponse()
            location = response.getheader("Location")
            if follow and response.status in (301, 302, 303, 307, 308) and location:
                url = urllib.parse.urljoin(url, location)
                continue
            body = _read_bounded(response, max_bytes, deadline, deadline_s)
            charset = response.headers.get_content_charset() or "utf-8"
            return Page(url, response.status, response.reason or "", body, charset)
        except TimeoutError:
            raise FetchError(
                f"{log_line(host, 80)}: read timed out (timeout={timeout_s:g})"
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            detail = getattr(exc, "strerror", None) or type(exc).__name__
            raise FetchError(f"{log_line(host, 80)}: connection failed ({detail})") from None
        finally:
            connection.close()
    raise FetchError(f"Exceeded {MAX_REDIRECTS} redirects.")


def _read_bounded(
    response: http.client.HTTPResponse, max_bytes: int, deadline: float, deadline_s: float
) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < max_bytes:
        if time.monotonic() > deadline:
            raise FetchError(f"no complete answer within {deadline_s:g} seconds")
        chunk = response.read1(min(65536, max_bytes - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def status_problem(page: Page) -> str | None:
    """requests' `raise_for_status` wording for an error status, else None."""
    if page.status < 400:
        return None
    side = "Client" if page.status < 500 else "Server"
    return f"{page.status} {side} Error: {page.reason} for url: {page.url}"


# --- HTML to text --------------------------------------------------------------------------

_SKIPPED = frozenset({"script", "style", "noscript", "template", "head"})
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "br", "tr", "table", "ul", "ol", "li", "header", "footer"}
)


class _Text(HTMLParser):
    """Text pieces of a page outside scripts and styles (`truncate`), or a Markdown-ish
    rendering (`markdown`: headings, links, list items, paragraphs)."""

    def __init__(self, markdown: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.markdown = markdown
        self.pieces: list[str] = []
        self.skip = 0
        self.href: str | None = None
        self.link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style") or (self.markdown and tag in _SKIPPED):
            self.skip += 1
        elif self.markdown and not self.skip:
            if re.fullmatch(r"h[1-6]", tag):
                self.pieces.append("\n\n" + "#" * int(tag[1]) + " ")
            elif tag == "li":
                self.pieces.append("\n  * ")
            elif tag == "a":
                self.href = dict(attrs).get("href")
                self.link_text = []
            elif tag in _BLOCKS:
                self.pieces.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") or (self.markdown and tag in _SKIPPED):
            self.skip = max(0, self.skip - 1)
        elif self.markdown and not self.skip and tag == "a" and self.href is not None:
            text = " ".join("".join(self.link_text).split())
            self.pieces.append(f"[{text}]({self.href})" if self.href else text)
            self.href = None
        elif self.markdown and not self.skip and re.fullmatch(r"h[1-6]", tag):
            self.pieces.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if not self.markdown:
            stripped = data.strip()
            if stripped:
                self.pieces.append(stripped)
        elif self.href is not None:
            self.link_text.append(data)
        else:
            self.pieces.append(re.sub(r"\s+", " ", data))


def page_text(html: str) -> str:
    """`truncate` mode: each non-empty text piece stripped, one per line."""
    parser = _Text(markdown=False)
    parser.feed(html)
    parser.close()
    return "\n".join(parser.pieces)


def page_markdown(html: str) -> str:
    """`markdown` mode: headings, links, list items and paragraphs kept, the rest as text."""
    parser = _Text(markdown=True)
    parser.feed(html)
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.pieces).splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


# --- the tools -----------------------------------------------------------------------------


class WebSearchTools:
    """The web-search environment of one conversation, with the sandbox's `init` / `call` /
    `close` so the conversation loop drives it the same way."""

    def __init__(self, backend: SearchBackend) -> None:
        self.backend = backend
        self.show_snippet = True
        self.searches = 0
        self.fetches = 0

    # the executor interface
    def init(self, side: str, envs: Sequence[EnvironmentSpec], *, long_context: bool) -> list[str]:
        del side, long_context
        for env in envs:
            if env.name == ENVIRONMENT:
                self.show_snippet = bool(env.config.get("show_snippet", True))
        return list(METHODS)

    def call(
        self, side: str, name: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> str:
        """One tool call's result text, as BFCL's executor renders it."""
        del side
        if name not in METHODS:
            return f"Error during execution: name '{log_line(name, 80)}' is not defined"
        try:
            result = getattr(self, name)(*args, **(kwargs or {}))
        except Exception as exc:  # the model's call failed: that is its result, as upstream
            return f"Error during execution: {exc}"
        if isinstance(result, dict):
            return json.dumps(result)
        return str(result)

    def close(self) -> None:
        """Nothing held between calls (each request opens and closes its connection)."""

    # the tools
    def search_engine_query(
        self, keywords: str, max_results: int | None = 10, region: str | None = "wt-wt"
    ) -> list[dict[str, str]] | dict[str, str]:
        self.searches += 1
        backend = self.backend
        params = {"engine": backend.engine, "q": keywords, "kl": region}
        if backend.api_key:
            params["api_key"] = backend.api_key
        url = _with_query(backend.endpoint, params)
        delay = backend.backoff_s
        for attempt in range(backend.retries + 1):
            try:
                page = http_get(
                    url,
                    allow=backend.allow,
                    public=True,
                    loopback=True,
                    timeout_s=backend.timeout_s,
                    deadline_s=backend.deadline_s,
                    max_bytes=16 * backend.max_bytes,
                    follow=False,
                )
                answer = json.loads(page.text)
            except (FetchError, ValueError, RecursionError) as exc:
                return {"error": _without(str(exc), backend.api_key)}
            limited = page.status == 429 or (
                isinstance(answer, dict) and "429" in str(answer.get("error", ""))
            )
            if limited and attempt < backend.retries:
                backend.sleep(delay + random.uniform(0, delay))  # noqa: S311 (jitter)
                delay = min(delay * 2, 120.0)
                continue
            break
        if not isinstance(answer, dict) or not isinstance(answer.get("organic_results"), list):
            return {"error": SEARCH_FAILED}
        results: list[dict[str, str]] = []
        for item in answer["organic_results"][:max_results]:
            if not isinstance(item, dict):
                continue
            row = {"title": str(item.get("title", "")), "href": str(item.get("link", ""))}
            if self.show_snippet:
                row["body"] = str(item.get("snippet", ""))
            results.append(row)
        return results

    def fetch_url_content(self, url: str, mode: str = "raw") -> dict[str, str]:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"Invalid URL: {url}")
        self.fetches += 1
        backend = self.backend
        try:
            page = http_get(
                url,
                allow=backend.allow,
                public=True,
                timeout_s=backend.timeout_s,
                deadline_s=backend.deadline_s,
                max_bytes=backend.max_bytes,
            )
            problem = status_problem(page)
            if problem:
                raise FetchError(problem)
            if mode == "raw":
                return {"content": page.text}
            if mode == "markdown":
                return {"content": page_markdown(page.text)}
            if mode == "truncate":
                return {"content": page_text(page.text)}
            raise FetchError(f"Unsupported mode: {mode}")
        except FetchError as exc:
            return {"error": f"An error occurred while fetching {url}: {exc}"}


def _with_query(endpoint: str, params: dict[str, Any]) -> str:
    parts = urllib.parse.urlsplit(endpoint)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query += [(k, str(v)) for k, v in params.items() if v is not None]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def _without(text: str, secret: str | None) -> str:
    """An error text with the key taken out (it travels in the search URL)."""
    return text.replace(secret, "***") if secret else text
