"""A bounded rolling log of build_context calls under ``.index/``, and the statistics ``ctxnotes stats`` prints.

Why: a bad budget split (history starving notes, everything dropped) shows in these numbers before users
notice it. Each build appends one JSON line to ``.index/builds.jsonl`` (per source: candidates, selected,
dropped and their tokens; budget and tokens used; query type; duration). When the file passes
``MAX_LOG_BYTES`` it becomes ``builds.1.jsonl`` (the previous one is dropped): the log never holds more than
about twice that. ``.index/`` is never committed, so neither is the log.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import math
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

log = logging.getLogger("ctxnotes.server")

LOG_NAME = "builds.jsonl"
OLD_LOG_NAME = "builds.1.jsonl"
MAX_LOG_BYTES = 512 * 1024
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def summarize(report: Any, seconds: float, *, session_id: str | None = None) -> dict[str, Any]:
    """The log line for one build: ``report`` is a ``ContextResult`` or its ``to_dict()``."""
    data = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    sources: dict[str, dict[str, int]] = {}
    for name, s in (data.get("sources") or {}).items():
        sources[name] = {"candidates": int(s.get("candidates", 0)), "selected": int(s.get("selected", 0)),
                         "dropped": int(s.get("dropped", 0)), "tokens": int(s.get("tokens", 0)),
                         "dropped_tokens": 0}
    for row in data.get("dropped") or []:  # only listed rows carry tokens (history lists its top 25)
        src = sources.setdefault(str(row.get("source")), {"candidates": 0, "selected": 0, "dropped": 0,
                                                          "tokens": 0, "dropped_tokens": 0})
        src["dropped_tokens"] += int(row.get("tokens") or 0)
    budget = int(data.get("budget") or 0)
    tokens = int(data.get("tokens") or 0)
    out: dict[str, Any] = {
        "at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "seconds": round(float(seconds), 4), "query_type": data.get("query_type"),
        "format": "messages" if data.get("messages") is not None else "text",
        "budget": budget, "tokens": tokens, "budget_used": round(tokens / budget, 4) if budget else 0.0,
        "compressed": len(data.get("compressed") or []), "warnings": len(data.get("warnings") or []),
        "sources": sources}
    if session_id:
        out["session_id"] = session_id
    return out


def record_build(workspace_root: str | os.PathLike[str], report: Any, seconds: float, *,
                 session_id: str | None = None) -> dict[str, Any] | None:
    """Append this build's summary to the log and the metrics; never raises (monitoring must not fail a
    build). Returns the summary, or None when it could not be written."""
    try:
        summary = summarize(report, seconds, session_id=session_id)
    except Exception:
        log.warning("could not summarise a build_context report for the build log", exc_info=True)
        return None
    try:
        from .. import metrics
        metrics.observe_build(summary)
    except Exception:
        log.debug("metrics.observe_build failed", exc_info=True)
    folder = Path(workspace_root) / ".index"
    line = json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOG_NAME, _FLAGS, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # one writer at a time: lines never interleave, rotation is single
            st = os.fstat(fd)
            if st.st_size + len(line) > MAX_LOG_BYTES and st.st_size > 0:
                os.replace(folder / LOG_NAME, folder / OLD_LOG_NAME)
                os.close(fd)
                fd = os.open(folder / LOG_NAME, _FLAGS, 0o644)
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line)  # no fsync: a monitoring log may lose its last lines in a power cut
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("could not write the build log in %s: %s", folder, exc.strerror or exc)
        return None
    return summary


def read_builds(workspace_root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every logged build, oldest first (bounded: the two log files, at most ``MAX_LOG_BYTES`` each plus a line)."""
    from notes_store.files.front_matter import BadFile
    from notes_store.files.safe_read import read_regular_file
    out: list[dict[str, Any]] = []
    for name in (OLD_LOG_NAME, LOG_NAME):
        try:
            raw, _ = read_regular_file(Path(workspace_root) / ".index" / name, 2 * MAX_LOG_BYTES)
        except (FileNotFoundError, BadFile, OSError):
            continue
        for line in raw.split(b"\n"):
            with contextlib.suppress(ValueError):
                row = json.loads(line)
                if isinstance(row, dict) and isinstance(row.get("sources"), dict):
                    out.append(row)
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def build_stats(workspace_root: str | os.PathLike[str]) -> dict[str, Any]:
    """Totals and percentiles over the logged builds: durations, budget use, and each source's share."""
    rows = read_builds(workspace_root)
    durations = [float(r.get("seconds") or 0) for r in rows]
    used = [float(r.get("budget_used") or 0) for r in rows]
    per_source: dict[str, dict[str, int]] = {}
    for r in rows:
        for name, s in r["sources"].items():
            acc = per_source.setdefault(name, {"candidates": 0, "selected": 0, "dropped": 0, "tokens": 0,
                                               "dropped_tokens": 0})
            for key in acc:
                acc[key] += int(s.get(key) or 0)
    total_tokens = sum(s["tokens"] for s in per_source.values())
    for s in per_source.values():
        s["token_share"] = round(s["tokens"] / total_tokens, 4) if total_tokens else 0.0  # type: ignore[assignment]
    query_types: dict[str, int] = {}
    for r in rows:
        qt = str(r.get("query_type"))
        query_types[qt] = query_types.get(qt, 0) + 1

    def ms(q: float) -> float:
        return round(percentile(durations, q) * 1000, 1)

    return {
        "builds": len(rows), "session_builds": sum(1 for r in rows if r.get("session_id")),
        "first": rows[0]["at"] if rows else None, "last": rows[-1]["at"] if rows else None,
        "duration_ms": {"p50": ms(50), "p95": ms(95), "p99": ms(99),
                        "max": round(max(durations, default=0) * 1000, 1)},
        "budget_used": {"mean": round(sum(used) / len(used), 4) if used else 0.0, "p50": percentile(used, 50),
                        "p95": percentile(used, 95)},
        "tokens": sum(int(r.get("tokens") or 0) for r in rows),
        "query_types": query_types, "sources": per_source, "warnings": sum(int(r.get("warnings") or 0) for r in rows),
        "generated_at": time.time()}


def render_stats(stats: dict[str, Any]) -> str:
    """``ctxnotes stats`` as text."""
    if not stats["builds"]:
        return "No build_context calls logged yet (the log is .index/builds.jsonl)."
    d = stats["duration_ms"]
    lines = [f"{stats['builds']} build(s) from {stats['first']} to {stats['last']} "
             f"({stats['session_builds']} over a stored session)",
             f"duration ms: p50 {d['p50']}, p95 {d['p95']}, p99 {d['p99']}, max {d['max']}",
             f"budget used: mean {stats['budget_used']['mean']:.0%}, p95 {stats['budget_used']['p95']:.0%}; "
             f"{stats['tokens']} tokens packed in all",
             "query types: " + ", ".join(f"{k} {v}" for k, v in sorted(stats["query_types"].items())),
             "per source (items candidates/selected/dropped; tokens packed, share, tokens dropped):"]
    for name, s in sorted(stats["sources"].items(), key=lambda kv: -kv[1]["tokens"]):
        lines.append(f"  {name:<12} {s['candidates']:>7}/{s['selected']:>6}/{s['dropped']:>6}   "
                     f"{s['tokens']:>9} {s['token_share']:>6.1%} {s['dropped_tokens']:>9}")
    if stats["warnings"]:
        lines.append(f"{stats['warnings']} warning(s) in builds")
    return "\n".join(lines)
