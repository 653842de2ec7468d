"""Turn the measurements into Markdown tables: our figures, targets (10k and 100k), peers and ratios."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from .corpus import QUERY_CLASSES

# Targets by workspace size: row key -> (op, threshold). Issue 13 sets the 100k column and tightens
# the start-up figure to "restart with no changes until the first search is answered".
TARGETS: dict[int, dict[str, tuple[str, float]]] = {
    10000: {
        "mcp_cold_rate": (">=", 300.0),
        "reopen_p95": ("<=", 1.0),
        "restart_first_p95": ("<=", 1.5),
        "search_p95": ("<=", 10.0),
        "search_kept_p95": ("<=", 10.0),
        "mcp_search_p95": ("<=", 20.0),
        "mcp_create_rate": (">=", 50.0),
        "ctx_p95": ("<=", 150.0),
        "rss": ("<=", 250.0),
    },
    100000: {
        "mcp_cold_rate": (">=", 500.0),
        "restart_first_p95": ("<=", 2.0),
        "search_kept_p95": ("<=", 10.0),
        "mcp_search_p95": ("<=", 30.0),
        "ctx_p95": ("<=", 200.0),
        "rss": ("<=", 400.0),
    },
}


def _get(d: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _s(ms: float | None) -> float | None:
    return None if ms is None else ms / 1000


def _rss(r: dict[str, Any]) -> Any:
    """Peak RSS of the server that built its own index, after everything (older results: ``rss_mb``)."""
    return _get(r, "mcp", "rss", "peak_mb") or _get(r, "mcp", "rss_mb")


# (key, label, unit, better, getter over a result dict of the same shape for ours and peers)
Row = tuple[str, str, str, str, Callable[[dict[str, Any]], Any]]
ROWS: list[Row] = [
    ("mcp_cold_rate", "cold index through the server (spawn until first search answered)", "notes/s", "higher",
     lambda r: _get(r, "mcp", "cold_index", "notes_per_s")),
    ("mcp_cold_s", "  cold index through the server, time", "s", "lower", lambda r: _get(r, "mcp", "cold_index", "seconds")),
    ("cold_rate", "cold index in process (open_workspace, p50)", "notes/s", "higher",
     lambda r: _get(r, "cold_index", "notes_per_s", "p50")),
    ("reopen_p50", "reopen in process, no changes (p50)", "s", "lower", lambda r: _get(r, "reopen", "seconds", "p50")),
    ("reopen_p95", "reopen in process, no changes (p95)", "s", "lower", lambda r: _get(r, "reopen", "seconds", "p95")),
    ("restart_first_p50", "restart, no changes: spawn until first search answered (p50)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "restart", "first_search_ms", "p50"))),
    ("restart_first_p95", "restart, no changes: spawn until first search answered (p95)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "restart", "first_search_ms", "p95"))),
    ("start_p50", "server start until tools/list answers (p50)", "s", "lower",
     lambda r: _s(_get(r, "mcp", "start_to_tools_list_ms", "p50"))),
    ("search_p50", "search in process p50 (all classes)", "ms", "lower", lambda r: _get(r, "search", "all", "p50")),
    ("search_p95", "search in process p95 (all classes)", "ms", "lower", lambda r: _get(r, "search", "all", "p95")),
    ("search_p99", "search in process p99 (all classes)", "ms", "lower", lambda r: _get(r, "search", "all", "p99")),
    ("search_kept_p95", "  p95 descriptions kept in the notes (en+zh)", "ms", "lower",
     lambda r: _get(r, "search", "kept", "p95")),
    ("search_desc_p95", "  p95 descriptions removed from the notes (en+zh)", "ms", "lower",
     lambda r: _get(r, "search", "desc", "p95")),
    ("search_common_p95", "  p95 common-word queries (alias pages)", "ms", "lower",
     lambda r: _get(r, "search", "common", "p95")),
    ("search_long_p95", "  p95 long queries", "ms", "lower", lambda r: _get(r, "search", "long", "p95")),
    ("mcp_search_p50", "search per MCP stdio call p50 (all classes)", "ms", "lower",
     lambda r: _get(r, "mcp", "search", "all", "p50")),
    ("mcp_search_p95", "search per MCP stdio call p95 (all classes)", "ms", "lower",
     lambda r: _get(r, "mcp", "search", "all", "p95")),
    ("mcp_search_p99", "search per MCP stdio call p99 (all classes)", "ms", "lower",
     lambda r: _get(r, "mcp", "search", "all", "p99")),
    ("mcp_search_kept_p95", "  p95 per MCP call, descriptions kept", "ms", "lower",
     lambda r: _get(r, "mcp", "search", "kept", "p95")),
    ("mcp_search_common_p95", "  p95 per MCP call, common-word queries", "ms", "lower",
     lambda r: _get(r, "mcp", "search", "common", "p95")),
    ("mcp_list_p50", "note_list per MCP call p50 (the per-call floor)", "ms", "lower",
     lambda r: _get(r, "mcp", "note_list_ms", "p50")),
    ("q_en", "quality: description -> page in top 10, English", "share", "higher", lambda r: _get(r, "quality", "en", "top10")),
    ("q_zh", "quality: description -> page in top 10, Chinese", "share", "higher", lambda r: _get(r, "quality", "zh", "top10")),
    ("q1_en", "quality: page at rank 1, English", "share", "higher", lambda r: _get(r, "quality", "en", "top1")),
    ("q1_zh", "quality: page at rank 1, Chinese", "share", "higher", lambda r: _get(r, "quality", "zh", "top1")),
    ("create_p50", "durable create in process p50", "ms", "lower", lambda r: _get(r, "writes", "create_ms", "p50")),
    ("create_p95", "durable create in process p95", "ms", "lower", lambda r: _get(r, "writes", "create_ms", "p95")),
    ("create_rate", "durable create in process", "notes/s", "higher", lambda r: _get(r, "writes", "create_per_s")),
    ("update_p95", "durable update in process p95", "ms", "lower", lambda r: _get(r, "writes", "update_ms", "p95")),
    ("update_rate", "durable update in process", "notes/s", "higher", lambda r: _get(r, "writes", "update_per_s")),
    ("list_p95", "list 10 most recent in process p95", "ms", "lower", lambda r: _get(r, "list_ms", "p95")),
    ("mcp_create_p50", "create per MCP stdio call p50", "ms", "lower", lambda r: _get(r, "mcp", "create_ms", "p50")),
    ("mcp_create_p95", "create per MCP stdio call p95", "ms", "lower", lambda r: _get(r, "mcp", "create_ms", "p95")),
    ("mcp_create_rate", "create over MCP stdio", "notes/s", "higher", lambda r: _get(r, "mcp", "create_per_s")),
    ("mcp_update_p95", "update per MCP stdio call p95", "ms", "lower", lambda r: _get(r, "mcp", "update_ms", "p95")),
    ("mcp_update_rate", "update over MCP stdio", "notes/s", "higher", lambda r: _get(r, "mcp", "update_per_s")),
    ("ctx_p50", "build_context in process p50 (600 turns + workspace, 2k budget)", "ms", "lower",
     lambda r: _get(r, "build_context", "with_workspace", "ms", "p50")),
    ("ctx_p95", "build_context in process p95 (600 turns + workspace, 2k budget)", "ms", "lower",
     lambda r: _get(r, "build_context", "with_workspace", "ms", "p95")),
    ("ctx_hist_p95", "  build_context p95, history only (no workspace)", "ms", "lower",
     lambda r: _get(r, "build_context", "history_only", "ms", "p95")),
    ("mcp_ctx_p95", "build_context per MCP stdio call p95 (same inputs)", "ms", "lower",
     lambda r: _get(r, "mcp", "build_context_ms", "p95")),
    ("rss", "server peak RSS: built its own index, then all calls incl. build_context", "MB", "lower", _rss),
    ("rss_cold_peak", "  peak RSS right after building the index", "MB", "lower",
     lambda r: _get(r, "mcp", "rss_after_cold_index", "peak_mb")),
    ("rss_cold_now", "  RSS right after building the index (now, not peak)", "MB", "lower",
     lambda r: _get(r, "mcp", "rss_after_cold_index", "now_mb")),
    ("rss_restarted", "server peak RSS: restarted, searches + build_context", "MB", "lower",
     lambda r: _get(r, "mcp", "rss_restarted", "peak_mb")),
]
ROW_BY_KEY = {row[0]: row for row in ROWS}


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


def check(key: str, v: float | None, size: int = 10000) -> str:
    """``<= 20: **PASS**`` for a row with a target at this size, else ""."""
    target = TARGETS.get(size, {}).get(key)
    if target is None:
        return ""
    op, thr = target
    if v is None:
        return f"{op} {thr:g}: n/a"
    ok = v <= thr if op == "<=" else v >= thr
    return f"{op} {thr:g}: **{'PASS' if ok else 'MISS'}**"


def missed(size: int, ours: dict[str, Any]) -> list[str]:
    """Labels of the rows whose target at ``size`` is missed (or not measured)."""
    out = []
    for key in TARGETS.get(size, {}):
        _k, label, _u, _b, get = ROW_BY_KEY[key]
        if "PASS" not in check(key, get(ours), size):
            out.append(label.strip())
    return out


def table(size: int, ours: dict[str, Any], peers: dict[str, dict[str, Any]], with_targets: bool) -> str:
    """One Markdown table for one workspace size."""
    peer_names = [p for p in peers if not peers[p].get("error")]
    head = ["figure", "unit", f"ctxnotes ({size:,} notes)"]
    if with_targets:
        head.append(f"target ({size // 1000}k)")
    for p in peer_names:
        corpus = peers[p].get("corpus_label", "")
        head += [f"{p} {corpus}".strip(), f"ctxnotes × better than {p}"]
    if "basic-memory" in peer_names:
        head.append(">= 3× basic-memory")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, label, unit, better, get in ROWS:
        ov = get(ours)
        pv = {p: get(peers[p]) for p in peer_names}
        has_target = with_targets and key in TARGETS.get(size, {})
        if ov is None and all(v is None for v in pv.values()) and not has_target:
            continue
        row = [label, unit, fmt(ov, unit)]
        if with_targets:
            row.append(check(key, ov, size))
        for p in peer_names:
            r = better_ratio(ov, pv[p], better)
            row += [fmt(pv[p], unit), "—" if r is None else f"{r:.2f}×" if r >= 0.1 else f"{r:.3f}×"]
        if "basic-memory" in peer_names:
            r = better_ratio(ov, pv["basic-memory"], better)
            row.append("" if r is None or unit == "share" else ("PASS" if r >= 3 else "MISS"))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _pcts(s: dict[str, Any] | None) -> str:
    if not s or not s.get("n"):
        return "—"
    return " / ".join(fmt(s.get(k), "ms") for k in ("p50", "p95", "p99")) + f" (n={s['n']})"


def latency_table(ours: dict[str, Any]) -> str:
    """Search latency per query class: p50 / p95 / p99 in process and per MCP stdio call."""
    lines = ["| query class | in process p50 / p95 / p99 ms | per MCP call p50 / p95 / p99 ms |", "|---|---|---|"]
    for key, label in [*QUERY_CLASSES, ("kept", "descriptions kept, both languages"), ("all", "all classes")]:
        inp, mcp = _get(ours, "search", key), _get(ours, "mcp", "search", key)
        if inp is None and mcp is None:
            continue
        lines.append(f"| {label} | {_pcts(inp)} | {_pcts(mcp)} |")
    probes = ours.get("probes") or []
    if probes:
        lines += ["", "| probe query | in process p50 ms | total | matched | total is a lower bound |",
                  "|---|---|---|---|---|"]
        for p in probes:
            lb = p.get("total_is_lower_bound")
            lines.append(f"| `{p['query']}` | {fmt(p['ms']['p50'], 'ms')} | {p['total']} | {p.get('matched') or '—'} "
                         f"| {'—' if lb is None else 'yes' if lb else 'no'} |")
    return "\n".join(lines)


# The README table: one row per issue-13 figure, one column per size, targets beside.
README_ROWS = ("mcp_search_p95", "mcp_search_p50", "search_kept_p95", "search_p95", "mcp_cold_rate",
               "rss", "rss_restarted", "restart_first_p95", "ctx_p95", "mcp_list_p50", "mcp_create_rate",
               "q_en", "q_zh")


def _target_text(target: tuple[str, float] | None) -> str:
    if target is None:
        return ""
    op, thr = target
    return f"{'≤' if op == '<=' else '≥'} {thr:g}"


def readme_table(sizes: dict[int, dict[str, Any]]) -> str:
    """Figures by size with the 10k / 100k targets, ready for the README's Performance section."""
    order = sorted(sizes)
    head = ["figure", "unit"] + [f"{n // 1000}k notes" if n >= 1000 else f"{n} notes" for n in order]
    head += ["target 10k", "target 100k"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in README_ROWS:
        _k, label, unit, _b, get = ROW_BY_KEY[key]
        cells = []
        for n in order:
            v = get(sizes[n])
            verdict = check(key, v, n)
            mark = "" if not verdict else " ✓" if "PASS" in verdict else " ✗"
            cells.append(fmt(v, unit) + mark)
        targets = [_target_text(TARGETS[t].get(key)) for t in (10000, 100000)]
        lines.append("| " + " | ".join([label.strip(), unit, *cells, *targets]) + " |")
    return "\n".join(lines)


def notes_lines(ours: dict[str, Any], peers: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    err = _get(ours, "build_context", "error")
    if err:
        out.append(f"- build_context with workspace: {err}")
    mcp = ours.get("mcp") or {}
    for key, what in (("error", "MCP stdio"), ("write_error", "MCP writes: not available"),
                      ("build_context_error", "MCP build_context: not available")):
        if mcp.get(key):
            out.append(f"- {what}: {mcp[key]}")
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
