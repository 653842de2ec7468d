"""Hostile and broken input through the MCP tools, the resources and the CLI, and HTTP exposure.

Each refusal must be a clear error and leave the workspace's files exactly as they were (snapshot
before/after). Store-level checks of the same rules live in ``test_notes_store.py``; HTTP basics
(token, Host, Origin on loopback) in ``test_server_transports.py``.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from bench.reliability.common import classify, error_text, snapshot
from server.cli import main as cli_main

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[1]


HOSTILE_IDS = ["../x", "../../etc/passwd", "/etc/passwd", "a/b", "..", "x\x00y", "a\nb", "a\x1bb", "C:\\x", " "]


async def test_hostile_ids_refused_everywhere_and_nothing_changes(server, client, tmp_path):
    victim = tmp_path / "victim.md"
    victim.write_text("---\nid: victim\n---\nkeep me\n")
    await client.call_tool("note_create", {"title": "real", "content": "real words"})
    await client.call_tool("memory_add", {"content": "real memory"})
    before, outside = snapshot(tmp_path / "ws"), victim.read_bytes()
    for bad in HOSTILE_IDS + [str(victim), str(victim)[:-3], "../victim"]:
        for tool, args in [("note_read", {"note_id": bad}), ("note_delete", {"note_id": bad}),
                           ("note_update", {"note_id": bad, "title": "pwned", "content": "pwned"}),
                           ("memory_read", {"memory_id": bad}), ("memory_forget", {"memory_id": bad}),
                           ("memory_update", {"memory_id": bad, "content": "pwned"})]:
            res = await client.call_tool(tool, args)
            assert classify(tool, res) == "tool_error", (tool, bad, error_text(res))
            assert "not a valid id" in error_text(res) or "is required" in error_text(res) or \
                "no note" in error_text(res) or "no memory" in error_text(res), (tool, bad, error_text(res))
        with pytest.raises(MCPError):
            await client.read_resource(f"note://{bad}")
    assert snapshot(tmp_path / "ws") == before and victim.read_bytes() == outside


@pytest.mark.parametrize("tool,args,expected", [
    ("note_create", {"title": "two\nlines"}, "single line"),
    ("note_create", {"title": "x\r---\rid: evil"}, "single line"),
    ("note_create", {"title": "t", "tags": [1, 2]}, "valid string"),
    ("note_create", {"title": "t", "tags": [{"a": 1}]}, "valid string"),
    ("note_create", {"title": "t", "tags": "one"}, "valid list"),
    ("note_create", {"title": "t", "tags": ["a\nb"]}, "control characters"),
    ("note_create", {"title": 7}, "valid string"),
    ("note_create", {"title": "t", "content": "a\x00b"}, "NUL"),
    ("note_create", {"title": "t", "content": "x" * ((1 << 20) + 1)}, "over the limit of 1048576 bytes"),
    ("memory_add", {"content": "x" * ((1 << 20) + 1)}, "over the limit of 1048576 bytes"),
    ("memory_add", {"content": "x", "tags": [3]}, "valid string"),
])
async def test_broken_input_is_a_clear_error_and_writes_nothing(client, tmp_path, tool, args, expected):
    await client.call_tool("note_list", {})  # opens the workspace, so the snapshot has its layout
    before = snapshot(tmp_path / "ws")
    res = await client.call_tool(tool, args)
    assert classify(tool, res) == "tool_error" and expected in error_text(res), error_text(res)[:300]
    assert snapshot(tmp_path / "ws") == before


async def test_titles_that_look_like_front_matter_round_trip(server, client, tmp_path):
    from notes_store.document import parse_document
    pwned = tmp_path / "pwned"
    for title in ["---", "--- x ---", "a: b", "id: evil", "!!python/object/apply:os.system ['touch %s']" % pwned,
                  "# heading", "'quoted'", "[list]", "{map: 1}", "&anchor *alias", "null", "2026-01-01", "yes"]:
        content = f"---\nid: evil\ntitle: {title}\n---\nbody ---\n"
        n = (await client.call_tool("note_create", {"title": title, "content": content})).structured_content
        r = (await client.call_tool("note_read", {"note_id": n["id"]})).structured_content
        assert (r["title"], r["content"]) == (title, content)
        raw = (tmp_path / "ws" / "notes" / f"{n['id']}.md").read_bytes()
        doc = parse_document(raw)
        assert doc.meta["id"] == n["id"] and doc.meta["title"] == title
        res = await client.read_resource(f"note://{n['id']}")
        assert res.contents[0].text.encode() == raw
    assert not pwned.exists()
    assert (await client.call_tool("note_list", {"limit": 100})).structured_content["total"] == 13


def _drop_hostile_files(root: Path, marker: Path, outside: Path) -> None:
    notes, mem = root / "notes", root / "memory"
    payload = f"!!python/object/apply:os.system ['touch {marker}']"
    (notes / "yamlbomb.md").write_text(f"---\nid: yamlbomb\ntitle: {payload}\nx: {payload}\n---\nleakmarker\n")
    (notes / "yamlnew.md").write_text(f"---\nid: yamlnew\ntitle: t\nx: !!python/object/new:subprocess.Popen "
                                      f"[['touch', '{marker}']]\n---\n")
    (mem / "membomb.md").write_text(f"---\nid: membomb\nmemory_type: semantic\nimportance: 0.5\nx: {payload}\n---\nm\n")
    (notes / "binary.md").write_bytes(b"\x00\x01\xff\xfe" + os.urandom(256))
    (notes / "latin1.md").write_bytes("---\nid: latin1\ntitle: caf\xe9\n---\n".encode("latin-1"))
    (notes / "mismatch.md").write_text("---\nid: someone-else\ntitle: wrong id\n---\nleakmarker\n")
    outside.write_text("---\nid: link\ntitle: link\n---\nleakmarker secret outside the workspace\n")
    os.symlink(outside, notes / "link.md")
    os.symlink(outside, mem / "mlink.md")


async def test_hostile_files_in_the_workspace_are_reported_never_run_or_followed(server, client, tmp_path):
    root = tmp_path / "ws"
    good = (await client.call_tool("note_create", {"title": "good", "content": "leakmarker fine words"}))
    good_id = good.structured_content["id"]
    marker, outside = tmp_path / "pwned", tmp_path / "outside.md"
    _drop_hostile_files(root, marker, outside)
    before = snapshot(root)
    calls = [("note_summary", {}), ("note_list", {"limit": 100}), ("note_search", {"query": "leakmarker"}),
             ("memory_list", {}), ("memory_summary", {}), ("memory_search", {"query": "leakmarker"}),
             ("build_context", {"query": "leakmarker secret"}), ("reindex", {})]
    texts = []
    for tool, args in calls:
        res = await client.call_tool(tool, args)
        assert classify(tool, res) == "ok", (tool, error_text(res))
        texts.append(str(res.structured_content) + error_text(res))
    summary = (await client.call_tool("note_summary", {})).structured_content
    unreadable = {u["path"]: u["reason"] for u in summary["unreadable"]}
    assert set(unreadable) == {"notes/yamlbomb.md", "notes/yamlnew.md", "notes/binary.md", "notes/latin1.md",
                               "notes/mismatch.md", "notes/link.md"}
    assert "symbolic link" in unreadable["notes/link.md"] and "disagrees" in unreadable["notes/mismatch.md"]
    assert "UTF-8" in unreadable["notes/latin1.md"]
    mem_summary = (await client.call_tool("memory_summary", {})).structured_content
    assert {u["path"] for u in mem_summary["unreadable"]} == {"memory/membomb.md", "memory/mlink.md"}
    hits = (await client.call_tool("note_search", {"query": "leakmarker"})).structured_content["hits"]
    assert [h["id"] for h in hits] == [good_id]
    for tool, args in [("note_read", {"note_id": "link"}), ("note_read", {"note_id": "mismatch"}),
                       ("note_read", {"note_id": "yamlbomb"}), ("note_update", {"note_id": "link", "content": "x"}),
                       ("memory_read", {"memory_id": "mlink"}), ("memory_update", {"memory_id": "mlink",
                                                                                   "content": "x"})]:
        res = await client.call_tool(tool, args)
        assert classify(tool, res) == "tool_error", (tool, error_text(res))
        texts.append(error_text(res))
    for uri in ("note://link", "note://mismatch", "note://yamlbomb"):
        with pytest.raises(MCPError):
            await client.read_resource(uri)
    texts.append((await client.read_resource("notes://recent")).contents[0].text)
    assert not any("secret outside the workspace" in t for t in texts)
    assert not marker.exists()  # safe YAML: no object was constructed, no command ran
    assert snapshot(root) == before and outside.exists()


def _cli(tmp_path, capsys, *argv):
    code = cli_main(["--workspace", str(tmp_path / "ws"), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_refuses_hostile_input_with_one_line_and_no_change(tmp_path, capsys):
    code, out, _ = _cli(tmp_path, capsys, "--json", "note", "create", "real", "--content", "x")
    assert code == 0
    big = tmp_path / "big.txt"
    big.write_text("x" * ((1 << 20) + 1))
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9")
    before = snapshot(tmp_path / "ws")
    cases = [(["note", "read", "../../etc/passwd"], "not a valid id"),
             (["note", "read", "/etc/passwd"], "not a valid id"),
             (["note", "read", "a\x1bb"], "not a valid id"),
             (["note", "delete", "../x"], "not a valid id"),
             (["note", "update", "../x", "--title", "t"], "not a valid id"),
             (["note", "create", "two\nlines"], "single line"),
             (["note", "create", "t", "--tag", "a\nb"], "control characters"),
             (["note", "create", "t", "--content", "a\x00b"], "NUL"),
             (["note", "create", "t", "--content-file", str(big)], "over the limit of 1048576 bytes"),
             (["note", "create", "t", "--content-file", str(latin)], "cannot read"),
             (["memory", "read", "../x"], "not a valid id"),
             (["memory", "forget", "../x"], "not a valid id")]
    for argv, expected in cases:
        code, out, err = _cli(tmp_path, capsys, *argv)
        assert code == 2 and out == "", argv
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("ctxnotes: error:") and expected in lines[0], (argv, err)
    assert snapshot(tmp_path / "ws") == before


def test_cli_reports_hostile_files_and_runs_nothing(tmp_path, capsys):
    assert _cli(tmp_path, capsys, "note", "create", "good", "--content", "fine")[0] == 0
    marker, outside = tmp_path / "pwned", tmp_path / "outside.md"
    _drop_hostile_files(tmp_path / "ws", marker, outside)
    code, out, err = _cli(tmp_path, capsys, "doctor")
    assert code == 0 and "unreadable files (8)" in out and "symbolic link" in out
    code, out, err = _cli(tmp_path, capsys, "note", "read", "link")
    assert code == 2 and "symbolic link" in err and "secret outside" not in out + err
    code, out, err = _cli(tmp_path, capsys, "note", "read", "mismatch")
    assert code == 2 and "disagrees with the file name" in err
    code, out, err = _cli(tmp_path, capsys, "note", "search", "leakmarker")
    assert code == 0 and "secret outside" not in out
    assert _cli(tmp_path, capsys, "reindex")[0] == 0
    assert not marker.exists()


def test_cli_subprocess_error_is_one_line_exit_2(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "server.cli", "--workspace", str(tmp_path / "ws"), "note", "read",
                           "../../etc/passwd"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "not a valid id" in proc.stderr
    assert "root:" not in proc.stderr


# -- HTTP exposure -----------------------------------------------------------------------------------------

def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path, *extra, env=None):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--http", "--port", str(port),
                             "--workspace", str(tmp_path / "ws"), *extra], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**{k: v for k, v in os.environ.items() if k != "CTXNOTES_TOKEN"}, **(env or {})})
    import socket
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not start")


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stderr.close()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HDRS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CREATE = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "note_create", "arguments": {"title": "intruder", "content": "should not be saved"}}}
DELETE_ALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "reindex", "arguments": {}}}


async def test_http_token_default_loopback_and_foreign_host_origin(tmp_path):
    token = secrets.token_urlsafe(24)
    proc, port = _serve(tmp_path, env={"CTXNOTES_TOKEN": token})
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        async with httpx2.AsyncClient(timeout=30) as http:
            good = {**HDRS, "Authorization": f"Bearer {token}"}
            r = await http.post(url, json=INIT, headers=good)
            assert r.status_code == 200
            session = r.headers.get("mcp-session-id")
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                            headers={**good, **({"mcp-session-id": session} if session else {})})
            before = snapshot(tmp_path / "ws")
            sess = {"mcp-session-id": session} if session else {}
            for auth in (None, "Bearer wrong", f"Bearer {token}x", f"Bearer {token[:-1]}", token,
                         f"Basic {token}", f"bearer  {token} extra"):
                h = {**HDRS, **sess, **({"Authorization": auth} if auth is not None else {})}
                for body in (CREATE, DELETE_ALL, INIT):
                    r = await http.post(url, json=body, headers=h)
                    assert r.status_code == 401, (auth, body["method"], r.status_code)
                    assert "should not be saved" not in r.text
                assert (await http.get(url, headers=h)).status_code == 401
                assert (await http.delete(url, headers=h)).status_code == 401
            assert snapshot(tmp_path / "ws") == before
            assert not list((tmp_path / "ws" / "notes").glob("*.md"))
            # A valid token does not bypass DNS-rebinding protection.
            r = await http.post(url, json=INIT, headers={**good, "Host": "evil.example"})
            assert r.status_code == 421
            for origin in ("http://evil.example", "http://127.0.0.1.evil.example", "http://localhost.evil.example:80",
                           "null"):
                r = await http.post(url, json=INIT, headers={**good, "Origin": origin})
                assert r.status_code == 403, origin
            r = await http.post(url, json=INIT, headers={**good, "Origin": f"http://127.0.0.1:{port}"})
            assert r.status_code == 200
        # Default bind is loopback only: 127.0.0.1, not every address (127.0.0.2 is loopback too, but
        # only a wildcard bind would answer there).
        import socket
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", port), timeout=1).close()
    finally:
        _stop(proc)


@pytest.mark.parametrize("host,token", [("0.0.0.0", None), ("::", None), ("192.0.2.10", None),
                                        ("localhost.evil.example", None), ("0.0.0.0", "")])
def test_non_loopback_bind_without_token_refused(tmp_path, capsys, monkeypatch, host, token):
    """In process (the real CLI code path; the subprocess variant is in test_server_transports.py)."""
    import server.cli_serve as cli_serve
    monkeypatch.delenv("CTXNOTES_TOKEN", raising=False)
    if token is not None:
        monkeypatch.setenv("CTXNOTES_TOKEN", token)
    monkeypatch.setattr(cli_serve, "run_http", lambda *a, **k: pytest.fail(f"would have served on {host}"))
    code = cli_main(["serve", "--http", "--host", host, "--workspace", str(tmp_path / "ws")])
    out, err = capsys.readouterr()
    assert code == 2 and "without a token" in err and out == ""
    assert not (tmp_path / "ws").exists()
