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
from pathlib import Path

import pytest
from helpers import INIT, MCP_HEADERS as HDRS
from helpers import http_client, mcp_http, run_cli
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
    ("note_create", {"title": "t", "tags": [1, 2]}, "tags[0] must be a string; got 1"),
    ("note_create", {"title": "t", "tags": [{"a": 1}]}, "tags[0] must be a string"),
    ("note_create", {"title": "t", "tags": "one"}, "tags must be a list; got 'one'"),
    ("note_create", {"title": "t", "tags": ["a\nb"]}, "control characters"),
    ("note_create", {"title": 7}, "title must be a string; got 7"),
    ("note_create", {"title": "t", "content": "a\x00b"}, "NUL"),
    ("note_create", {"title": "t", "content": "x" * ((1 << 20) + 1)}, "over the limit of 1048576 bytes"),
    ("memory_add", {"content": "x" * ((1 << 20) + 1)}, "over the limit of 1048576 bytes"),
    ("memory_add", {"content": "x", "tags": [3]}, "tags[0] must be a string; got 3"),
])
async def test_broken_input_is_a_clear_error_and_writes_nothing(client, tmp_path, tool, args, expected):
    await client.call_tool("note_list", {})  # opens the workspace, so the snapshot has its layout
    before = snapshot(tmp_path / "ws")
    res = await client.call_tool(tool, args)
    assert classify(tool, res) == "tool_error" and expected in error_text(res), error_text(res)[:300]
    assert snapshot(tmp_path / "ws") == before


async def test_titles_that_look_like_front_matter_round_trip(server, client, tmp_path):
    from notes_store.files.front_matter import parse_document
    pwned = tmp_path / "pwned"
    for title in ["---", "--- x ---", "a: b", "id: evil", f"!!python/object/apply:os.system ['touch {pwned}']",
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
    # Pages whose front matter holds YAML tags are read as pages (the tags are refused, never run); a link,
    # binary and non-UTF-8 files stay unreadable.
    assert set(unreadable) == {"notes/binary.md", "notes/latin1.md", "notes/link.md"}
    assert "symbolic link" in unreadable["notes/link.md"]
    assert "UTF-8" in unreadable["notes/latin1.md"]
    assert {p["id"] for p in summary["front_matter_problems"]} == {"yamlbomb", "yamlnew"}
    mem_summary = (await client.call_tool("memory_summary", {})).structured_content
    assert {u["path"] for u in mem_summary["unreadable"]} == {"memory/membomb.md", "memory/mlink.md"}
    hits = (await client.call_tool("note_search", {"query": "leakmarker"})).structured_content["hits"]
    assert {h["id"] for h in hits} == {good_id, "mismatch", "yamlbomb"}   # pages in notes/; never the link's target
    assert all("secret outside" not in h["snippet"] for h in hits)
    for tool, args in [("note_read", {"note_id": "link"}), ("note_update", {"note_id": "link", "content": "x"}),
                       ("memory_read", {"memory_id": "mlink"}), ("memory_update", {"memory_id": "mlink",
                                                                                   "content": "x"})]:
        res = await client.call_tool(tool, args)
        assert classify(tool, res) == "tool_error", (tool, error_text(res))
        texts.append(error_text(res))
    with pytest.raises(MCPError):
        await client.read_resource("note://link")
    for uri in ("note://mismatch", "note://yamlbomb"):   # pages: their file exactly as stored
        assert (await client.read_resource(uri)).contents[0].text == (root / "notes" / f"{uri[7:]}.md").read_text()
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
    assert code == 0 and "unreadable files (5)" in out and "symbolic link" in out
    code, out, err = _cli(tmp_path, capsys, "note", "read", "link")
    assert code == 2 and "symbolic link" in err and "secret outside" not in out + err
    code, out, err = _cli(tmp_path, capsys, "note", "read", "yamlbomb")
    assert code == 0 and "!!python" not in out.split("---")[-1]
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

CREATE = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "note_create", "arguments": {"title": "intruder", "content": "should not be saved"}}}
DELETE_ALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "reindex", "arguments": {}}}


async def test_http_token_default_loopback_and_foreign_host_origin(tmp_path, http_server):
    token = secrets.token_urlsafe(24)
    srv = http_server(env={"CTXNOTES_TOKEN": token})
    url, port = srv.url, srv.port
    async with http_client() as http:
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


async def test_http_token_flag_through_the_cli(http_server):
    """``serve --token`` (the flag, not the environment variable) guards every request."""
    srv = http_server("--token", "flag-token-123")
    async with http_client() as http:
        assert (await http.post(srv.url, json=INIT, headers=HDRS)).status_code == 401
        wrong = await http.post(srv.url, json=INIT, headers={**HDRS, "Authorization": "Bearer flag-token-12"})
        assert wrong.status_code == 401
    async with mcp_http(srv.url, token="flag-token-123") as client:
        r = await client.call_tool("note_create", {"title": "with the flag token"})
        assert not r.is_error, error_text(r)


# Host headers a DNS-rebinding page would send (an attacker's name resolving to us), and Host headers a
# legitimate client sends when it reaches a wildcard bind by address.
FOREIGN_HOSTS = ["evil.example", "evil.example:80", "127.0.0.1.evil.example", "localhost.evil.example:8765",
                 "notes.lan", "notes.lan:8765", "[evil.example]:1", "127.0.0.1:80x", ""]
ADDRESS_HOSTS = ["127.0.0.1", "127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "192.168.1.5:{port}",
                 "10.0.0.7", "[::1]:{port}", "[fe80::1]"]


async def _status(http, url, headers):
    r = await http.post(url, json=INIT, headers=headers)
    return r.status_code


@pytest.mark.parametrize("allowed", [False, True])
async def test_wildcard_bind_checks_host_and_origin(http_server, allowed):
    """``--host 0.0.0.0``: IP literals and localhost only, plus ``--allowed-host`` names when given.

    The server binds every address but the test connects through 127.0.0.1 only, sending Host by hand.
    """
    token = secrets.token_urlsafe(16)
    extra = ("--allowed-host", "notes.lan") if allowed else ()
    srv = http_server(*extra, host="0.0.0.0", env={"CTXNOTES_TOKEN": token})
    good = {**HDRS, "Authorization": f"Bearer {token}"}
    async with http_client() as http:
        for host in ADDRESS_HOSTS:
            host = host.format(port=srv.port)
            assert await _status(http, srv.url, {**good, "Host": host}) == 200, host
        for host in FOREIGN_HOSTS:
            expected = 200 if allowed and host.startswith("notes.lan") else 421
            assert await _status(http, srv.url, {**good, "Host": host}) == expected, host
        # The same with a valid token missing: foreign names never reach the token check's 200.
        assert await _status(http, srv.url, {**HDRS, "Host": "evil.example"}) == 421
        for origin, ok in [("http://127.0.0.1:3000", True), ("http://localhost:8080", True),
                           ("https://192.168.1.5", True), ("http://[::1]:9", True),
                           ("http://evil.example", False), ("http://127.0.0.1.evil.example", False),
                           ("null", False), ("file://", False), ("http://user@127.0.0.1", False),
                           ("http://notes.lan:8765", allowed), ("https://NOTES.lan", allowed),
                           ("http://notes.lan.evil.example", False)]:
            code = await _status(http, srv.url, {**good, "Origin": origin})
            assert code == (200 if ok else 403), (origin, code)
        r = await http.post(srv.url, json=INIT, headers={**good, "Host": "evil.example"})
        assert "--allowed-host" in r.text  # the refusal says how to allow a name


def test_host_and_origin_rules():
    from server.http_security import host_header_allowed, normalise_allowed_hosts, origin_allowed
    allowed = normalise_allowed_hosts(["Notes.LAN", "box:8765", "[fd00::5]"])
    assert allowed == {"notes.lan", "box", "fd00::5"}
    for host in ("localhost", "127.0.0.1:1", "[::1]", "[::1]:80", "8.8.8.8", "notes.lan:9", "BOX"):
        assert host_header_allowed(host, allowed), host
    for host in (None, "", "evil", "::1", "[::1", "[::1]x", "[notes.lan]", "127.0.0.1:", "127.0.0.1:x",
                 "localhost.", "127.1", "0x7f.0.0.1", "notes.lan.evil"):
        assert not host_header_allowed(host, allowed), host
    assert origin_allowed(None, allowed) and origin_allowed("http://box", allowed)
    for origin in ("", "null", "ftp://127.0.0.1", "http://127.0.0.1/x", "http://127.0.0.1:99999", "http://evil",
                   "http://127.0.0.1?x", "javascript:alert(1)"):
        assert not origin_allowed(origin, allowed), origin
    for bad in ("", "a/b", "http://x", "u@h"):
        with pytest.raises(ValueError, match="--allowed-host"):
            normalise_allowed_hosts([bad])


async def test_serve_git_autocommit_flag_through_the_cli(tmp_path, http_server):
    """``ctxnotes --git-autocommit serve``: every tool write is a commit; without the flag, none is."""
    import shutil
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(ws: Path, *args: str) -> str:
        return subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True, timeout=60,
                              check=True, env={**os.environ, **env}).stdout

    results = {}
    for flag in (True, False):
        ws = tmp_path / f"ws-{flag}"
        assert run_cli(["--workspace", str(ws), "init", "--git"], env=env).returncode == 0
        commits_before = len(git(ws, "log", "--oneline").splitlines())
        srv = http_server(workspace=ws, env=env, global_args=("--git-autocommit",) if flag else ())
        async with mcp_http(srv.url) as client:
            r = await client.call_tool("note_create", {"title": "committed?", "content": "body"})
            assert not r.is_error, error_text(r)
            note_id = r.structured_content["id"]
        srv.stop()
        results[flag] = (len(git(ws, "log", "--oneline").splitlines()) - commits_before,
                         git(ws, "status", "--porcelain", "--", "notes"), note_id)
    new_commits, status, note_id = results[True]
    assert new_commits >= 1 and status == "", results
    new_commits, status, note_id = results[False]
    assert new_commits == 0 and "notes/" in status, results  # the write is there, uncommitted


@pytest.mark.parametrize("host,token", [("0.0.0.0", None), ("::", None), ("192.0.2.10", None),
                                        ("localhost.evil.example", None), ("0.0.0.0", "")])
def test_non_loopback_bind_without_token_refused(tmp_path, capsys, monkeypatch, host, token):
    """In process (the real CLI code path; the subprocess variant is in test_server_transports.py)."""
    import server.cli.serve as cli_serve
    monkeypatch.delenv("CTXNOTES_TOKEN", raising=False)
    if token is not None:
        monkeypatch.setenv("CTXNOTES_TOKEN", token)
    monkeypatch.setattr(cli_serve, "run_http", lambda *a, **k: pytest.fail(f"would have served on {host}"))
    code = cli_main(["serve", "--http", "--host", host, "--workspace", str(tmp_path / "ws")])
    out, err = capsys.readouterr()
    assert code == 2 and "without a token" in err and out == ""
    assert not (tmp_path / "ws").exists()
