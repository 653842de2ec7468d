"""The build log (.index/builds.jsonl), ``stats``, and the Prometheus /metrics output and endpoint."""

from __future__ import annotations

import json

import pytest
from prometheus_client.parser import text_string_to_metric_families

from context import build_context
from server import metrics
from server.tools import build_log
from server.state import WorkspaceHandle


def _families(text: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(text)}


def _a_build(max_tokens: int = 400):
    history = [{"role": "user" if i % 2 == 0 else "assistant",
                "content": f"turn {i} about the backfill rate limit and quota number {i}"} for i in range(60)]
    docs = [{"source": "runbook", "content": "The backfill is limited to 2k rows a minute by the API quota."}]
    return build_context("why is the backfill slow?", history=history, documents=docs, max_tokens=max_tokens)


def test_record_build_writes_a_summary_line_per_source(tmp_path):
    result = _a_build()
    summary = build_log.record_build(tmp_path, result, 0.0123, session_id="chat-1")
    assert summary is not None
    line = (tmp_path / ".index" / "builds.jsonl").read_text().splitlines()[-1]
    row = json.loads(line)
    assert row == summary
    assert row["budget"] == result.budget and row["tokens"] == result.tokens and row["session_id"] == "chat-1"
    assert row["query_type"] == result.query_type and row["seconds"] == 0.0123
    hist = row["sources"]["history"]
    assert hist["candidates"] == result.sources["history"]["candidates"] == 60
    assert hist["selected"] == result.sources["history"]["selected"] and hist["dropped"] > 0
    assert hist["tokens"] == result.sources["history"]["tokens"] and hist["dropped_tokens"] > 0
    assert 0 < row["budget_used"] <= 1


def test_stats_totals_and_percentiles(tmp_path):
    result = _a_build()
    for ms in range(1, 101):
        build_log.record_build(tmp_path, result, ms / 1000)
    stats = build_log.build_stats(tmp_path)
    assert stats["builds"] == 100 and stats["session_builds"] == 0
    assert stats["duration_ms"] == {"p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert stats["tokens"] == 100 * result.tokens
    shares = sum(s["token_share"] for s in stats["sources"].values())
    assert abs(shares - 1) < 0.01
    text = build_log.render_stats(stats)
    assert "p95 95.0" in text and "history" in text
    assert build_log.render_stats(build_log.build_stats(tmp_path / "empty")).startswith("No build_context")


def test_the_log_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(build_log, "MAX_LOG_BYTES", 4000)
    result = _a_build()
    for _ in range(200):
        build_log.record_build(tmp_path, result, 0.01)
    index = tmp_path / ".index"
    assert (index / "builds.jsonl").stat().st_size <= 4000
    assert (index / "builds.1.jsonl").stat().st_size <= 4000
    rows = build_log.read_builds(tmp_path)
    assert 0 < len(rows) < 200


def test_a_broken_log_folder_never_fails_the_build(tmp_path):
    (tmp_path / ".index").write_text("not a folder")
    assert build_log.record_build(tmp_path, _a_build(), 0.01) is None


def test_prometheus_text_parses_and_has_the_documented_series(tmp_path):
    metrics.observe_tool_call("note_search", 0.004, False)
    metrics.observe_tool_call("note_search", 0.2, True)
    build_log.record_build(tmp_path, _a_build(), 0.05)
    from notes_store.sessions import SessionStore
    SessionStore(tmp_path).append("s1", [{"role": "user", "content": "hello"}])
    handle = WorkspaceHandle(tmp_path)
    handle.get()  # open: index gauges need an open workspace
    metrics.bind_workspace(handle)
    try:
        fams = _families(metrics.render().decode())
    finally:
        handle.close()
        metrics.bind_workspace(None)
    calls = {s.labels["tool"]: s.value for s in fams["ctxnotes_tool_calls"].samples
             if s.name == "ctxnotes_tool_calls_total"}
    assert calls["note_search"] >= 2
    errors = {s.labels["tool"]: s.value for s in fams["ctxnotes_tool_errors"].samples
              if s.name == "ctxnotes_tool_errors_total"}
    assert errors["note_search"] >= 1
    buckets = [s for s in fams["ctxnotes_tool_call_seconds"].samples
               if s.name.endswith("_bucket") and s.labels["tool"] == "note_search"]
    assert buckets and buckets[-1].labels["le"] == "+Inf" and buckets[-1].value >= 2
    tokens = {s.labels["source"]: s.value for s in fams["ctxnotes_build_context_tokens"].samples
              if s.name == "ctxnotes_build_context_tokens_total"}
    assert tokens.get("history", 0) > 0
    assert fams["ctxnotes_sessions"].samples[0].value == 1
    kinds = {s.labels["kind"] for s in fams["ctxnotes_index_items"].samples}
    assert kinds == {"note", "memory"}
    assert "ctxnotes_index_generation" in fams and "ctxnotes_index_bytes" in fams
    assert fams["ctxnotes_build_context_seconds"].type == "histogram"


async def _get(app, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One GET through an ASGI app, no network (the test client needs httpx, which is not installed)."""
    sent: list[dict] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
             "client": ("127.0.0.1", 1234), "server": ("127.0.0.1", 80)}

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


@pytest.mark.anyio
async def test_metrics_endpoint_function_serves_the_text_format():
    from starlette.applications import Starlette
    from starlette.routing import Route
    app = Starlette(routes=[Route("/metrics", metrics.metrics_endpoint)])
    status, headers, body = await _get(app, "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    assert "ctxnotes_tool_calls" in _families(body.decode())


@pytest.mark.anyio
async def test_metrics_app_requires_the_token():
    app = metrics.metrics_app("s3cret")
    assert (await _get(app, "/metrics"))[0] == 401
    assert (await _get(app, "/metrics", {"Authorization": "Bearer wrong"}))[0] == 401
    status, _, body = await _get(app, "/metrics", {"Authorization": "Bearer s3cret"})
    assert status == 200 and b"ctxnotes_tool_call_seconds" in body


# -- the real HTTP server ---------------------------------------------------------------------------------

def _http_get(url: str, token: str | None = None) -> tuple[int, str]:
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_served_metrics_require_the_same_token_as_mcp(http_server):
    srv = http_server("--token", "s3cret")
    base = srv.url.rsplit("/mcp", 1)[0]
    assert _http_get(base + "/metrics")[0] == 401
    assert _http_get(base + "/metrics", "wrong")[0] == 401
    status, text = _http_get(base + "/metrics", "s3cret")
    assert status == 200, text
    fams = _families(text)
    assert "ctxnotes_tool_call_seconds" in fams and "ctxnotes_sessions" in fams


def test_a_scrape_never_waits_for_the_pending_commit(tmp_path, monkeypatch):
    """The index gauges read the installed searcher and count what waits: a scrape during a burst of
    large writes used to flush (seconds of commit) and scan the folder, once per kind."""
    handle = WorkspaceHandle(tmp_path)
    ws = handle.get()
    metrics.bind_workspace(handle)
    try:
        ws.notes.create("Committed", "first")
        ws.flush()
        ws._batch.stop()  # no background commit from here: what is written next stays pending
        ws.notes.create("Pending", "second")

        def waits(*_args, **_kwargs):
            raise AssertionError("a scrape waited for the index")
        monkeypatch.setattr(ws, "flush", waits)
        monkeypatch.setattr(ws, "refresh", waits)
        fams = _families(metrics.render().decode())
    finally:
        monkeypatch.undo()
        handle.close()
        metrics.bind_workspace(None)
    items = {s.labels["kind"]: s.value for s in fams["ctxnotes_index_items"].samples}
    assert items["note"] == 1
    assert fams["ctxnotes_index_pending"].samples[0].value == 1
    assert fams["ctxnotes_index_pending_chars"].samples[0].value >= len("Pending") + len("second")
    assert fams["ctxnotes_index_backlog_limit_chars"].samples[0].value == 16 << 20
