"""Prometheus metrics for ``GET /metrics`` (text format, ``prometheus_client``).

- per tool: calls, errors and a latency histogram (``observe_tool_call``, called by ``tools.kit`` for every tool);
- build_context: builds, duration, and the tokens each source got (``observe_build``, from ``build_log``);
- the workspace: indexed items per kind, index generation and size on disk, sessions (read at scrape time
  from the workspace bound with ``bind_workspace``; never opens it: an unopened workspace reports sessions only).

Metrics live in their own registry, so importing this module twice (tests, several servers) never
collides with the process-wide default one.
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger("ctxnotes.server")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REGISTRY = CollectorRegistry(auto_describe=True)
TOOL_CALLS = Counter("ctxnotes_tool_calls", "MCP tool calls, by tool", ["tool"], registry=REGISTRY)
TOOL_ERRORS = Counter("ctxnotes_tool_errors", "MCP tool calls that returned an error, by tool", ["tool"],
                      registry=REGISTRY)
TOOL_SECONDS = Histogram("ctxnotes_tool_call_seconds", "MCP tool call latency, by tool", ["tool"],
                         buckets=LATENCY_BUCKETS, registry=REGISTRY)
BUILD_SECONDS = Histogram("ctxnotes_build_context_seconds", "build_context duration", buckets=LATENCY_BUCKETS,
                          registry=REGISTRY)
BUILD_TOKENS = Counter("ctxnotes_build_context_tokens", "Tokens build_context packed, by source (share = "
                       "this over the sum across sources)", ["source"], registry=REGISTRY)
BUILD_DROPPED = Counter("ctxnotes_build_context_dropped_items", "Items build_context left out, by source",
                        ["source"], registry=REGISTRY)
BUILD_BUDGET = Counter("ctxnotes_build_context_budget_tokens", "Sum of build_context budgets (tokens)",
                       registry=REGISTRY)


_per_tool: dict[str, tuple[Any, Any, Any]] = {}  # each tool's (calls, latency, errors) children


def observe_tool_call(name: str, seconds: float, is_error: bool) -> None:
    """Count one tool call and its latency (each tool's labelled children looked up once, not per call)."""
    children = _per_tool.get(name)
    if children is None:
        children = _per_tool[name] = (TOOL_CALLS.labels(tool=name), TOOL_SECONDS.labels(tool=name),
                                      TOOL_ERRORS.labels(tool=name))
    children[0].inc()
    children[1].observe(max(0.0, seconds))
    if is_error:
        children[2].inc()


def observe_build(summary: dict[str, Any]) -> None:
    """Count one build_context from its ``build_log`` summary."""
    BUILD_SECONDS.observe(max(0.0, float(summary.get("seconds") or 0.0)))
    BUILD_BUDGET.inc(max(0, int(summary.get("budget") or 0)))
    for source, s in (summary.get("sources") or {}).items():
        BUILD_TOKENS.labels(source=source).inc(max(0, int(s.get("tokens") or 0)))
        BUILD_DROPPED.labels(source=source).inc(max(0, int(s.get("dropped") or 0)))


# -- the workspace, read at scrape time -------------------------------------------------------------------

_bound: Any = None
_bound_lock = threading.Lock()


def bind_workspace(handle: Any) -> None:
    """The workspace /metrics describes: a ``WorkspaceHandle`` (``.path``, ``.is_open``, ``.get()``) or a path."""
    global _bound
    with _bound_lock:
        _bound = handle


def _dir_bytes(folder: Path) -> int:
    total = 0
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                    elif entry.is_dir(follow_symlinks=False):
                        total += _dir_bytes(Path(entry.path))
                except OSError:
                    continue
    except OSError:
        pass
    return total


def _count_sessions(root: Path) -> int:
    try:
        with os.scandir(root / "sessions") as it:
            return sum(1 for e in it if e.name.endswith(".jsonl") and not e.name.startswith("."))
    except OSError:
        return 0


def _generation(ws: Any) -> int | None:
    index = getattr(ws, "_index", None) or getattr(ws, "index", None)
    value = getattr(index, "generation", None)
    if callable(value):
        value = value()
    if value is None:
        value = getattr(index, "_generation", None)
    return value if isinstance(value, int) else None


class WorkspaceCollector(Collector):
    """Gauges about the bound workspace, computed when Prometheus scrapes."""

    def collect(self) -> Iterator[Metric]:
        handle = _bound
        if handle is None:
            return
        path = getattr(handle, "path", handle)
        root = Path(path).expanduser()
        sessions = GaugeMetricFamily("ctxnotes_sessions", "Conversation sessions in the workspace")
        sessions.add_metric([], _count_sessions(root))
        yield sessions
        index_bytes = GaugeMetricFamily("ctxnotes_index_bytes", "Size of the search index on disk")
        index_bytes.add_metric([], _dir_bytes(root / ".index"))
        yield index_bytes
        if not getattr(handle, "is_open", False):
            return
        try:
            ws = handle.get()
            # Never waits for a commit: a scrape during a burst of writes reports what is committed so far
            # and how many writes wait (the sum is what searches see).
            items = GaugeMetricFamily("ctxnotes_index_items", "Items in the committed search index, by kind",
                                      labels=["kind"])
            pending = 0
            for kind in getattr(ws, "collections", {}) or {}:
                committed, pending = ws.indexed_now(kind)
                items.add_metric([kind], committed)
            yield items
            waiting = GaugeMetricFamily("ctxnotes_index_pending", "Writes searchable but not yet committed to "
                                        "the index")
            waiting.add_metric([], pending)
            yield waiting
            text, limit = ws.backlog
            behind = GaugeMetricFamily("ctxnotes_index_pending_chars", "Characters of indexed text written but "
                                       "not yet committed (writers wait past ctxnotes_index_backlog_limit_chars)")
            behind.add_metric([], text)
            yield behind
            bound = GaugeMetricFamily("ctxnotes_index_backlog_limit_chars", "Uncommitted indexed text past "
                                      "which a write waits for the index (then fails with 'retry')")
            bound.add_metric([], limit)
            yield bound
            gen = _generation(ws)
            if gen is not None:
                g = GaugeMetricFamily("ctxnotes_index_generation", "Searcher generation of the index "
                                      "(bumps when the index changes)")
                g.add_metric([], gen)
                yield g
        except Exception:  # a scrape must never fail because the store is busy or closing
            log.debug("workspace metrics unavailable", exc_info=True)

    def describe(self) -> Iterable[Metric]:
        return []


REGISTRY.register(WorkspaceCollector())


def render() -> bytes:
    """The current metrics in the Prometheus text format."""
    return generate_latest(REGISTRY)


async def metrics_endpoint(request: Any) -> Any:
    """Starlette endpoint for GET /metrics; mount it behind the same bearer-token check as /mcp."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response
    body = await run_in_threadpool(render)
    return Response(body, media_type=CONTENT_TYPE)


def metrics_app(token: str | None) -> Any:
    """A Starlette app serving GET /metrics that itself requires ``Authorization: Bearer <token>`` when a
    token is set (for servers that do not already check the token in front of it)."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def guarded(request: Any) -> Any:
        if token:
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return PlainTextResponse("unauthorized: send Authorization: Bearer <token>", status_code=401,
                                         headers={"WWW-Authenticate": "Bearer"})
        return await metrics_endpoint(request)

    return Starlette(routes=[Route("/metrics", guarded, methods=["GET"])])
