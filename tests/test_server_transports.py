"""The server as real processes: ``ctxnotes serve`` over stdio and over streamable HTTP."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import INIT, MCP_HEADERS, http_client, mcp_http, run_cli
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[1]


async def roundtrip(client: Client) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert {"note_create", "note_search", "note_read", "note_delete"} <= names
    r = await client.call_tool("note_create", {"title": "Transport check", "content": "通过 stdio 保存的笔记 zebra",
                                               "note_type": "conclusion", "tags": ["t"]})
    assert not r.is_error, r.content[0].text
    note_id = r.structured_content["id"]
    r = await client.call_tool("note_search", {"query": "zebra"})
    assert [h["id"] for h in r.structured_content["hits"]] == [note_id]
    r = await client.call_tool("note_read", {"note_id": note_id})
    assert r.structured_content["content"] == "通过 stdio 保存的笔记 zebra"
    r = await client.call_tool("note_delete", {"note_id": note_id})
    assert r.structured_content["deleted"] is True
    r = await client.call_tool("note_read", {"note_id": note_id})
    assert r.is_error


async def test_stdio_subprocess_roundtrip(tmp_path):
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "server.cli", "serve", "--workspace", str(tmp_path / "ws")],
                                   cwd=str(REPO))
    async with Client(params, mode="legacy") as client:
        await roundtrip(client)
    assert list((tmp_path / "ws" / "notes").iterdir()) == []


def test_stdio_stdout_carries_only_protocol(tmp_path):
    """A raw exchange: every stdout line is a JSON-RPC message; logs go to stderr."""
    import json
    proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--workspace", str(tmp_path / "ws")],
                            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    watchdog = threading.Timer(60, proc.kill)  # a hung server fails the test instead of hanging the suite
    watchdog.start()
    try:
        for msg in (INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                    {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "note_create", "arguments": {"title": "raw"}}}):
            proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        msgs = [json.loads(proc.stdout.readline()) for _ in range(3)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=15)
        rest = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
        watchdog.cancel()
    assert [m.get("id") for m in msgs] == [1, 2, 3] and rest.strip() == ""
    assert any(t["name"] == "note_create" for t in msgs[1]["result"]["tools"])
    assert msgs[2]["result"]["structuredContent"]["title"] == "raw"


async def test_http_without_token_roundtrip_and_dns_rebinding(http_server):
    url = http_server().url
    async with mcp_http(url) as client:
        await roundtrip(client)
    async with http_client() as http:
        ok = await http.post(url, json=INIT, headers=MCP_HEADERS)
        assert ok.status_code == 200
        bad_host = await http.post(url, json=INIT, headers={**MCP_HEADERS, "Host": "evil.example:80"})
        assert bad_host.status_code == 421
        bad_origin = await http.post(url, json=INIT, headers={**MCP_HEADERS, "Origin": "http://evil.example"})
        assert bad_origin.status_code == 403


async def test_http_with_token(http_server):
    url = http_server(env={"CTXNOTES_TOKEN": "s3cret-token"}).url
    async with http_client() as http:
        assert (await http.post(url, json=INIT, headers=MCP_HEADERS)).status_code == 401
        wrong = await http.post(url, json=INIT, headers={**MCP_HEADERS, "Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "invalid bearer token" in wrong.text
        assert wrong.headers["www-authenticate"].startswith("Bearer")
    async with mcp_http(url, token="s3cret-token") as client:
        await roundtrip(client)


async def test_http_clients_share_one_store(http_server):
    import anyio
    url = http_server().url

    async def writer(i: int, ids: list) -> None:
        async with mcp_http(url) as client:
            for j in range(5):
                r = await client.call_tool("note_create", {"title": f"c{i} n{j}", "content": f"shared{i} body"})
                assert not r.is_error
                ids.append(r.structured_content["id"])

    ids: list = []
    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(writer, i, ids)
    async with mcp_http(url) as client:
        r = await client.call_tool("note_list", {"limit": 100})
        assert r.structured_content["total"] == 15 and len(set(ids)) == 15
        r = await client.call_tool("note_search", {"query": "body", "limit": 100})
        assert r.structured_content["total"] == 15


def test_non_loopback_without_token_is_refused(tmp_path):
    proc = run_cli(["serve", "--http", "--host", "0.0.0.0", "--workspace", str(tmp_path / "ws")], timeout=60)
    assert proc.returncode == 2
    assert "without a token" in proc.stderr and proc.stdout == ""




@pytest.mark.parametrize("flags,expected", [
    (["--max-body-bytes", "0"], "--max-body-bytes 0 must be a positive number"),
    (["--max-connections", "-1"], "--max-connections -1 must be a positive number"),
    (["--max-buffered-bytes", "10"], "is smaller than --max-body-bytes"),
    (["--body-timeout", "nan"], "--body-timeout nan must be a positive number of seconds"),
    (["--session-idle-timeout", "0"], "--session-idle-timeout 0 must be"),
    (["--allowed-host", "http://x"], "is not a host name"),
    (["--port", "70000"], "is not a valid port"),
])
def test_bad_http_flags_are_one_line_errors(tmp_path, capsys, monkeypatch, flags, expected):
    import server.cli.serve as cli_serve
    from server.cli import main as cli_main
    monkeypatch.setattr(cli_serve, "run_http", lambda *a, **k: pytest.fail("would have served"))
    code = cli_main(["serve", "--http", *flags, "--workspace", str(tmp_path / "ws")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and expected in err, err


def test_port_in_use_is_a_one_line_error(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        proc = run_cli(["serve", "--http", "--port", str(taken.getsockname()[1]), "--workspace", str(tmp_path / "ws")],
                       timeout=60)
    assert proc.returncode == 2 and "Address already in use" in proc.stderr and "--port" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
