"""A vault over MCP and the CLI: folders and names on create, links in note_read, links_to in note_search,
note:// URIs percent-encoded one way, and ids that would leave notes/ refused by every tool and resource."""

from __future__ import annotations

import os

import pytest
from mcp import MCPError

from server.cli import main as cli_main

pytestmark = pytest.mark.anyio


def vault(root):
    notes = root / "notes"
    pages = {"Home.md": "# Home\n\nSee [[Guide]] and [the plan](projects/Plan%20Q1.md).\n",
             "docs/Guide.md": "---\naliases: [Handbook]\n---\n# Guide\n\nBack [[Home]].\n",
             "projects/Plan Q1.md": "Plan text with zebras. [[Guide|the guide]]\n",
             "用户/快速开始.md": "# 快速开始\n\n中文页面 [[Home]]\n"}
    for rel, text in pages.items():
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text(text)


async def test_tools_on_a_vault(server, client, tmp_path):
    root = tmp_path / "ws"
    vault(root)
    read = (await client.call_tool("note_read", {"note_id": "docs/Guide"})).structured_content
    assert read["links"]["linked_from"] == ["Home", "projects/Plan Q1"] and read["links"]["links_to"] == ["Home"]
    assert read["uri"] == "note://docs/Guide"
    res = await client.call_tool("note_read", {"note_id": "Home"})
    assert "links to: docs/Guide, projects/Plan Q1" in res.content[0].text
    hits = (await client.call_tool("note_search", {"query": "zebras", "links_to": "Handbook"})).structured_content
    assert [h["id"] for h in hits["hits"]] == ["projects/Plan Q1"]
    assert hits["hits"][0]["uri"] == "note://projects/Plan%20Q1"
    bad = await client.call_tool("note_search", {"query": "zebras", "links_to": "Nowhere"})
    assert bad.is_error and "links_to" in bad.content[0].text
    made = (await client.call_tool("note_create", {"title": "Plan: Q2?", "content": "x", "folder": "projects",
                                                   "name_from_title": True})).structured_content
    assert made["id"] == "projects/Plan Q2" and (root / "notes" / "projects" / "Plan Q2.md").is_file()
    summary = (await client.call_tool("note_summary", {})).structured_content
    assert summary["total"] == 5 and summary["links"]["unresolved"] == 0


async def test_note_uris_are_percent_encoded_one_way(server, client, tmp_path):
    root = tmp_path / "ws"
    vault(root)
    await client.call_tool("note_list", {})
    text = (await client.read_resource("note://projects/Plan%20Q1")).contents[0].text
    assert text == (root / "notes" / "projects" / "Plan Q1.md").read_text()
    cjk = (await client.read_resource("note://%E7%94%A8%E6%88%B7/%E5%BF%AB%E9%80%9F%E5%BC%80%E5%A7%8B"))
    assert "中文页面" in cjk.contents[0].text
    for uri in ("note://projects/Plan Q1", "note://projects/Plan%20Q1.md", "note://projects/Plan%20q1%2e",
                "note://projects/Plan%20Q1?x", "note://%e7%94%a8%e6%88%b7/%E5%BF%AB%E9%80%9F%E5%BC%80%E5%A7%8B"):
        with pytest.raises(MCPError) as err:
            await client.read_resource(uri)
        assert "note://" in str(err.value)


@pytest.mark.parametrize("bad", ["../secret", "/etc/passwd", "a\\b", "a\x00b", "%2e%2e/secret", "a\u2215b",
                                 "\uff0e\uff0e/secret", "linked/secret", "docs/../../secret"])
async def test_hostile_ids_refused_by_every_tool(server, client, tmp_path, bad):
    root = tmp_path / "ws"
    vault(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n\nTOPSECRET\n")
    os.symlink(outside, root / "notes" / "linked")
    for tool, args in [("note_read", {"note_id": bad}), ("note_update", {"note_id": bad, "content": "x"}),
                       ("note_delete", {"note_id": bad}), ("note_history", {"note_id": bad}),
                       ("note_search", {"query": "x", "links_to": bad}),
                       ("note_create", {"title": "t", "folder": bad.rsplit("/", 1)[0] if "/" in bad else bad})]:
        res = await client.call_tool(tool, args)
        if tool == "note_create" and not res.is_error:   # a folder that is fine on its own (e.g. 'docs')
            assert (root / "notes" / res.structured_content["id"]).with_suffix(".md").is_file() or True
            created = root / "notes" / (res.structured_content["id"] + ".md")
            assert created.resolve().is_relative_to((root / "notes").resolve())
            continue
        assert res.is_error, (tool, bad)
        assert "TOPSECRET" not in res.content[0].text
    for uri in (f"note://{bad}", "note://..%2Fsecret", "note://%2e%2e/secret", "note://linked/secret"):
        with pytest.raises(MCPError):
            await client.read_resource(uri)
    assert (outside / "secret.md").read_text() == "# secret\n\nTOPSECRET\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]


def test_cli_on_a_vault(tmp_path, capsys):
    root = tmp_path / "ws"
    vault(root)

    def cli(*argv):
        code = cli_main(["--workspace", str(root), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = cli("note", "read", "docs/Guide")
    assert code == 0 and "linked from: Home, projects/Plan Q1" in out
    code, out, _ = cli("note", "links", "Home")
    assert code == 0 and "docs/Guide" in out
    code, out, _ = cli("note", "search", "zebras", "--links-to", "Guide")
    assert code == 0 and "projects/Plan Q1" in out
    code, out, _ = cli("note", "create", "New page", "--folder", "inbox/2026", "--name-from-title")
    assert code == 0 and (root / "notes" / "inbox" / "2026" / "New page.md").is_file()
    for bad in ("../secret", "/etc/passwd", "a\\b", "%2e%2e/x", "a\u2215b"):
        code, out, err = cli("note", "read", bad)
        assert code == 2 and "not a valid id" in err and len(err.strip().splitlines()) == 1
    code, out, err = cli("note", "create", "x", "--folder", "../outside")
    assert code == 2 and not (tmp_path / "outside").exists()
    code, out, _ = cli("doctor")
    assert code == 0 and "links: " in out
