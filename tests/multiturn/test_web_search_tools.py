"""The web-search tools of BFCL's agentic categories, against a local search endpoint and
local pages (tests/support/web_search.py): results, bfcl-eval's failure texts, the fence."""

from __future__ import annotations

import ast
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bfcl_action.multiturn.web_search import (
    SEARCH_FAILED,
    SearchBackend,
    WebSearchTools,
    page_markdown,
    page_text,
)
from bfcl_action.safety.http_tools import EndpointRefused, resolve_endpoint
from bfcl_action.safety.sandbox import EnvironmentSpec
from tests.support.web_search import WebServer

PAGE = """<html><head><title>Tea</title><style>p {color: red}</style></head>
<body><h1>Da Hong Pao</h1><script>var secret = 1;</script>
<p>The most   expensive tea comes from <a href="https://example.org/china">China</a>.</p>
<ul><li>Wuyi</li><li>Fujian</li></ul></body></html>"""


@pytest.fixture
def web() -> Iterator[WebServer]:
    with WebServer() as server:
        server.pages["tea"] = PAGE
        server.results["tea"] = [
            server.result("Most expensive tea", "tea", "Da Hong Pao from China"),
            server.result("Tea prices", "prices", "A list of prices"),
        ]
        yield server


def tools(web: WebServer, *, snippet: bool = True, allow: bool = True, **kw: Any) -> WebSearchTools:
    backend = SearchBackend(
        endpoint=web.endpoint,
        api_key=kw.pop("api_key", None),
        allow=(f"127.0.0.1:{web.port}",) if allow else (),
        sleep=lambda _s: None,
        **kw,
    )
    executor = WebSearchTools(backend)
    executor.init(
        "model",
        [EnvironmentSpec("WebSearchAPI", "host:web_search", {"show_snippet": snippet})],
        long_context=False,
    )
    return executor


def call(executor: WebSearchTools, name: str, **kwargs: Any) -> str:
    return executor.call("model", name, (), kwargs)


def test_a_search_returns_titles_links_and_snippets_as_bfcl_renders_a_list(
    web: WebServer,
) -> None:
    text = call(tools(web), "search_engine_query", keywords="expensive tea", max_results=1)
    assert ast.literal_eval(text) == [
        {
            "title": "Most expensive tea",
            "href": web.page_url("tea"),
            "body": "Da Hong Pao from China",
        }
    ]
    path, query = web.requests[-1]
    assert path == "/search.json"
    assert query == {"engine": "duckduckgo", "q": "expensive tea", "kl": "wt-wt"}


def test_no_snippet_leaves_the_body_out(web: WebServer) -> None:
    text = call(tools(web, snippet=False), "search_engine_query", keywords="tea")
    assert ast.literal_eval(text) == [
        {"title": "Most expensive tea", "href": web.page_url("tea")},
        {"title": "Tea prices", "href": web.page_url("prices")},
    ]


def test_the_key_goes_to_the_search_endpoint_only(web: WebServer) -> None:
    web.api_key = "serp-key-123"
    executor = tools(web, api_key="serp-key-123")
    assert "Most expensive tea" in call(executor, "search_engine_query", keywords="tea")
    call(executor, "fetch_url_content", url=web.page_url("tea"))
    keys = {path: query.get("api_key") for path, query in web.requests}
    assert keys == {"/search.json": "serp-key-123", "/pages/tea": None}


def test_an_answer_without_results_is_bfcls_failure_text(web: WebServer) -> None:
    web.broken = True
    text = call(tools(web), "search_engine_query", keywords="tea")
    assert json.loads(text) == {"error": SEARCH_FAILED}
    web.broken = False
    web.api_key = "right"
    text = call(tools(web, api_key="wrong"), "search_engine_query", keywords="tea")
    assert json.loads(text) == {"error": SEARCH_FAILED}


def test_a_rate_limited_search_is_retried_with_back_off(web: WebServer) -> None:
    slept: list[float] = []
    web.rate_limited = 2
    backend = SearchBackend(endpoint=web.endpoint, sleep=slept.append, backoff_s=2.0)
    executor = WebSearchTools(backend)
    assert "Most expensive tea" in call(executor, "search_engine_query", keywords="tea")
    assert len(slept) == 2 and 2 <= slept[0] <= 4 and 4 <= slept[1] <= 8
    web.rate_limited = 10
    text = call(WebSearchTools(backend), "search_engine_query", keywords="tea")
    assert json.loads(text) == {"error": SEARCH_FAILED}  # bounded: 4 retries, then the failure
    assert web.rate_limited == 5


def test_an_unreachable_search_endpoint_is_an_error_result() -> None:
    with WebServer() as gone:
        endpoint = gone.endpoint
    executor = WebSearchTools(SearchBackend(endpoint=endpoint, timeout_s=2))
    result = json.loads(call(executor, "search_engine_query", keywords="tea"))
    assert "connection failed" in result["error"]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("raw", PAGE),
        (
            "truncate",
            "Tea\nDa Hong Pao\nThe most   expensive tea comes from\nChina\n.\nWuyi\nFujian",
        ),
    ],
)
def test_a_page_is_fetched_in_each_mode(web: WebServer, mode: str, expected: str) -> None:
    text = call(tools(web), "fetch_url_content", url=web.page_url("tea"), mode=mode)
    assert json.loads(text) == {"content": expected}


def test_markdown_keeps_headings_links_and_list_items() -> None:
    markdown = page_markdown(PAGE)
    assert "# Da Hong Pao" in markdown
    assert "[China](https://example.org/china)" in markdown
    assert "  * Wuyi" in markdown and "  * Fujian" in markdown
    assert "secret" not in markdown and "color" not in markdown and "Tea\n" not in markdown


def test_text_drops_scripts_and_styles() -> None:
    assert page_text("<style>a{}</style><p> x </p><script>y</script>") == "x"


def test_an_http_error_reads_as_requests_words_it(web: WebServer) -> None:
    url = web.page_url("nowhere")
    result = json.loads(call(tools(web), "fetch_url_content", url=url))
    assert result == {
        "error": f"An error occurred while fetching {url}: "
        f"404 Client Error: Not Found for url: {url}"
    }


def test_a_bad_url_or_mode_fails_as_upstream(web: WebServer) -> None:
    executor = tools(web)
    assert call(executor, "fetch_url_content", url="ftp://x/y") == (
        "Error during execution: Invalid URL: ftp://x/y"
    )
    url = web.page_url("tea")
    result = json.loads(call(executor, "fetch_url_content", url=url, mode="pdf"))
    assert result == {"error": f"An error occurred while fetching {url}: Unsupported mode: pdf"}


def test_unknown_tools_and_arguments_fail_the_call_only(web: WebServer) -> None:
    executor = tools(web)
    assert call(executor, "rm_rf") == "Error during execution: name 'rm_rf' is not defined"
    text = call(executor, "search_engine_query", query="tea")
    assert text.startswith("Error during execution: ") and "query" in text
    assert (
        call(executor, "_with_query") == "Error during execution: name '_with_query' is not defined"
    )


def test_loopback_pages_are_refused_unless_the_workflow_allows_them(web: WebServer) -> None:
    url = web.page_url("tea")
    result = json.loads(call(tools(web, allow=False), "fetch_url_content", url=url))
    assert "is not a public address" in result["error"]
    assert "/pages/tea" not in web.paths()


def test_every_redirect_hop_is_fenced(web: WebServer) -> None:
    executor = tools(web)
    ok = f"{web.base}/redirect?to=/pages/tea"
    assert json.loads(call(executor, "fetch_url_content", url=ok, mode="truncate"))[
        "content"
    ].startswith("Tea")
    away = f"{web.base}/redirect?to=http://localhost:{web.port}/pages/tea"
    result = json.loads(call(executor, "fetch_url_content", url=away))
    assert "localhost is not a public address" in result["error"]
    assert web.paths().count("/pages/tea") == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
    ],
)
def test_the_fetch_fence_refuses_private_and_link_local_addresses(url: str) -> None:
    with pytest.raises(EndpointRefused):
        resolve_endpoint(url, public=True)


def test_a_slow_page_is_cut_off_by_the_deadline(web: WebServer) -> None:
    executor = tools(web, deadline_s=1.0, timeout_s=5.0)
    started = time.monotonic()
    result = json.loads(call(executor, "fetch_url_content", url=f"{web.base}/drip"))
    assert time.monotonic() - started < 4
    assert "within 1 seconds" in result["error"]


def test_a_big_page_is_read_up_to_the_bound(web: WebServer) -> None:
    executor = tools(web, max_bytes=10_000)
    result = json.loads(call(executor, "fetch_url_content", url=f"{web.base}/big"))
    assert len(result["content"]) == 10_000


def test_the_search_endpoint_may_be_public_or_loopback_but_not_the_private_network() -> None:
    assert resolve_endpoint("https://8.8.8.8/search.json", public=True, loopback=True)[1] == (
        "8.8.8.8"
    )  # resolved and checked only: no connection is made
    assert resolve_endpoint("http://127.0.0.1:9/s", public=True, loopback=True)[1] == "127.0.0.1"
    with pytest.raises(EndpointRefused, match="not a public address"):
        resolve_endpoint("http://10.1.2.3/search.json", public=True, loopback=True)
    with pytest.raises(EndpointRefused, match="not a public address"):
        resolve_endpoint("http://169.254.169.254/", public=True, loopback=True)
    allowed = resolve_endpoint("http://10.1.2.3/s", ("10.1.2.3",), public=True, loopback=True)
    assert allowed[1] == "10.1.2.3"


def test_a_private_search_endpoint_is_an_error_result_without_a_request() -> None:
    executor = WebSearchTools(SearchBackend(endpoint="http://10.1.2.3/search.json"))
    result = json.loads(call(executor, "search_engine_query", keywords="tea"))
    assert "refused: 10.1.2.3 is not a public address" in result["error"]
