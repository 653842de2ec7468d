"""Small statistics and timing helpers (medians and nearest-rank p95/p99, in ms unless said)."""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Iterable
from typing import Any


def pct(values: Iterable[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    vals = sorted(values)
    if not vals:
        return None
    rank = max(1, math.ceil(q / 100 * len(vals)))
    return vals[rank - 1]


def summary(values: list[float]) -> dict[str, Any]:
    """{n, p50, p95, p99, min, max} of a list of samples (same unit as the samples).

    With fewer than 100 samples the p99 is the maximum (nearest rank): read it as such.
    """
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "min": None, "max": None}
    return {"n": len(values), "p50": statistics.median(values), "p95": pct(values, 95),
            "p99": pct(values, 99), "min": min(values), "max": max(values)}


# Query classes pooled for a figure: both languages of a description class.
GROUPS = {"desc": ("desc_en", "desc_zh"), "kept": ("kept_en", "kept_zh")}


def class_summaries(samples: dict[str, list[float]]) -> dict[str, Any]:
    """Per class, per pooled group (``GROUPS``) and over all samples: ``summary`` of the ms."""
    out = {kind: summary(times) for kind, times in samples.items()}
    for group, kinds in GROUPS.items():
        if any(k in samples for k in kinds):
            out[group] = summary([t for k in kinds for t in samples.get(k, [])])
    out["all"] = summary([t for times in samples.values() for t in times])
    return out


class Timer:
    """``with Timer() as t: ...``; then ``t.ms`` / ``t.s``."""

    def __enter__(self) -> Timer:
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self._t0
        self.ms = self.s * 1000


def vm_hwm_mb(pid: int | None = None) -> float | None:
    """Peak resident set size (VmHWM) of a process in MB, from /proc."""
    try:
        with open(f"/proc/{pid or os.getpid()}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def vm_rss_mb(pid: int | None = None) -> float | None:
    """Current resident set size (VmRSS) of a process in MB, from /proc."""
    try:
        with open(f"/proc/{pid or os.getpid()}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children_of(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (from /proc/*/stat)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(name))
    return out
