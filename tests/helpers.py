"""Test helpers for real processes: the CLI, and ``ctxnotes serve --http`` on a port it picks itself.

The HTTP server is started with ``--port 0 --port-file F``: the server binds the port and writes it to
``F`` once it accepts connections, so there is no bind-and-release race. Every wait has a deadline and
every HTTP client an explicit timeout (httpx's 5 s default is too short on a loaded machine and hides
the intent).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "server.cli"]
START_TIMEOUT = 60.0        # seconds for a server to come up on a loaded 2-core machine
REQUEST_TIMEOUT = httpx2.Timeout(60.0, connect=10.0)
CLI_TIMEOUT = 120.0
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}
ENV_DROPPED = ("CTXNOTES_TOKEN", "CTXNOTES_WORKSPACE", "CTXNOTES_GIT_AUTOCOMMIT")


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The current environment without ctxnotes settings that would change what a test sees."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_DROPPED}
    env.update(extra or {})
    return env


def run_cli(args: Sequence[str], *, env: dict[str, str] | None = None, timeout: float = CLI_TIMEOUT,
            cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``ctxnotes ARGS`` as a subprocess; its output captured as text."""
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=clean_env(env))


class HttpServer:
    """A running ``ctxnotes serve --http`` process; stop() it (or use ``serve_http`` as a context manager)."""

    def __init__(self, workspace: Path, extra: Sequence[str] = (), env: dict[str, str] | None = None,
                 host: str = "127.0.0.1", log_dir: Path | None = None, global_args: Sequence[str] = ()) -> None:
        log_dir = log_dir or workspace.parent
        log_dir.mkdir(parents=True, exist_ok=True)
        stamp = f"{os.getpid()}-{time.monotonic_ns()}"
        self.port_file = log_dir / f"port-{stamp}"
        self.log_path = log_dir / f"serve-{stamp}.log"
        self._log = open(self.log_path, "w+b")  # a file, not a pipe: a chatty server never blocks on it
        self.proc = subprocess.Popen(
            [*CLI, *global_args, "serve", "--http", "--host", host, "--port", "0", "--port-file", str(self.port_file),
             "--workspace", str(workspace), *extra],
            cwd=REPO, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, env=clean_env(env))
        try:
            self.port = self._wait_for_port()
        except BaseException:
            self.stop()
            raise
        self.url = f"http://127.0.0.1:{self.port}/mcp"  # clients connect via loopback whatever the bind

    def _wait_for_port(self) -> int:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.port_file.exists():
                text = self.port_file.read_text().strip()
                if text.isdigit():
                    return int(text)
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}: {self.log()}")
            time.sleep(0.05)
        raise AssertionError(f"server did not report its port within {START_TIMEOUT:g} s: {self.log()}")

    def log(self) -> str:
        """Everything the server wrote to stdout and stderr so far."""
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def rss_bytes(self) -> int:
        """The server's resident memory now (Linux)."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS line")

    def stop(self, timeout: float = 15.0) -> int:
        """Terminate the server (kill after ``timeout``) and return its exit code."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=timeout)
        self._log.close()
        return self.proc.returncode


@contextlib.contextmanager
def serve_http(workspace: Path, *extra: str, env: dict[str, str] | None = None,
               host: str = "127.0.0.1") -> Iterator[HttpServer]:
    server = HttpServer(workspace, extra, env=env, host=host)
    try:
        yield server
    finally:
        server.stop()


def http_client(token: str | None = None, **kwargs: Any) -> httpx2.AsyncClient:
    """An httpx client with explicit timeouts (and the bearer token, if given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers.update(kwargs.pop("headers", {}))
    return httpx2.AsyncClient(timeout=kwargs.pop("timeout", REQUEST_TIMEOUT), headers=headers, **kwargs)


@contextlib.asynccontextmanager
async def mcp_http(url: str, token: str | None = None, mode: str | None = None,
                   deadline: float = 180.0) -> AsyncIterator[Any]:
    """An SDK ``Client`` over streamable HTTP with explicit timeouts; the whole use fails after ``deadline`` s."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(deadline):
        async with http_client(token) as http:
            options = {"mode": mode} if mode else {}
            async with Client(streamable_http_client(url, http_client=http), **options) as client:
                yield client


def raw_request(port: int, head: str, body: bytes = b"", timeout: float = 10.0) -> tuple[int, bytes]:
    """Send a hand-written HTTP/1.1 request on a fresh socket; return (status, raw response)."""
    import socket
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode("latin-1") + b"\r\n\r\n" + body)
        data = b""
        with contextlib.suppress(OSError):
            while not _complete(data):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data


def _complete(data: bytes) -> bool:
    """Whether ``data`` holds a whole response: headers, and the body if a Content-Length says how long."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return True
