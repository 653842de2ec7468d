"""Streamable HTTP hardening, applied before the MCP app sees a request.

Three ASGI layers, outermost first (``harden`` stacks them):

1. ``HostOriginMiddleware``: DNS-rebinding protection on every bind. A browser tricked into talking to
   the server arrives with an attacker's DNS name in ``Host``/``Origin``; IP literals and ``localhost``
   cannot be rebound, so those are accepted, plus the names given with ``--allowed-host``.
2. ``BearerTokenMiddleware``: ``Authorization: Bearer <token>``, checked on the headers alone, so an
   unauthenticated request is refused before a byte of its body is read.
3. ``BodyBudgetMiddleware``: reads the body itself, bounded per request, across all requests in flight,
   and in time, so stalled uploads cannot grow the server's memory without limit.
4. ``SessionLimitMessage``: the SDK's bare "Too many open sessions" (503) says which limit and how to change it,
   and its 400 for a body that is not a JSON-RPC message says what is wrong in our words.
5. ``CancelOnDisconnectMiddleware``: a client that hangs up before its answer has its request cancelled, as
   if it had sent ``notifications/cancelled``, so abandoned work (a long ``build_context``) stops.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
BODY_METHODS = (b"POST", b"PUT", b"PATCH")
log = logging.getLogger("ctxnotes.server")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` exposes the server to this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def normalise_allowed_hosts(names: Iterable[str]) -> frozenset[str]:
    """``--allowed-host`` values as lower-case names (a ``:port`` suffix is ignored: ports are not checked)."""
    out = set()
    for raw in names:
        name = raw.strip().lower()
        if any(c in name for c in "/ @?#"):
            name = ""
        elif name.startswith("["):
            name = name[1:].split("]", 1)[0]
        elif name.count(":") == 1:
            name = name.split(":", 1)[0]
        if not name:
            raise ValueError(f"--allowed-host {raw!r} is not a host name; give a name such as notes.lan")
        out.add(name)
    return frozenset(out)


def split_host_header(value: str) -> str | None:
    """The host part of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), or None if malformed."""
    value = value.strip()
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return host.lower() if _is_ip_literal(host) else None
    host, sep, port = value.partition(":")
    if sep and not port.isdigit():
        return None
    return host.lower() or None


def name_allowed(host: str, allowed: frozenset[str]) -> bool:
    """IP literals and ``localhost`` (nothing can rebind them), plus the ``--allowed-host`` names."""
    return host == "localhost" or _is_ip_literal(host) or host in allowed


def host_header_allowed(value: str | None, allowed: frozenset[str]) -> bool:
    host = split_host_header(value) if value else None
    return host is not None and name_allowed(host, allowed)


def origin_allowed(value: str | None, allowed: frozenset[str]) -> bool:
    """No ``Origin`` (not a browser) passes; otherwise ``http(s)://HOST[:PORT]`` with an allowed HOST."""
    if value is None:
        return True
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or parts.username or parts.password or parts.path not in ("", "/") \
            or parts.query or parts.fragment or not parts.hostname:
        return False
    return name_allowed(parts.hostname, allowed)


def transport_security() -> Any:
    """Settings for the SDK's own Host/Origin check: off, because ``HostOriginMiddleware`` applies one rule
    to every bind (the SDK's list cannot say "any IP literal" and only guards loopback binds by itself)."""
    from mcp.server.transport_security import TransportSecuritySettings  # here: keeps CLI start-up light
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json_error(send: Send, status: int, error: str, description: str,
                          extra_headers: Iterable[tuple[bytes, bytes]] = (), close: bool = False) -> None:
    """A small JSON error response.

    ``close`` ends the connection (for refusals of big or stalled bodies, to stop the upload). Refusals made
    on the headers keep it open: the server then discards the body as it arrives instead of buffering it,
    and the client reads the answer without racing a TCP reset caused by its unread body.
    """
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               *extra_headers]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HostOriginMiddleware:
    """Refuse a foreign ``Host`` (421) or ``Origin`` (403) before anything else runs, on every bind."""

    KNOWN_HOSTS = 64  # Host header values whose verdict is kept (clients send the same one on every call)

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = normalise_allowed_hosts(allowed_hosts)
        self._hosts: dict[str, bool] = {}

    def _host_allowed(self, host: str | None) -> bool:
        if host is None:
            return False
        verdict = self._hosts.get(host)
        if verdict is None:  # parsing an IP literal is most of this layer's time: once per distinct value
            verdict = host_header_allowed(host, self.allowed)
            if len(self._hosts) >= self.KNOWN_HOSTS:
                self._hosts.clear()
            self._hosts[host] = verdict
        return verdict

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self._host_allowed(host):
            await send_json_error(send, 421, "invalid_host",
                                  f"Host {host!r} is not accepted: this server answers IP addresses, localhost and "
                                  "the names given with --allowed-host (DNS-rebinding protection); "
                                  "restart it with --allowed-host NAME to use a host name")
            return
        origin = _header(scope, b"origin")
        if not origin_allowed(origin, self.allowed):
            await send_json_error(send, 403, "invalid_origin",
                                  f"Origin {origin!r} is not accepted: only http(s) origins on an IP address, "
                                  "localhost or an --allowed-host name may call this server")
            return
        await self.app(scope, receive, send)


class BearerTokenMiddleware:
    """Require ``Authorization: Bearer <token>`` on every HTTP request (401 otherwise, body unread)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("token must not be empty")
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan, websocket handshake refused by the app itself
            await self.app(scope, receive, send)
            return
        given = (_header(scope, b"authorization") or "").strip().encode("latin-1")
        if given and hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        message = "missing bearer token" if not given else "invalid bearer token"
        await send_json_error(send, 401, "invalid_token",
                              f"{message}: send 'Authorization: Bearer <token>' (the token given to ctxnotes serve)",
                              [(b"www-authenticate", b'Bearer realm="ctxnotes", error="invalid_token"')])


@dataclass(frozen=True)
class HttpLimits:
    """Resource caps of the HTTP server; every one is a ``ctxnotes serve`` flag."""

    max_connections: int = 64            # --max-connections: uvicorn answers 503 beyond it
    max_body_bytes: int = 4 << 20        # --max-body-bytes: one request body (413 beyond)
    max_buffered_bytes: int = 64 << 20   # --max-buffered-bytes: all bodies in flight together (503 beyond)
    body_timeout: float = 30.0           # --body-timeout: a body must arrive within this (408 after)
    max_sessions: int = 256              # --max-sessions: stateful MCP sessions (503 beyond)
    session_idle_timeout: float = 600.0  # --session-idle-timeout: an idle session is closed after this
    header_timeout: float = 10.0         # --header-timeout: a new connection must send its request head by then

    @property
    def max_open_connections(self) -> int:
        """Open TCP connections at most: ``max_connections`` served, as many again answered 503, then closed."""
        return 2 * self.max_connections

    def check(self) -> None:
        """Raise ValueError naming the flag when a limit is unusable."""
        for flag, value in (("--max-connections", self.max_connections), ("--max-body-bytes", self.max_body_bytes),
                            ("--max-buffered-bytes", self.max_buffered_bytes),
                            ("--max-sessions", self.max_sessions)):
            if value <= 0:
                raise ValueError(f"{flag} {value} must be a positive number")
        for flag, seconds in (("--body-timeout", self.body_timeout), ("--header-timeout", self.header_timeout),
                              ("--session-idle-timeout", self.session_idle_timeout)):
            if not (math.isfinite(seconds) and seconds > 0):
                raise ValueError(f"{flag} {seconds:g} must be a positive number of seconds")
        if self.max_buffered_bytes < self.max_body_bytes:
            raise ValueError(f"--max-buffered-bytes {self.max_buffered_bytes} is smaller than --max-body-bytes "
                             f"{self.max_body_bytes}: no request of the maximum size could ever be accepted")


class _Deadline:
    """``with _Deadline(seconds) as d``: the block is cancelled after ``seconds`` (``d.expired`` then says so),
    and nothing else is (another cancellation passes through).

    On the running asyncio loop a timer and the task's own cancellation (what ``asyncio.timeout`` does, for
    Python 3.10 too): ``anyio.move_on_after`` costs several times that (it looks the async library up and
    walks its cancel scopes), on every request."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[Any] | None = None
        self._cancelling = 0

    def _expire(self) -> None:
        self.expired = True
        assert self._task is not None
        self._task.cancel()

    def __enter__(self) -> _Deadline:
        self._task = asyncio.current_task()
        assert self._task is not None
        cancelling = getattr(self._task, "cancelling", None)  # 3.11+: cancel requests already pending
        self._cancelling = cancelling() if cancelling is not None else 0
        self._timer = asyncio.get_running_loop().call_later(self.seconds, self._expire)
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        assert self._timer is not None and self._task is not None
        self._timer.cancel()
        if not self.expired:
            return False
        uncancel = getattr(self._task, "uncancel", None)  # 3.11+: take back the cancel request it made
        remaining = uncancel() if uncancel is not None else 0
        # Swallowed only when the cancellation is its own (no other request came meanwhile).
        return kind is asyncio.CancelledError and remaining <= self._cancelling


class BodyBudgetMiddleware:
    """Read request bodies here, within a per-request cap, a shared byte budget and a deadline.

    A declared ``Content-Length`` is reserved from the budget before reading, so stalled uploads cannot
    together hold more than ``max_buffered_bytes``; chunked bodies are charged as they arrive. The
    reservation lasts until the app has answered (the app keeps the body that long). The inner app gets
    the whole body in one message.
    """

    def __init__(self, app: ASGIApp, limits: HttpLimits) -> None:
        self.app = app
        self.limits = limits
        self.buffered = 0  # bytes reserved by requests in flight (one event loop: no lock needed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "").encode() not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        limits = self.limits
        declared_text = _header(scope, b"content-length")
        declared = 0
        if declared_text is not None:
            if not declared_text.strip().isdigit():
                await send_json_error(send, 400, "invalid_request", f"Content-Length {declared_text!r} is not a number")
                return
            declared = int(declared_text)
        if declared > limits.max_body_bytes:
            await self._too_large(send)
            return
        if self.buffered + declared > limits.max_buffered_bytes:
            await self._busy(send)
            return
        reserved = declared
        self.buffered += reserved
        try:
            chunks: list[bytes] = []
            size = 0
            with _Deadline(limits.body_timeout) as deadline:
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limits.max_body_bytes:
                        await self._too_large(send)
                        return
                    if size > reserved:  # chunked, or more than declared: charge the difference now
                        if self.buffered + size - reserved > limits.max_buffered_bytes:
                            await self._busy(send)
                            return
                        self.buffered += size - reserved
                        reserved = size
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
            if deadline.expired:
                await send_json_error(send, 408, "request_timeout",
                                      f"the request body did not arrive within {limits.body_timeout:g} s "
                                      "(--body-timeout); send it in one go", close=True)
                return
            body = b"".join(chunks)
            del chunks
            replayed = False

            async def replay() -> dict[str, Any]:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send)
        finally:
            self.buffered -= reserved

    async def _too_large(self, send: Send) -> None:
        await send_json_error(send, 413, "request_too_large",
                              f"request body over the limit of {self.limits.max_body_bytes} bytes "
                              "(--max-body-bytes); send less per call (a note's content is capped separately)",
                              close=True)

    async def _busy(self, send: Send) -> None:
        log.warning("refusing a request: %d bytes of request bodies already buffered (--max-buffered-bytes %d)",
                    self.buffered, self.limits.max_buffered_bytes)
        await send_json_error(send, 503, "server_busy",
                              f"too many request bytes in flight (over {self.limits.max_buffered_bytes} bytes, "
                              "--max-buffered-bytes); retry shortly", [(b"retry-after", b"1")], close=True)


class CancelOnDisconnectMiddleware:
    """Cancel the JSON-RPC requests of a POST whose client disconnects before the response is complete.

    The SDK keeps a session's requests running when their HTTP connection goes (the session outlives it), so a
    client that gave up would leave its work burning CPU. On a disconnect this layer posts
    ``notifications/cancelled`` for each request id of the body to the same session, exactly what a polite
    client sends. Without a session (``--stateless``, or an ``initialize``) it cancels the request's own
    handling instead, which ends the per-request server and the work it started.
    """

    def __init__(self, app: ASGIApp, cancel_timeout: float = 10.0, watch_after: float = 0.05) -> None:
        self.app = app
        self.cancel_timeout = cancel_timeout
        self.watch_after = watch_after

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        in_session = bool(_header(scope, b"mcp-session-id"))
        original = dict(scope)  # the app's router adds keys to the scope it is given
        first = await receive()
        if first["type"] != "http.request" or first.get("more_body", False):  # not one whole body: stay out
            await self.app(scope, _replaying(first, receive), send)
            return
        body = bytes(first.get("body", b""))
        disconnected = asyncio.Event()
        answered = False
        given = False
        handling = None if in_session else anyio.CancelScope()  # only a sessionless request is cancelled so

        async def app_receive() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return first
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True
            await send(message)

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            disconnected.set()
            if answered:
                return
            if handling is not None:
                log.info("client disconnected before the answer: cancelling its sessionless request")
                handling.cancel()
                return
            with anyio.CancelScope(shield=True), anyio.move_on_after(self.cancel_timeout):
                await self._cancel(original, body)

        # The watcher is a plain task, not a task group's: a task group per request (its cancel scope
        # formats the task's repr when it cancels the watcher) was 4-5% of the event loop under load.
        # It starts only once the request has run ``watch_after`` seconds: most are answered sooner, and
        # a hang-up before then is still seen (the server keeps it for the watcher's first receive).
        loop = asyncio.get_running_loop()
        watcher: asyncio.Task[None] | None = None

        def start_watching() -> None:
            nonlocal watcher
            watcher = loop.create_task(watch())
            _watchers.add(watcher)
            watcher.add_done_callback(_watch_done)

        timer = loop.call_later(self.watch_after, start_watching)
        try:
            if handling is None:
                await self.app(scope, app_receive, tracking_send)
            else:
                with handling:
                    await self.app(scope, app_receive, tracking_send)
        finally:
            timer.cancel()
            if watcher is not None and not disconnected.is_set():  # a disconnect no longer matters
                watcher.cancel()

    async def _cancel(self, scope: Scope, body: bytes) -> None:
        ids = _request_ids(body)
        if not ids:
            return
        log.info("client disconnected before the answer: cancelling request(s) %s", ids)
        for rid in ids:
            notice = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": rid, "reason": "client disconnected"}}).encode()
            try:
                await self._post(scope, notice)
            except Exception:  # the session may have ended meanwhile: nothing left to cancel
                log.debug("could not cancel request %r", rid, exc_info=True)

    async def _post(self, scope: Scope, body: bytes) -> None:
        """POST ``body`` to the app with the original request's headers (session, auth); discard the answer."""
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))

        async def discard(message: dict[str, Any]) -> None:
            return None

        await self.app({**scope, "headers": headers}, _replaying({"type": "http.request", "body": body,
                                                                   "more_body": False}, _disconnected), discard)


_watchers: set[asyncio.Task[None]] = set()  # running watchers (the loop keeps only weak references)


def _watch_done(task: asyncio.Task[None]) -> None:
    _watchers.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.warning("disconnect watcher failed", exc_info=task.exception())


async def _disconnected() -> dict[str, Any]:
    return {"type": "http.disconnect"}


class SessionLimitMessage:
    """The SDK's bare error texts rewritten in our words: the 503 for a full session table names the limit
    and how to change it; the 400 for a body that is not JSON or not a JSON-RPC message says what is wrong
    with it, instead of the parser's raw text (and a link to pydantic's documentation)."""

    BARE = b"Too many open sessions"
    BAD_REQUEST = (b"Validation error:", b"Parse error:")

    def __init__(self, app: ASGIApp, limits: HttpLimits) -> None:
        self.app = app
        self.message = (f"too many open MCP sessions ({limits.max_sessions}, --max-sessions "
                        f"{limits.max_sessions}); idle ones close after {limits.session_idle_timeout:g} s "
                        "(--session-idle-timeout); retry later, or run the server with --stateless")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session_limit = not _header(scope, b"mcp-session-id")
        held: dict[str, Any] | None = None
        chunks: list[bytes] = []  # the request body (already bounded by BodyBudgetMiddleware)

        async def keeping_receive() -> dict[str, Any]:
            message = await receive()
            if message.get("type") == "http.request":
                chunks.append(message.get("body", b""))
            return message

        async def rewriting_send(message: dict[str, Any]) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and (message.get("status") == 400 or (
                    session_limit and message.get("status") == 503)):
                held = message  # wait for the body: only the texts above are rewritten
                return
            if held is not None and message["type"] == "http.response.body":
                start, held = held, None
                body = message.get("body", b"")
                new: str | None = None
                if not message.get("more_body", False):
                    if start.get("status") == 503 and self.BARE in body:
                        new = self.message
                    elif start.get("status") == 400 and any(b in body for b in self.BAD_REQUEST):
                        new = request_problem(b"".join(chunks))
                if new is not None:
                    try:
                        data = json.loads(body)
                        data["error"]["message"] = new
                        body = json.dumps(data).encode()
                    except (ValueError, KeyError, TypeError):
                        pass
                    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                    start = {**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
                    message = {**message, "body": body}
                await send(start)
            await send(message)

        await self.app(scope, keeping_receive, rewriting_send)


def request_problem(body: bytes) -> str:
    """What is wrong with a request body the MCP endpoint refused, in our words."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        return f"the request body is not valid JSON{where}: send one JSON-RPC 2.0 message (or a batch)"
    messages = data if isinstance(data, list) else [data]
    for i, msg in enumerate(messages):
        at = f"message {i}: " if isinstance(data, list) else ""
        if not isinstance(msg, dict):
            return f"{at}a JSON-RPC message must be an object; got {type(msg).__name__}"
        if msg.get("jsonrpc") != "2.0":
            return f"{at}'jsonrpc' must be \"2.0\"; got {json.dumps(msg.get('jsonrpc'))}"
        if "method" in msg and not isinstance(msg["method"], str):
            return f"{at}'method' must be a string; got {json.dumps(msg['method'])[:60]}"
        if "id" in msg and (isinstance(msg["id"], bool) or not isinstance(msg["id"], (str, int))):
            return f"{at}'id' must be a string or a whole number; got {json.dumps(msg['id'])[:60]}"
        if "params" in msg and not isinstance(msg["params"], dict):
            return f"{at}'params' must be an object; got {json.dumps(msg['params'])[:60]}"
        known = {"jsonrpc", "id", "method", "params", "result", "error"}
        extra = sorted(set(msg) - known)
        if extra:
            return f"{at}unknown key(s) {', '.join(map(repr, extra))}: a JSON-RPC message takes " \
                   f"{', '.join(sorted(known))}"
        if "method" not in msg and "result" not in msg and "error" not in msg:
            return f"{at}not a JSON-RPC request, notification or response: it needs a 'method' (requests and " \
                   "notifications) or a 'result' or 'error' (responses)"
    return ("not a valid JSON-RPC 2.0 message: a request is {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "
            "\"...\", \"params\": {...}}")


def _replaying(first: dict[str, Any], receive: Receive) -> Receive:
    given = False

    async def replay() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return first
        return await receive()
    return replay


def _request_ids(body: bytes) -> list[Any]:
    """The ids of the JSON-RPC requests (not notifications or responses) in a POST body."""
    try:
        data = json.loads(body)
    except ValueError:
        return []
    messages = data if isinstance(data, list) else [data]
    return [m["id"] for m in messages if isinstance(m, dict) and "method" in m and m.get("id") is not None
            and isinstance(m["id"], (str, int))]


class CoalescingTransport:
    """An asyncio transport whose writes made in one event-loop turn leave in one ``send``.

    uvicorn writes a response's head and its body separately; each write is a system call (and on
    loopback the kernel delivers to the reader inside it), the costliest part of the event loop's work
    per request here. Joined at the end of the turn, a response is one send. ``close`` and ``write_eof``
    flush first; ``abort`` drops what is held, as the transport's own buffer would be dropped; anything
    else is the wrapped transport's.
    """

    def __init__(self, transport: Any, loop: Any) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self._held.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, chunks: Iterable[bytes]) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        """Hand what is held to the transport now."""
        self._scheduled = False
        if self._held:
            data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
            self._held.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._held.clear()
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return int(self._transport.get_write_buffer_size()) + sum(len(c) for c in self._held)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _base_protocol() -> type:
    """uvicorn's httptools protocol (its HTTP parser is C: h11's pure-Python parsing was 6-9% of the event
    loop's time per call under load, ~0.1 ms of server CPU a call), or its h11 protocol without httptools."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
        return HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol
        return H11Protocol


MAX_HEAD_BYTES = 64 << 10  # a request head (request line and headers) at most; h11 allowed 16 KiB


def _head_bounded(base: Any) -> type:
    """``base`` (uvicorn's httptools protocol) answering 400 and closing once a request head passes
    ``MAX_HEAD_BYTES``: httptools keeps a head's URL and header values whole in memory until the head
    ends, with no bound of its own (h11 has one), so one connection could otherwise hold gigabytes."""

    class HeadBoundedProtocol(base):  # type: ignore[misc]
        _in_head = True  # from the connection's start, and again from each request's first byte
        _head_bytes = 0

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._in_head:  # this chunk did not end the head: count it (a chunk that did may hold a body)
                self._head_bytes += len(data)
                if self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                    log.warning("closing a connection: request head over %d bytes", MAX_HEAD_BYTES)
                    self.send_400_response("Request head too large.")

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._in_head, self._head_bytes = True, 0

        def on_headers_complete(self) -> None:
            self._in_head = False
            super().on_headers_complete()

    return HeadBoundedProtocol


def capped_http_protocol(limits: HttpLimits) -> type:
    """uvicorn's HTTP protocol (``_base_protocol``) with two limits uvicorn lacks, both applied per TCP
    connection, and its writes coalesced (``CoalescingTransport``: a response's head and body leave in one
    send).

    uvicorn's ``limit_concurrency`` answers 503 only once a request head has arrived, so connections that
    send nothing (or their head byte by byte) would pile up unbounded. Here a connection beyond
    ``max_open_connections`` is closed as soon as it is accepted, and one that has not completed its first
    request head within ``header_timeout`` seconds is closed.
    """
    base: Any = _base_protocol()
    if base.__name__ == "HttpToolsProtocol":
        base = _head_bounded(base)

    class CappedHttpProtocol(base):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(CoalescingTransport(transport, self.loop))
            if len(self.connections) > limits.max_open_connections:
                log.warning("closing a new connection: %d open (limit %d, --max-connections %d)",
                            len(self.connections) - 1, limits.max_open_connections, limits.max_connections)
                transport.close()
                return
            self.loop.call_later(limits.header_timeout, self._close_if_silent)

        def _close_if_silent(self) -> None:
            if self.cycle is None and not self.transport.is_closing():  # no request head yet
                self.transport.close()

    return CappedHttpProtocol


def harden(app: ASGIApp, *, allowed_hosts: Iterable[str] = (), token: str | None = None,
           limits: HttpLimits | None = None) -> ASGIApp:
    """Wrap the MCP app: Host/Origin first, then the token, the body budget, the session-limit message and
    cancel-on-disconnect."""
    limits = limits or HttpLimits()
    wrapped: ASGIApp = BodyBudgetMiddleware(SessionLimitMessage(CancelOnDisconnectMiddleware(app), limits), limits)
    if token:
        wrapped = BearerTokenMiddleware(wrapped, token)
    return HostOriginMiddleware(wrapped, allowed_hosts)
