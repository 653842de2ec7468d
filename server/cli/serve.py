"""``ctxnotes serve``: the MCP server over stdio (default) or streamable HTTP (``--http``)."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..http_security import HttpLimits, capped_http_protocol, harden, normalise_allowed_hosts, transport_security

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
log = logging.getLogger("ctxnotes.server")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve", help="serve notes, memory and build_context over MCP (stdio, or --http)",
        description="Run the ctxnotes MCP server. Default: stdio (for clients that spawn the server). "
                    "--http: streamable HTTP at http://HOST:PORT/mcp for several clients at once.")
    p.add_argument("--workspace", "-w", metavar="DIR", default=argparse.SUPPRESS,
                   help="workspace folder (default: $CTXNOTES_WORKSPACE, else ./workspace)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind with --http (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port with --http (default {DEFAULT_PORT})")
    p.add_argument("--tools", metavar="GROUPS", default=None,
                   help="comma list of tool groups to serve: notes, memory, context, admin (default all; "
                        "also CTXNOTES_TOOLS or 'tools:' in .ctxnotes.yaml)")
    p.add_argument("--token", default=None,
                   help="require 'Authorization: Bearer TOKEN' (default: $CTXNOTES_TOKEN); "
                        "mandatory when binding a non-loopback address")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a host name clients use to reach the server (repeatable); IP addresses and localhost "
                        "are always accepted, any other Host/Origin name is refused (DNS-rebinding protection)")
    p.add_argument("--port-file", metavar="FILE", default=None,
                   help="write the port actually bound to FILE once the server accepts connections "
                        "(useful with --port 0, which picks a free port)")
    d = HttpLimits()
    limits = p.add_argument_group("HTTP limits (with --http)")
    limits.add_argument("--max-connections", type=int, default=d.max_connections, metavar="N",
                        help="connections served at once; up to as many again get 503, further ones are closed "
                             f"on arrival (default {d.max_connections})")
    limits.add_argument("--max-body-bytes", type=int, default=d.max_body_bytes, metavar="BYTES",
                        help=f"largest request body; larger gets 413 (default {d.max_body_bytes})")
    limits.add_argument("--max-buffered-bytes", type=int, default=d.max_buffered_bytes, metavar="BYTES",
                        help="request bytes buffered across all requests in flight; beyond it requests get 503 "
                             f"(default {d.max_buffered_bytes})")
    limits.add_argument("--body-timeout", type=float, default=d.body_timeout, metavar="SECONDS",
                        help=f"a request body must arrive within this, else 408 (default {d.body_timeout:g})")
    limits.add_argument("--header-timeout", type=float, default=d.header_timeout, metavar="SECONDS",
                        help=f"a new connection must send its request headers within this, else it is closed "
                             f"(default {d.header_timeout:g})")
    limits.add_argument("--max-sessions", type=int, default=d.max_sessions, metavar="N",
                        help=f"open MCP sessions; a new one beyond them gets 503 (default {d.max_sessions})")
    limits.add_argument("--session-idle-timeout", type=float, default=d.session_idle_timeout, metavar="SECONDS",
                        help=f"close a session idle this long (default {d.session_idle_timeout:g})")
    limits.add_argument("--stateless", action="store_true",
                        help="no MCP sessions: every request stands alone (no session table to fill; "
                             "no server-to-client requests or resource subscriptions)")
    limits.add_argument("--json-response", action=argparse.BooleanOptionalAction, default=True,
                        help="answer each request with one JSON body instead of an SSE stream (default on: the "
                             "SDK client caps one SSE event at 1 MiB, a JSON body has no such cap)")
    p.set_defaults(handler=serve, no_workspace=True)


def serve(args: argparse.Namespace, _ws: Any) -> tuple[Any, Any]:
    # ValueError, not cli.CommandError: under `python -m server.cli` that class exists twice (__main__ and
    # server.cli) and only ValueError is caught by both.
    from . import workspace_path
    workspace = workspace_path(getattr(args, "workspace", None)).expanduser().resolve()
    if args.http:
        token = args.token or os.environ.get("CTXNOTES_TOKEN") or None
        from ..http_security import is_loopback
        if not is_loopback(args.host) and not token:
            raise ValueError(f"refusing to serve on {args.host} without a token: anyone who can reach it could "
                               "read and delete notes. Pass --token TOKEN (or set CTXNOTES_TOKEN), or bind "
                               "127.0.0.1")
        if not 0 <= args.port < 65536:
            raise ValueError(f"--port {args.port} is not a valid port (1-65535, or 0 for any free port)")
        options = HttpOptions(host=args.host, port=args.port, token=token,
                              allowed_hosts=tuple(args.allowed_host), port_file=args.port_file,
                              stateless=args.stateless, json_response=args.json_response,
                              limits=HttpLimits(max_connections=args.max_connections,
                                                max_body_bytes=args.max_body_bytes,
                                                max_buffered_bytes=args.max_buffered_bytes,
                                                body_timeout=args.body_timeout, header_timeout=args.header_timeout,
                                                max_sessions=args.max_sessions,
                                                session_idle_timeout=args.session_idle_timeout))
        options.check()
        run_http(workspace, options, _opener(args), tools=args.tools)
    else:
        run_stdio(workspace, _opener(args), tools=args.tools)
    return None, None


def _opener(args: argparse.Namespace) -> Callable[[Path], Any]:
    """How the server opens its workspace: with the CLI's Git setting, and a background watcher
    so that edits made behind the server's back are picked up off the request path."""
    git_autocommit = getattr(args, "git_autocommit", None)

    def open_for_serving(path: Path) -> Any:
        from notes_store import open_workspace
        ws = open_workspace(path, git_autocommit=git_autocommit)
        ws.start_watching()
        return ws

    return open_for_serving


def run_stdio(workspace: Any, opener: Callable[[Path], Any] | None = None, tools: str | None = None) -> None:
    from ..app import create_server
    from ..state import WorkspaceHandle
    server: Any = create_server(workspace, handle=WorkspaceHandle(workspace, opener=opener), tools=tools)
    _warm_up_after_tools_list(server)
    try:
        server.run()
    finally:
        server.workspace_handle.close()


def _warm_up_after_tools_list(server: Any, fallback_delay: float = 3.0) -> None:
    """Open the workspace in the background once tools/list has been answered (opening a large workspace
    while the client is still listing tools would only slow that answer down), or after a few seconds."""
    handle = server.workspace_handle
    list_tools = server.list_tools

    async def list_tools_then_warm_up() -> Any:
        tools = await list_tools()
        handle.warm_up()
        return tools

    server.list_tools = list_tools_then_warm_up
    handle.warm_up(delay=fallback_delay)


@dataclass(frozen=True)
class HttpOptions:
    """Everything ``serve --http`` needs besides the workspace."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    port_file: str | None = None
    stateless: bool = False
    json_response: bool = True
    limits: HttpLimits = field(default_factory=HttpLimits)

    def check(self) -> None:
        """Raise ValueError naming the flag when an option is unusable."""
        self.limits.check()
        normalise_allowed_hosts(self.allowed_hosts)


def bind_listener(host: str, port: int) -> socket.socket:
    """Bind and listen here, so ``--port 0`` learns its port without a bind-and-release race.

    The protocol is named (``IPPROTO_TCP``, not 0): asyncio turns Nagle off (``TCP_NODELAY``) only on
    sockets whose ``proto`` says TCP, and uvicorn writes a response's head and body in two sends. With
    Nagle on, the body waited for the client's delayed ACK of the head: ~40 ms added to every HTTP call.
    ``TCP_NODELAY`` on the listener too, which Linux passes on to accepted connections.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host} port {port}: {exc.strerror or exc}; "
                         "choose another --port (0 picks a free one) or --host") from None
    sock.set_inheritable(True)
    return sock


def _announce(options: HttpOptions, port: int, workspace: Any) -> None:
    host, token = options.host, options.token
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    print(f"ctxnotes: MCP server (streamable HTTP) at {url}\n"
          f"ctxnotes: listening on port {port}\n"
          f"ctxnotes: workspace {workspace}\n"
          f"ctxnotes: connect a client to {url}"
          + (" with header 'Authorization: Bearer <token>'" if token else " (no token: loopback only)") + "\n"
          f"ctxnotes:   e.g. npx @modelcontextprotocol/inspector --cli {url} --transport http"
          + (" --header \"Authorization: Bearer $CTXNOTES_TOKEN\"" if token else "") + " --method tools/list\n"
          f"ctxnotes:   or in Python: Client(\"{url}\")" + (" with an httpx client sending the header" if token else ""),
          file=sys.stderr, flush=True)
    if options.port_file:
        tmp = f"{options.port_file}.tmp-{os.getpid()}"
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(f"{port}\n")
        os.replace(tmp, options.port_file)  # readers never see a half-written number


def _mount_metrics(server: Any) -> None:
    """GET /metrics from ``server.metrics`` when that module exists (behind the same Host/token checks)."""
    try:
        from ..metrics import metrics_endpoint  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return
    server.custom_route("/metrics", methods=["GET"])(metrics_endpoint)


def run_http(workspace: Any, options: HttpOptions, opener: Callable[[Path], Any] | None = None,
             tools: str | None = None) -> None:
    import uvicorn

    from ..app import create_server
    from ..state import WorkspaceHandle, load_tokenizer
    limits = options.limits
    sock = bind_listener(options.host, options.port)
    port = sock.getsockname()[1]
    server: Any = create_server(workspace, handle=WorkspaceHandle(workspace, opener=opener), tools=tools)
    _mount_metrics(server)
    mcp_app: Any = server.streamable_http_app(
        streamable_http_path="/mcp", host=options.host, transport_security=transport_security(),
        json_response=options.json_response, stateless_http=options.stateless,
        max_request_body_size=limits.max_body_bytes, max_sessions=limits.max_sessions,
        session_idle_timeout=limits.session_idle_timeout)
    app = harden(mcp_app, allowed_hosts=options.allowed_hosts, token=options.token, limits=limits)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                _announce(options, port, workspace)

    # uvicorn counts the connection being answered too: +1 so that max_connections are served.
    # No access log: at log level "warning" it prints nothing anyway, but each request would still
    # build its line's arguments (client address, path) before the logger drops it.
    config = uvicorn.Config(app, log_level="warning", lifespan="on", limit_concurrency=limits.max_connections + 1,
                            http=capped_http_protocol(limits), timeout_graceful_shutdown=5, access_log=False)
    # Several clients may start at once: load the tokenizer before the first request is read, not
    # (as the stdio warm-up does, a second after the workspace opens) in the middle of their calls,
    # where its quarter second of GIL would be every inline search's wait.
    load_tokenizer()
    server.workspace_handle.warm_up()
    try:
        AnnouncingServer(config).run(sockets=[sock])
    finally:
        sock.close()
        server.workspace_handle.close()
