"""HTTP resource limits through a real ``ctxnotes serve --http`` process (issue 17, item 5).

Load loops are bounded, on 127.0.0.1 only, and every socket has a timeout.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import select
import socket
import time

import anyio
import pytest
from helpers import INIT, MCP_HEADERS, http_client, mcp_http, raw_request

pytestmark = pytest.mark.anyio
MiB = 1 << 20


def _post_head(port: int, length: int | None, extra: str = "") -> str:
    lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json",
             "Accept: application/json, text/event-stream"]
    lines.append(f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked")
    return "\n".join(lines) + extra


def _read_status(sock: socket.socket) -> int:
    """The status of whatever response the server has sent on ``sock`` (0 if none or the connection died)."""
    data = b""
    with contextlib.suppress(OSError):
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0


def test_unauthenticated_and_foreign_requests_refused_before_the_body(http_server):
    """The server answers on the headers alone: the 4 MiB body is never sent, yet the refusal arrives."""
    srv = http_server(f"--token={secrets.token_urlsafe(16)}")  # "=": a token may start with "-"
    started = time.monotonic()
    status, raw = raw_request(srv.port, _post_head(srv.port, 4 * MiB - 10), timeout=10)
    assert status == 401 and b"missing bearer token" in raw
    status, _ = raw_request(srv.port, _post_head(srv.port, 4 * MiB - 10).replace(
        f"Host: 127.0.0.1:{srv.port}", "Host: evil.example"), timeout=10)
    assert status == 421
    assert time.monotonic() - started < 10  # not a timeout: nobody waited for the body


def test_body_caps_give_clear_errors(http_server):
    srv = http_server("--max-body-bytes", "65536", "--max-buffered-bytes", "131072")
    status, raw = raw_request(srv.port, _post_head(srv.port, 65537), timeout=10)
    assert status == 413 and b"65536 bytes" in raw and b"--max-body-bytes" in raw
    # Chunked (no declared length): refused once the bytes received pass the cap.
    chunk = b"x" * 40000
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(2))
    status, raw = raw_request(srv.port, _post_head(srv.port, None), body=body, timeout=10)
    assert status == 413 and b"--max-body-bytes" in raw
    # Within the cap, a normal request is served.
    payload = json.dumps(INIT).encode()
    status, _ = raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=30)
    assert status == 200


def test_declared_lengths_are_reserved_before_reading(http_server):
    """Two stalled uploads that declared 64 KiB each use up a 128 KiB budget before sending a byte: a third,
    small request gets 503 naming the flag, and succeeds once they are gone."""
    srv = http_server("--max-body-bytes", "65536", "--max-buffered-bytes", "131072")
    payload = json.dumps(INIT).encode()
    head = _post_head(srv.port, 65536).replace("\n", "\r\n").encode() + b"\r\n\r\n"
    stalled = []
    try:
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            sock.sendall(head)
            stalled.append(sock)
        time.sleep(0.5)
        status, raw = raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=10)
        assert status == 503 and b"--max-buffered-bytes" in raw, raw[:300]
    finally:
        for sock in stalled:
            sock.close()
    deadline = time.monotonic() + 30
    while (status := raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=30)[0]) != 200:
        assert time.monotonic() < deadline, status
        time.sleep(0.2)


def test_stalled_body_times_out(http_server):
    srv = http_server("--body-timeout", "1")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=15) as sock:
        sock.sendall(_post_head(srv.port, 1000).replace("\n", "\r\n").encode() + b"\r\n\r\n" + b"{" * 10)
        started = time.monotonic()
        assert _read_status(sock) == 408
        assert time.monotonic() - started < 10


def test_silent_connection_closed_after_header_timeout(http_server):
    srv = http_server("--header-timeout", "1")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=15) as sock:
        started = time.monotonic()
        with contextlib.suppress(ConnectionResetError):
            assert sock.recv(100) == b""
        assert time.monotonic() - started < 10


def test_two_hundred_stalled_uploads_stay_bounded(http_server):
    """200 connections each declare a body of 4 MiB - 10 bytes, send part of it and stall.

    Before the limits this took a server to 1.27 GB. Now the declared bytes are reserved from a 64 MiB
    budget before reading, connections beyond 64 get 503 from uvicorn, and the server's memory grows by
    far less than the 800 MB the bodies would need. When the stallers go, service resumes.
    """
    srv = http_server()
    payload = json.dumps(INIT).encode()
    assert raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=30)[0] == 200
    rss_before = srv.rss_bytes()
    head = _post_head(srv.port, 4 * MiB - 10).replace("\n", "\r\n").encode() + b"\r\n\r\n"
    body = memoryview(b" " * (4 * MiB - 20))  # all but the last 10 bytes, then stall
    sockets: list[socket.socket] = []
    refused = 0
    started = time.monotonic()
    try:
        for _ in range(200):
            sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            sock.settimeout(0.5)
            sockets.append(sock)
            try:
                sock.sendall(head)
                sock.sendall(body)
            except OSError:  # refused and closed by the server (503), or its receive window is full
                refused += 1
        time.sleep(1.0)
        grown = srv.rss_bytes() - rss_before
        statuses = []
        for sock in sockets:
            sock.settimeout(0.2)
            statuses.append(_read_status(sock))
        assert grown < 200 * MiB, f"server grew by {grown / MiB:.0f} MiB with 200 stalled uploads"
        assert statuses.count(503) >= 100, (statuses.count(503), refused)
        print(f"200 stalled uploads: server grew by {grown / MiB:.1f} MiB, {statuses.count(503)} got 503, "
              f"{refused} sends cut short, {time.monotonic() - started:.1f} s")
    finally:
        for sock in sockets:
            sock.close()
    deadline = time.monotonic() + 30
    while True:  # the server notices the closed connections and frees their slots
        status, _ = raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=30)
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status == 200


def test_connection_cap(http_server):
    """With --max-connections 4, four stalled requests hold every slot: the fifth gets 503 at once, and
    service resumes when they go."""
    srv = http_server("--max-connections", "4")
    payload = json.dumps(INIT).encode()
    head = _post_head(srv.port, 1000).replace("\n", "\r\n").encode() + b"\r\n\r\n"
    stalled = []
    try:
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            sock.sendall(head + b"{")
            stalled.append(sock)
        time.sleep(0.5)
        status, raw = raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=10)
        assert status == 503, raw[:200]
        # Silent connections (no request head yet) are held up to 2 x 4 open in all; the next is closed
        # on arrival, before sending anything.
        for _ in range(4):
            stalled.append(socket.create_connection(("127.0.0.1", srv.port), timeout=10))
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as extra:
            extra.settimeout(5)
            with contextlib.suppress(ConnectionResetError):
                assert extra.recv(100) == b""  # closed by the server
    finally:
        for sock in stalled:
            sock.close()
    deadline = time.monotonic() + 30
    while (status := raw_request(srv.port, _post_head(srv.port, len(payload)), body=payload, timeout=30)[0]) != 200:
        assert time.monotonic() < deadline, status
        time.sleep(0.2)


async def test_session_table_is_bounded_and_sessions_expire(http_server):
    srv = http_server("--max-sessions", "3", "--session-idle-timeout", "2")
    async with http_client() as http:
        replies = [await http.post(srv.url, json=INIT, headers=MCP_HEADERS) for _ in range(4)]
        assert [r.status_code for r in replies] == [200, 200, 200, 503]
        message = replies[3].json()["error"]["message"]  # the SDK's bare "Too many open sessions", explained
        assert "--max-sessions 3" in message and "--session-idle-timeout" in message and "--stateless" in message
        deadline = time.monotonic() + 30
        while (await http.post(srv.url, json=INIT, headers=MCP_HEADERS)).status_code != 200:
            assert time.monotonic() < deadline, "idle sessions were never closed"
            await anyio.sleep(0.5)


async def test_stateless_mode_keeps_no_sessions(http_server):
    srv = http_server("--stateless", "--max-sessions", "1")
    async with http_client() as http:
        for _ in range(5):  # more than --max-sessions: no table to fill
            r = await http.post(srv.url, json=INIT, headers=MCP_HEADERS)
            assert r.status_code == 200 and "mcp-session-id" not in r.headers
    for mode in (None, "legacy"):
        async with mcp_http(srv.url, mode=mode) as client:
            r = await client.call_tool("note_create", {"title": f"stateless {mode}", "content": "zebra"})
            assert not r.is_error, r.content[0].text
            r = await client.call_tool("note_search", {"query": "zebra"})
            assert r.structured_content["total"] >= 1


def _big_history(turns: int = 3000) -> list[dict[str, str]]:
    """Turns with many bytes per token (runs of = and -), so a 128k-token context is ~2 MB of JSON."""
    return [{"role": "user" if i % 2 else "assistant",
             "content": f"Turn {i}: notes on topic {i % 37} with detail {i * 13} " + "=" * 120 + " " + "-" * 120}
            for i in range(turns)]


async def _build_big(url: str) -> tuple[int, int]:
    # The handshake era ("legacy", what most third-party clients speak) is the one that streams SSE; the
    # 2026-07-28 era answers with JSON whatever the server's setting.
    async with mcp_http(url, mode="legacy", deadline=120) as client:
        r = await client.call_tool("build_context", {"query": "topic 5", "history": _big_history(),
                                                     "max_tokens": 128000})
        assert not r.is_error, r.content[0].text
        return len(r.model_dump_json().encode()), r.structured_content["tokens"]


async def test_large_result_reaches_the_sdk_client(http_server):
    """A legitimate result over the SDK client's 1 MiB SSE event cap arrives whole: the server answers with
    JSON bodies by default. With SSE (``--no-json-response``) the same call fails in the client."""
    size, tokens = await _build_big(http_server().url)
    assert size > 1.5 * MiB and tokens > 50_000, (size, tokens)
    with pytest.raises(BaseException) as caught:  # an ExceptionGroup around the SDK's MCPError
        await _build_big(http_server("--no-json-response").url)
    assert "exceeded the 1048576 byte limit" in repr(caught.value)


def test_the_server_parses_http_with_httptools():
    """The capped protocol is uvicorn's httptools one (a C parser; h11 is the fallback without httptools)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from server.http_security import HttpLimits, capped_http_protocol
    assert issubclass(capped_http_protocol(HttpLimits()), HttpToolsProtocol)


def test_an_oversized_request_head_is_refused_and_the_server_goes_on(http_server):
    """A head that never ends (a header value growing without bound) is answered 400 and its connection
    closed once it passes ``MAX_HEAD_BYTES``, the first request's and a later one's on the same connection."""
    from server.http_security import MAX_HEAD_BYTES
    srv = http_server()
    for first in (True, False):
        with socket.create_connection(("127.0.0.1", srv.port), timeout=15) as sock:
            if not first:  # a good request first: the bound applies to every head on a kept-alive connection
                sock.sendall(f"GET /nothing HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode())
                assert _read_status(sock) == 404
            sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nX-Big: ".encode())
            sent, answer = 0, b""
            with contextlib.suppress(OSError):
                while sent < 4 * MAX_HEAD_BYTES and not select.select([sock], [], [], 0)[0]:
                    sock.sendall(b"a" * 4096)  # until the server answers (then stop: no reset to race)
                    sent += 4096
                    time.sleep(0.001)
                answer = sock.recv(200)
            assert answer.startswith(b"HTTP/1.1 400"), (sent, answer[:60])
            assert sent <= 4 * MAX_HEAD_BYTES
    status, _ = raw_request(srv.port, f"POST /mcp HTTP/1.1\nHost: 127.0.0.1:{srv.port}\nContent-Type: "
                                      "application/json\nAccept: application/json, text/event-stream\n"
                                      f"Content-Length: {len(json.dumps(INIT))}", json.dumps(INIT).encode())
    assert status == 200
