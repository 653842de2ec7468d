"""``ctxnotes serve``: the MCP server over stdio (default) or streamable HTTP (``--http``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable

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
    p.add_argument("--token", default=None,
                   help="require 'Authorization: Bearer TOKEN' (default: $CTXNOTES_TOKEN); "
                        "mandatory when binding a non-loopback address")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="extra Host name clients use to reach a non-loopback bind (DNS-rebinding allow-list)")
    p.set_defaults(handler=serve, no_workspace=True)


def serve(args: argparse.Namespace, _ws: Any) -> tuple[Any, Any]:
    # ValueError, not cli.CommandError: under `python -m server.cli` that class exists twice (__main__ and
    # server.cli) and only ValueError is caught by both.
    from .cli import workspace_path
    workspace = workspace_path(getattr(args, "workspace", None)).expanduser().resolve()
    if args.http:
        token = args.token or os.environ.get("CTXNOTES_TOKEN") or None
        from .http_security import is_loopback
        if not is_loopback(args.host) and not token:
            raise ValueError(f"refusing to serve on {args.host} without a token: anyone who can reach it could "
                               "read and delete notes. Pass --token TOKEN (or set CTXNOTES_TOKEN), or bind "
                               "127.0.0.1")
        if not 0 < args.port < 65536:
            raise ValueError(f"--port {args.port} is not a valid port (1-65535)")
        run_http(workspace, args.host, args.port, token, args.allowed_host, _opener(args))
    else:
        run_stdio(workspace, _opener(args))
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


def run_stdio(workspace: Any, opener: Callable[[Path], Any] | None = None) -> None:
    from .app import create_server
    from .mcp_state import WorkspaceHandle
    server = create_server(workspace, handle=WorkspaceHandle(workspace, opener=opener))
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


def run_http(workspace: Any, host: str, port: int, token: str | None, allowed_hosts: list[str],
             opener: Callable[[Path], Any] | None = None) -> None:
    import uvicorn

    from .app import create_server
    from .http_security import BearerTokenMiddleware, transport_security
    from .mcp_state import WorkspaceHandle
    server = create_server(workspace, handle=WorkspaceHandle(workspace, opener=opener))
    app: Any = server.streamable_http_app(streamable_http_path="/mcp", host=host,
                                          transport_security=transport_security(host, allowed_hosts))
    if token:
        app = BearerTokenMiddleware(app, token)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    print(f"ctxnotes: MCP server (streamable HTTP) at {url}\n"
          f"ctxnotes: workspace {workspace}\n"
          f"ctxnotes: connect a client to {url}"
          + (" with header 'Authorization: Bearer <token>'" if token else " (no token: loopback only)") + "\n"
          f"ctxnotes:   e.g. npx @modelcontextprotocol/inspector --cli {url} --transport http"
          + (" --header \"Authorization: Bearer $CTXNOTES_TOKEN\"" if token else "") + " --method tools/list\n"
          f"ctxnotes:   or in Python: Client(\"{url}\")" + (" with an httpx client sending the header" if token else ""),
          file=sys.stderr, flush=True)
    server.workspace_handle.warm_up()
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
    finally:
        server.workspace_handle.close()
