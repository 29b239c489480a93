"""The chat requests' direct HTTP/1.1 pool (`bfcl_action.model.http1`) reads every answer
shape real servers send as httpx did, and leaves to httpx what it does not do (proxies,
redirects, a header that could split the head). Real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.records import Mode
from bfcl_action.model import http1
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.providers.openai import OpenAIProvider
from bfcl_action.model.types import PermanentError, TransientError
from tests.support.raw_http import RawRequest, RawServer, reply, self_signed_tls

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "hello"}}]}
BODY = json.dumps(ANSWER).encode()


def chat(base_url: str, *, times: int = 1, api_key: str = "sk-test") -> list[dict[str, Any]]:
    """`times` chat requests in a row through one provider (one pool)."""

    async def go() -> list[dict[str, Any]]:
        provider = OpenAIProvider(
            BackendOptions(model="m", mode=Mode.FC, base_url=base_url, api_key=api_key)
        )
        try:
            out = []
            for _ in range(times):
                out.append(await provider.chat({"model": "m", "messages": []}))
                await asyncio.sleep(0.01)
            return out
        finally:
            await provider.aclose()

    return asyncio.run(go())


def always(data: bytes | None) -> list[Any]:
    return [lambda _request: data]


def test_keep_alive_answers_share_one_connection() -> None:
    with RawServer(always(reply(body=BODY))) as server:
        assert chat(server.base_url, times=3) == [ANSWER] * 3
    assert server.connections == 1
    line = server.requests[0].line
    assert line == "POST /v1/chat/completions HTTP/1.1"
    headers = server.requests[0].headers
    assert headers["host"] == f"127.0.0.1:{server.port}"
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["content-type"] == "application/json"
    assert json.loads(server.requests[0].body) == {"model": "m", "messages": []}


def test_chunked_answer_with_extension_and_trailer_is_read() -> None:
    half = len(BODY) // 2
    chunked = (
        f"{half:x};ext=1\r\n".encode()
        + BODY[:half]
        + f"\r\n{len(BODY) - half:X}\r\n".encode()
        + BODY[half:]
        + b"\r\n0\r\nX-Trailer: 1\r\n\r\n"
    )
    answer = reply(body=chunked, headers={"Transfer-Encoding": "chunked"}, length=False)
    with RawServer(always(answer)) as server:
        assert chat(server.base_url, times=2) == [ANSWER] * 2
    assert server.connections == 1


def test_gzip_and_deflate_answers_are_decoded() -> None:
    answers = [
        lambda _r: reply(body=gzip.compress(BODY), headers={"Content-Encoding": "gzip"}),
        lambda _r: reply(body=zlib.compress(BODY), headers={"Content-Encoding": "deflate"}),
    ]
    with RawServer(answers) as server:
        assert chat(server.base_url, times=2) == [ANSWER] * 2
    assert "gzip" in server.requests[0].headers["accept-encoding"]


def test_answer_read_until_close_is_complete_and_its_connection_not_reused() -> None:
    answer = reply(body=BODY, headers={"Connection": "close"}, length=False)
    with RawServer(always(answer)) as server:
        assert chat(server.base_url, times=2) == [ANSWER] * 2
    assert server.connections == 2


def test_informational_answer_before_the_real_one_is_skipped() -> None:
    answer = b"HTTP/1.1 100 Continue\r\n\r\n" + reply(body=BODY)
    with RawServer(always(answer)) as server:
        assert chat(server.base_url) == [ANSWER]


def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    def answer_then_close(request: RawRequest) -> bytes:
        return reply(body=BODY, headers={"Connection": "close"})

    with RawServer([answer_then_close]) as server:
        assert chat(server.base_url, times=3) == [ANSWER] * 3
    assert server.connections == 3


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTQ/1.1 200 OK\r\n\r\n",
        b"HTTP/1.1 2xx OK\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 12, 13\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",
        None,
    ],
    ids=[
        "status-line",
        "status-code",
        "header-line",
        "two-lengths",
        "short-body",
        "chunk-size",
        "bad-gzip",
        "closed",
    ],
)
def test_a_broken_answer_is_a_connection_failure_to_retry(answer: bytes | None) -> None:
    server = RawServer(always(answer), close_after=True)
    with server, pytest.raises(TransientError) as caught:
        chat(server.base_url)
    assert caught.value.connection
    assert str(caught.value).startswith("connection error: ")


def test_nothing_listening_is_a_connection_failure() -> None:
    with RawServer(always(None)) as server:
        url = server.base_url
    with pytest.raises(TransientError) as caught:
        chat(url)
    assert caught.value.connection and "ConnectError" in str(caught.value)


def test_error_status_is_translated_as_before() -> None:
    body = json.dumps({"error": {"message": "slow down"}}).encode()
    answer = reply(429, body, {"Retry-After": "7", "Content-Encoding": "identity"})
    with RawServer(always(answer)) as server, pytest.raises(TransientError) as caught:
        chat(server.base_url)
    assert str(caught.value) == "HTTP 429" and caught.value.retry_after == 7.0
    unknown = reply(400, json.dumps({"error": {"message": "bad <b>field</b>"}}).encode())
    with RawServer(always(unknown)) as server, pytest.raises(PermanentError) as refused:
        chat(server.base_url)
    assert str(refused.value).startswith("HTTP 400: bad")


@pytest.mark.parametrize("framing", ["length", "chunked", "gzip", "close"])
def test_a_body_over_the_cap_fails_that_request(framing: str) -> None:
    big = b"x" * 5000
    answer = {
        "length": reply(body=big),
        "chunked": reply(
            body=b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big),
            headers={"Transfer-Encoding": "chunked"},
            length=False,
        ),
        "gzip": reply(body=gzip.compress(big), headers={"Content-Encoding": "gzip"}),
        "close": reply(body=big, headers={"Connection": "close"}, length=False),
    }[framing]

    async def go(port: int) -> None:
        pool = http1.Http1Pool(
            scheme="http", host="127.0.0.1", port=port, host_header="h", tls=None, keep=1
        )
        try:
            await pool.post(b"/", b"", b"{}", 1000)
        finally:
            await pool.aclose()

    with RawServer(always(answer)) as server, pytest.raises(http1.BodyTooLarge):
        asyncio.run(go(server.port))


def test_a_redirect_is_followed_by_httpx_as_before() -> None:
    def route(request: RawRequest) -> bytes:
        if request.line.startswith("POST /v1/chat/completions "):
            return reply(307, b"", {"Location": "/v2/chat/completions"})
        return reply(body=BODY)

    with RawServer([route]) as server:
        assert chat(server.base_url) == [ANSWER]
    lines = [r.line.split()[1] for r in server.requests]
    assert lines[-1] == "/v2/chat/completions" and lines.count("/v1/chat/completions") == 2
    assert json.loads(server.requests[-1].body) == {"model": "m", "messages": []}


def test_a_proxy_named_by_the_environment_carries_the_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with RawServer(always(reply(body=BODY))) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        # the endpoint is only ever named to the proxy, never connected to
        assert chat("http://model.invalid:8000/v1") == [ANSWER]
    assert proxy.requests[0].line == "POST http://model.invalid:8000/v1/chat/completions HTTP/1.1"


def test_a_key_that_could_split_the_head_never_reaches_the_server_as_a_header() -> None:
    server = RawServer(always(reply(body=BODY)))
    with server, pytest.raises((TransientError, PermanentError)):
        chat(server.base_url, api_key="sk-a\r\nX-Injected: 1")
    assert all("x-injected" not in r.headers for r in server.requests)


def test_https_goes_direct_and_checks_the_certificate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = self_signed_tls(tmp_path)
    if made is None:
        pytest.skip("no openssl command to make a certificate with")
    context, cert = made
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    with RawServer(always(reply(body=BODY)), tls=context) as server:
        with pytest.raises(TransientError) as refused:  # not a certificate we trust
            chat(server.base_url)
        assert refused.value.connection and "ConnectError" in str(refused.value)
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # as httpx, the variable is honoured
        assert chat(server.base_url, times=2) == [ANSWER] * 2
    assert len(server.requests) == 2
