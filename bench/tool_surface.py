"""What each MCP server's tool list costs a model, in cl100k tokens: ctxnotes beside basic-memory and the
reference memory server (``@modelcontextprotocol/server-memory``), each listed over a real stdio session.

    .venv/bin/python -m bench.tool_surface [--peers] [--scratch DIR] [--npm-prefix DIR] [--markdown]

"model-visible" = ``json.dumps`` of name + description + inputSchema (what agent clients put in the prompt);
"tools/list" = the whole entry (titles, annotations, outputSchema too). Peers run offline: basic-memory from
its own Python 3.12 venv (see bench/peers), the reference server under Node from ``--npm-prefix``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from context.tokens import get_encoding

ROOT = Path(__file__).resolve().parent.parent
LIST_TIMEOUT_S = 120.0


def tool_costs(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per tool: model-visible tokens and whole tools/list entry tokens (cl100k)."""
    enc = get_encoding("cl100k_base")
    rows = []
    for t in tools:
        visible = {"name": t["name"], "description": t.get("description", ""), "inputSchema": t.get("inputSchema", {})}
        rows.append({"name": t["name"], "visible": len(enc.encode(json.dumps(visible, ensure_ascii=False))),
                     "full": len(enc.encode(json.dumps(t, ensure_ascii=False)))})
    return rows


def list_total(tools: list[dict[str, Any]]) -> int:
    """Tokens of the whole tools/list result as JSON."""
    return len(get_encoding("cl100k_base").encode(json.dumps({"tools": tools}, ensure_ascii=False)))


def as_dicts(tools: list[Any]) -> list[dict[str, Any]]:
    """``tools/list`` entries (SDK ``Tool`` models) as the JSON a client receives."""
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


def surface_tokens(tools: list[dict[str, Any]]) -> tuple[int, int]:
    """(model-visible tokens summed over the tools, tokens of the whole tools/list result)."""
    return sum(r["visible"] for r in tool_costs(tools)), list_total(tools)


async def list_tools_stdio(params: StdioServerParameters) -> list[dict[str, Any]]:
    with anyio.fail_after(LIST_TIMEOUT_S):
        async with Client(params, mode="legacy") as client:
            result = await client.list_tools()
    return as_dicts(result.tools)


def ours(workspace: Path, groups: str | None = None) -> StdioServerParameters:
    args = ["-m", "server.cli", "serve", "--workspace", str(workspace)]
    # $CTXNOTES_TOOLS is what `serve --tools` sets too (create_server reads flag > environment > .ctxnotes.yaml).
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT),
                                 env={"CTXNOTES_TOOLS": groups} if groups else None)


def reference_memory(npm_prefix: Path, scratch: Path) -> StdioServerParameters:
    """The reference memory server under Node (installed into ``npm_prefix`` on first use)."""
    entry = npm_prefix / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if not entry.is_file():
        subprocess.run(["npm", "install", "--prefix", str(npm_prefix), "--no-audit", "--no-fund",
                        "@modelcontextprotocol/server-memory"], check=True, capture_output=True, timeout=600)
    node = npm_prefix / "node_modules" / ".bin" / "node"
    return StdioServerParameters(command=str(node) if node.exists() else "node", args=[str(entry)],
                                 env={"MEMORY_FILE_PATH": str(scratch / "reference-memory.jsonl")})


def basic_memory(scratch: Path) -> StdioServerParameters:
    """basic-memory's stdio server from its own venv (created on first use, see bench/peers)."""
    from .peers import bm_env, ensure_venv
    py = ensure_venv("basic-memory", scratch, lambda msg: print(msg, file=sys.stderr))
    env = bm_env(scratch)
    keep = ("HOME", "BASIC_MEMORY_CONFIG_DIR", "BASIC_MEMORY_NO_PROMOS", "BASIC_MEMORY_AUTO_UPDATE",
            "BASIC_MEMORY_DEFAULT_SEARCH_TYPE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "DO_NOT_TRACK",
            "BASIC_MEMORY_TELEMETRY_ENABLED")
    return StdioServerParameters(command=str(py.with_name("bm")), args=["mcp", "--transport", "stdio"],
                                 env={k: env[k] for k in keep})


def markdown(results: dict[str, list[dict[str, Any]]]) -> str:
    lines = ["| server | tools | tools/list | model-visible | largest tool (model-visible) |", "|---|---|---|---|---|"]
    for name, tools in results.items():
        rows = tool_costs(tools)
        top = max(rows, key=lambda r: r["visible"]) if rows else {"name": "-", "visible": 0}
        lines.append(f"| {name} | {len(rows)} | {list_total(tools):,} | {sum(r['visible'] for r in rows):,} | "
                     f"{top['name']} ({top['visible']}) |")
    return "\n".join(lines)


def per_tool(results: dict[str, list[dict[str, Any]]]) -> str:
    out = []
    for name, tools in results.items():
        out.append(f"\n{name}: tool, model-visible, tools/list entry")
        for r in sorted(tool_costs(tools), key=lambda r: -r["visible"]):
            out.append(f"  {r['name']:<28} {r['visible']:>6} {r['full']:>6}")
    return "\n".join(out)


async def run(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    scratch: Path = args.scratch
    scratch.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="ctxnotes-surface-") as tmp:
        results["ctxnotes"] = await list_tools_stdio(ours(Path(tmp)))
        for groups in args.groups:
            results[f"ctxnotes --tools {groups}"] = await list_tools_stdio(ours(Path(tmp), groups))
    if args.peers:
        makers: list[tuple[str, Callable[[], StdioServerParameters]]] = [
            ("reference memory server", lambda: reference_memory(args.npm_prefix, scratch)),
            ("basic-memory 0.24", lambda: basic_memory(scratch))]
        for name, make in makers:
            try:
                results[name] = await list_tools_stdio(make())
            except Exception as exc:  # a peer that cannot run here is reported, not fatal
                print(f"{name}: could not list its tools: {type(exc).__name__}: {exc}", file=sys.stderr)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", action="store_true", help="also list basic-memory and the reference memory server")
    ap.add_argument("--groups", action="append", default=[], metavar="GROUPS",
                    help="also measure `serve --tools GROUPS` (repeatable)")
    ap.add_argument("--scratch", type=Path, default=Path(os.environ.get("CTXNOTES_BENCH_SCRATCH", "/tmp/ctxnotes-bench")))
    ap.add_argument("--npm-prefix", type=Path, default=Path(os.environ.get("NPM_PREFIX", "/tmp/ctxnotes-npm")))
    ap.add_argument("--json", action="store_true", help="print the raw tool lists as JSON")
    args = ap.parse_args(argv)
    if args.peers and not shutil.which("npm"):
        print("npm not found: the reference memory server is skipped", file=sys.stderr)
    results = anyio.run(run, args)
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(markdown(results))
    print(per_tool(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
