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


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_of(pid: int) -> int:
    """A process's resident memory now, in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS line")


def wait_until_idle(pid: int, *, within: float, window: float = 1.0, max_share: float = 0.25) -> float:
    """Wait until the process uses under ``max_share`` of a core over ``window`` s; fail after ``within`` s.

    Returns the seconds it took. Used to check that abandoned work really stops, not just its reply."""
    started = time.monotonic()
    while True:
        before, t0 = cpu_seconds(pid), time.monotonic()
        time.sleep(window)
        share = (cpu_seconds(pid) - before) / (time.monotonic() - t0)
        if share < max_share:
            return time.monotonic() - started
        assert time.monotonic() - started < within, f"process {pid} still busy ({share:.0%} of a core) after {within:g} s"


class StdioServer:
    """``ctxnotes serve`` over stdio, spoken to in raw JSON-RPC lines by a reader thread.

    Requests may overlap (``send`` then ``wait``), every wait has a deadline, notifications can be sent
    (``notifications/cancelled``), and the process's pid, memory and CPU are at hand. stderr goes to a file.
    """

    def __init__(self, workspace: Path, extra: Sequence[str] = (), env: dict[str, str] | None = None,
                 log_dir: Path | None = None, start_timeout: float = START_TIMEOUT) -> None:
        import json
        import threading
        self._json = json
        log_dir = log_dir or workspace.parent
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"stdio-{os.getpid()}-{time.monotonic_ns()}.log"
        self._err = open(self.log_path, "w+b")
        self.proc = subprocess.Popen([*CLI, "serve", "--workspace", str(workspace), *extra], cwd=REPO,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                     env=clean_env(env))
        self.pid = self.proc.pid
        self._next = 0
        self._lock = threading.Lock()
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition(self._lock)
        self.notifications: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.request("initialize", INIT["params"], timeout=start_timeout)
            self.notify("notifications/initialized")
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            msg = self._json.loads(line)
            with self._arrived:
                if "id" in msg and "method" not in msg:
                    self._replies[msg["id"]] = msg
                else:
                    self.notifications.append(msg)
                self._arrived.notify_all()
        with self._arrived:
            self._arrived.notify_all()

    def _write(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(self._json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._write({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def send(self, method: str, params: dict[str, Any]) -> int:
        """Send a request without waiting; returns its id for ``wait``."""
        with self._lock:
            self._next += 1
            rid = self._next
        self._write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def wait(self, rid: int, timeout: float = 60.0) -> dict[str, Any]:
        """The reply to request ``rid``; fails after ``timeout`` s or if the server dies."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while rid not in self._replies:
                left = deadline - time.monotonic()
                if self.proc.poll() is not None and not self._reader.is_alive():
                    raise AssertionError(f"server exited with {self.proc.returncode}: {self.log()[-2000:]}")
                assert left > 0, f"no reply to request {rid} within {timeout:g} s"
                self._arrived.wait(min(left, 0.5))
            return self._replies.pop(rid)

    def request(self, method: str, params: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        return self.wait(self.send(method, params), timeout)

    def reply_if_any(self, rid: int, timeout: float = 0.0) -> dict[str, Any] | None:
        """The reply to ``rid`` if one arrives within ``timeout`` s, else None (a cancelled request may get none)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while rid not in self._replies and time.monotonic() < deadline:
                self._arrived.wait(max(deadline - time.monotonic(), 0.01))
            return self._replies.pop(rid, None)

    def call(self, name: str, args: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        """A ``tools/call`` result (``isError`` may be set); a JSON-RPC error fails the test."""
        reply = self.request("tools/call", {"name": name, "arguments": args}, timeout)
        assert "result" in reply, reply
        return reply["result"]

    def tool(self, name: str, args: dict[str, Any], timeout: float = 60.0) -> Any:
        """A successful tool call's structured content."""
        result = self.call(name, args, timeout)
        assert not result.get("isError"), result["content"][0]["text"]
        return result["structuredContent"]

    def rss_bytes(self) -> int:
        return rss_of(self.pid)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pid)

    def log(self) -> str:
        """Everything the server wrote to stderr so far."""
        if not self._err.closed:
            self._err.flush()
        return self.log_path.read_text(errors="replace")

    def close(self, timeout: float = 15.0) -> int:
        """Close stdin (the client goes away), then terminate or kill if the server does not exit."""
        with contextlib.suppress(OSError, ValueError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout)
        self._reader.join(timeout)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._err.close()
        return self.proc.returncode
