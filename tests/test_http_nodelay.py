"""Nagle is off on the HTTP server's connections (issue 16).

uvicorn writes a response's head and body in two sends; with Nagle on, the body waited for the client's
delayed ACK of the head, ~40 ms on every call. asyncio only sets ``TCP_NODELAY`` on sockets whose
``proto`` is ``IPPROTO_TCP``, which our own listener (``bind_listener``) did not say.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import statistics
import time

from helpers import INIT, MCP_HEADERS

from server.cli.serve import bind_listener


def test_listener_names_tcp_and_turns_nagle_off() -> None:
    sock = bind_listener("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        sock.close()


def test_accepted_connections_have_nagle_off() -> None:
    """What uvicorn does with our listener: ``loop.create_server(sock=...)``; look at the accepted socket."""
    async def main() -> int:
        sock = bind_listener("127.0.0.1", 0)
        port = sock.getsockname()[1]
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                s = transport.get_extra_info("socket")
                seen.set_result(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
        try:
            _r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
            value = await asyncio.wait_for(seen, 10)
            w.close()
            return value
        finally:
            server.close()
    assert asyncio.run(main()) != 0


def test_calls_on_one_connection_do_not_wait_for_delayed_acks(http_server) -> None:
    """Sequential pings on one keep-alive connection: each took ≥ 40 ms with Nagle on, ~1 ms without."""
    server = http_server()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST", "/mcp", json.dumps(INIT), MCP_HEADERS)
        r = conn.getresponse()
        r.read()
        assert r.status == 200
        headers = {**MCP_HEADERS, "mcp-session-id": r.getheader("mcp-session-id") or "",
                   "mcp-protocol-version": "2025-06-18"}
        conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers)
        r = conn.getresponse()
        r.read()
        times = []
        for i in range(30):
            t0 = time.perf_counter()
            conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": i + 2, "method": "ping"}), headers)
            r = conn.getresponse()
            body = r.read()
            times.append((time.perf_counter() - t0) * 1000)
            assert r.status == 200 and b'"result"' in body
    finally:
        conn.close()
    assert statistics.median(times) < 25, f"ping round trips (ms): {sorted(times)}"
