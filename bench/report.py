"""Turn the measurements into a Markdown table: our figures, targets (10k), peers and ratios."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

# Targets apply at 10,000 notes: (row key, op, threshold).
TARGETS = {
    "search_p95": ("<=", 10.0),
    "mcp_search_p95": ("<=", 20.0),
    "mcp_create_rate": (">=", 50.0),
    "cold_rate": (">=", 300.0),
    "reopen_p95": ("<=", 1.0),
    "ctx_p95": ("<=", 150.0),
    "start_p50": ("<=", 1.5),
    "rss": ("<=", 250.0),
}


def _get(d: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


# (key, label, unit, better, getter over a result dict of the same shape for ours and peers)
ROWS: list[tuple[str, str, str, str, Callable[[dict], Any]]] = [
    ("cold_rate", "cold index (p50)", "notes/s", "higher", lambda r: _get(r, "cold_index", "notes_per_s", "p50")),
    ("cold_s", "cold index time (p50)", "s", "lower", lambda r: _get(r, "cold_index", "seconds", "p50")),
    ("reopen_p50", "reopen, no changes (p50)", "s", "lower", lambda r: _get(r, "reopen", "seconds", "p50")),
    ("reopen_p95", "reopen, no changes (p95)", "s", "lower", lambda r: _get(r, "reopen", "seconds", "p95")),
    ("search_p50", "search in process p50 (all queries)", "ms", "lower", lambda r: _get(r, "search", "all", "p50")),
    ("search_p95", "search in process p95 (all queries)", "ms", "lower", lambda r: _get(r, "search", "all", "p95")),
    ("search_desc_en_p95", "  p95 descriptions, English", "ms", "lower", lambda r: _get(r, "search", "desc_en", "p95")),
    ("search_desc_zh_p95", "  p95 descriptions, Chinese", "ms", "lower", lambda r: _get(r, "search", "desc_zh", "p95")),
    ("search_word_en_p95", "  p95 single words, English", "ms", "lower", lambda r: _get(r, "search", "word_en", "p95")),
    ("search_word_zh_p95", "  p95 single words, Chinese", "ms", "lower", lambda r: _get(r, "search", "word_zh", "p95")),
    ("q_en", "quality: description -> page in top 10, English", "share", "higher", lambda r: _get(r, "quality", "en", "top10")),
    ("q_zh", "quality: description -> page in top 10, Chinese", "share", "higher", lambda r: _get(r, "quality", "zh", "top10")),
    ("q1_en", "quality: page at rank 1, English", "share", "higher", lambda r: _get(r, "quality", "en", "top1")),
    ("q1_zh", "quality: page at rank 1, Chinese", "share", "higher", lambda r: _get(r, "quality", "zh", "top1")),
    ("create_p50", "durable create in process p50", "ms", "lower", lambda r: _get(r, "writes", "create_ms", "p50")),
    ("create_p95", "durable create in process p95", "ms", "lower", lambda r: _get(r, "writes", "create_ms", "p95")),
    ("create_rate", "durable create in process", "notes/s", "higher", lambda r: _get(r, "writes", "create_per_s")),
    ("update_p50", "durable update in process p50", "ms", "lower", lambda r: _get(r, "writes", "update_ms", "p50")),
    ("update_p95", "durable update in process p95", "ms", "lower", lambda r: _get(r, "writes", "update_ms", "p95")),
    ("update_rate", "durable update in process", "notes/s", "higher", lambda r: _get(r, "writes", "update_per_s")),
    ("list_p95", "list 10 most recent p95", "ms", "lower", lambda r: _get(r, "list_ms", "p95")),
    ("mcp_search_p50", "search per MCP stdio call p50", "ms", "lower", lambda r: _get(r, "mcp", "search", "all", "p50")),
    ("mcp_search_p95", "search per MCP stdio call p95", "ms", "lower", lambda r: _get(r, "mcp", "search", "all", "p95")),
    ("mcp_create_p50", "create per MCP stdio call p50", "ms", "lower", lambda r: _get(r, "mcp", "create_ms", "p50")),
    ("mcp_create_p95", "create per MCP stdio call p95", "ms", "lower", lambda r: _get(r, "mcp", "create_ms", "p95")),
    ("mcp_create_rate", "create over MCP stdio", "notes/s", "higher", lambda r: _get(r, "mcp", "create_per_s")),
    ("mcp_update_p50", "update per MCP stdio call p50", "ms", "lower", lambda r: _get(r, "mcp", "update_ms", "p50")),
    ("mcp_update_p95", "update per MCP stdio call p95", "ms", "lower", lambda r: _get(r, "mcp", "update_ms", "p95")),
    ("mcp_update_rate", "update over MCP stdio", "notes/s", "higher", lambda r: _get(r, "mcp", "update_per_s")),
    ("ctx_p50", "build_context p50 (600 turns + workspace, 2k budget)", "ms", "lower",
     lambda r: _get(r, "build_context", "with_workspace", "ms", "p50")),
    ("ctx_p95", "build_context p95 (600 turns + workspace, 2k budget)", "ms", "lower",
     lambda r: _get(r, "build_context", "with_workspace", "ms", "p95")),
    ("ctx_hist_p95", "  build_context p95, history only (no workspace)", "ms", "lower",
     lambda r: _get(r, "build_context", "history_only", "ms", "p95")),
    ("start_p50", "server start until tools/list answers (p50)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "start_to_tools_list_ms", "p50"))),
    ("start_p95", "server start until tools/list answers (p95)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "start_to_tools_list_ms", "p95"))),
    ("first_call", "first tool call after start (opens the workspace)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "first_call_ms"))),
    ("rss", "server peak RSS (VmHWM) after the runs", "MB", "lower", lambda r: _get(r, "mcp", "rss_mb")),
]


def _s(ms: float | None) -> float | None:
    return None if ms is None else ms / 1000


def fmt(v: Any, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "share":
        return f"{v:.3f}"
    if isinstance(v, (int, float)):
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}" if abs(v) >= 1 else f"{v:.3f}"
    return str(v)


def better_ratio(ours: float | None, theirs: float | None, better: str) -> float | None:
    """How many times better ours is (>1 = better)."""
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return None
    return theirs / ours if better == "lower" else ours / theirs


def check(key: str, v: float | None) -> str:
    if key not in TARGETS:
        return ""
    op, thr = TARGETS[key]
    if v is None:
        return f"{op} {thr:g}: n/a"
    ok = v <= thr if op == "<=" else v >= thr
    return f"{op} {thr:g}: **{'PASS' if ok else 'MISS'}**"


def table(size: int, ours: dict, peers: dict[str, dict], with_targets: bool) -> str:
    """One Markdown table for one workspace size."""
    peer_names = [p for p in peers if not peers[p].get("error")]
    head = ["figure", "unit", f"ctxnotes ({size:,} notes)"]
    if with_targets:
        head.append("target (10k)")
    for p in peer_names:
        corpus = peers[p].get("corpus_label", "")
        head += [f"{p} {corpus}".strip(), f"ctxnotes × better than {p}"]
    if "basic-memory" in peer_names:
        head.append(">= 3× basic-memory")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, label, unit, better, get in ROWS:
        ov = get(ours)
        pv = {p: get(peers[p]) for p in peer_names}
        if ov is None and all(v is None for v in pv.values()) and key not in TARGETS:
            continue
        row = [label, unit, fmt(ov, unit)]
        if with_targets:
            row.append(check(key, ov))
        for p in peer_names:
            r = better_ratio(ov, pv[p], better)
            row += [fmt(pv[p], unit), "—" if r is None else f"{r:.2f}×" if r >= 0.1 else f"{r:.3f}×"]
        if "basic-memory" in peer_names:
            r = better_ratio(ov, pv["basic-memory"], better)
            row.append("" if r is None or unit == "share" else ("PASS" if r >= 3 else "MISS"))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def notes_lines(ours: dict, peers: dict[str, dict]) -> list[str]:
    out = []
    for key in ("build_context",):
        err = _get(ours, key, "error")
        if err:
            out.append(f"- build_context with workspace: {err}")
    mcp = ours.get("mcp") or {}
    if mcp.get("error"):
        out.append(f"- MCP stdio: {mcp['error']}")
    if mcp.get("write_error"):
        out.append(f"- MCP writes: not available: {mcp['write_error']}")
    if mcp.get("launch"):
        out.append(f"- server launched as `{mcp['launch']}`")
    ev = _get(ours, "build_context", "evidence")
    if ev and not _get(ours, "build_context", "error"):
        out.append(f"- build_context evidence provider: {ev}")
    for name, p in peers.items():
        if p.get("error"):
            out.append(f"- {name}: {p['error']}")
        for n in p.get("notes", []):
            out.append(f"- {name}: {n}")
    return out
