"""A response's head and body leave the HTTP server in one send (``CoalescingTransport``, issue 16)."""

from __future__ import annotations

import asyncio
import socket

from server.http_security import CoalescingTransport


def test_writes_of_one_loop_turn_are_one_send_and_close_flushes_first() -> None:
    async def main() -> list[bytes]:
        loop = asyncio.get_running_loop()
        a, b = socket.socketpair()
        b.setblocking(False)
        transport, _protocol = await loop.connect_accepted_socket(asyncio.Protocol, a)
        sends: list[bytes] = []
        real_write = transport.write

        def counting_write(data: bytes) -> None:
            sends.append(bytes(data))
            real_write(data)
        transport.write = counting_write  # type: ignore[method-assign]
        t = CoalescingTransport(transport, loop)
        t.write(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\n")
        t.write(b"body")
        t.write(b"")
        assert sends == [] and t.get_write_buffer_size() == 42
        await asyncio.sleep(0)  # the end of the turn
        assert sends == [b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nbody"]
        t.write(b"last words")
        t.close()  # held bytes go out before the close
        assert sends[-1] == b"last words" and t.is_closing()
        await asyncio.sleep(0.05)
        got = b""
        while True:
            try:
                chunk = b.recv(4096)
            except BlockingIOError:
                await asyncio.sleep(0.01)
                continue
            if not chunk:
                break
            got += chunk
        b.close()
        assert got == b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nbodylast words"
        return sends
    assert len(asyncio.run(main())) == 2


def test_abort_drops_what_is_held() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        a, b = socket.socketpair()
        transport, _protocol = await loop.connect_accepted_socket(asyncio.Protocol, a)
        t = CoalescingTransport(transport, loop)
        t.write(b"never sent")
        t.abort()
        await asyncio.sleep(0.01)
        b.settimeout(5)
        assert b.recv(100) == b""
        b.close()
    asyncio.run(main())
