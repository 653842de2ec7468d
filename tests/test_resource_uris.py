"""One spelling per resource: ``note://<id>`` and ``memory://<id>`` only; every other spelling is refused with
the right one, on ``resources/read``, ``resources/subscribe``, ``resources/unsubscribe`` and ``subscriptions/listen`` (issue 17, item 10).

The SDK %-decodes template variables before a handler sees them, so these go through the real MCP request
path (in-process client, both protocol eras); ``test_attacks_server.py`` replays them against a subprocess.
"""

from __future__ import annotations

import warnings

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from server.app import create_server
from server.live import uri_problem

pytestmark = pytest.mark.anyio


def escape_one_letter(item_id: str) -> str:
    """``plain`` -> ``pl%61in``: a %-escape of a character that needs none."""
    i = 2
    return item_id[:i] + f"%{ord(item_id[i]):02X}" + item_id[i + 1:]


def other_spellings(scheme: str, item_id: str) -> list[str]:
    return [f"{scheme}://{s}" for s in (
        escape_one_letter(item_id), escape_one_letter(item_id).lower(), f"{item_id}%20", f"{item_id}%0A",
        f"{item_id}.md", f"{item_id}%2Emd", f"{item_id}/", f"{item_id}?x=1", f"{item_id}#top", f" {item_id}",
        "".join(f"%{ord(c):02x}" for c in item_id))] + [f"{scheme.upper()}://{item_id}"]


@pytest.fixture
def server(tmp_path):
    srv = create_server(tmp_path / "ws")
    yield srv
    srv.workspace_handle.close()


@pytest.mark.parametrize("mode", [None, "legacy"], ids=["2026-era", "handshake-era"])
async def test_only_the_canonical_uri_resolves(server, mode):
    options = {"mode": mode} if mode else {}
    async with Client(server, **options) as c:
        note_id = (await c.call_tool("note_create", {"title": "plain", "content": "body"})).structured_content["id"]
        mem_id = (await c.call_tool("memory_add", {"content": "a fact"})).structured_content["id"]
        for scheme, item_id, text in (("note", note_id, "body"), ("memory", mem_id, "a fact")):
            ok = await c.read_resource(f"{scheme}://{item_id}")
            assert text in ok.contents[0].text
            for spelling in other_spellings(scheme, item_id):
                with pytest.raises(MCPError) as err:
                    await c.read_resource(spelling)
                message = str(err.value)
                assert f"did you mean {scheme}://{item_id}?" in message, (spelling, message)
                assert "not a canonical" in message and err.value.error.code == -32602


async def test_subscriptions_take_only_the_canonical_uri(server):
    async with Client(server, mode="legacy") as c:
        note_id = (await c.call_tool("note_create", {"title": "plain", "content": "body"})).structured_content["id"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 era
            await c.subscribe_resource(f"note://{note_id}")
            await c.subscribe_resource("note://not-made-yet")  # a canonical URI need not exist yet
            for spelling in other_spellings("note", note_id):
                with pytest.raises(MCPError) as err:
                    await c.subscribe_resource(spelling)
                assert f"did you mean note://{note_id}?" in str(err.value), spelling
                with pytest.raises(MCPError) as err:
                    await c.unsubscribe_resource(spelling)
                assert f"did you mean note://{note_id}?" in str(err.value), spelling
            await c.unsubscribe_resource(f"note://{note_id}")
    async with Client(server) as c:
        with pytest.raises(MCPError) as err:
            async with c.listen(resource_subscriptions=[f"note://{escape_one_letter(note_id)}"]):
                pass
        assert f"did you mean note://{note_id}?" in str(err.value)


def test_uri_problem_leaves_other_schemes_and_canonical_ids_alone():
    assert uri_problem("note://plain") is None and uri_problem("memory://mem_1.x-y") is None
    assert uri_problem("notes://recent") is None and uri_problem("file:///etc/passwd") is None
    assert "did you mean" not in (uri_problem("note://../etc") or "")
    assert "did you mean" not in (uri_problem("note://") or "")
    long = uri_problem("note://" + "%41" * 100_000) or ""
    assert len(long) < 600  # a huge URI is not echoed back whole


async def test_subscriptions_are_bounded_per_session_in_count_and_uri_length(server, monkeypatch):
    """Each subscription is watched for the session's life: a client cannot add them without end."""
    from server import live
    monkeypatch.setattr(live, "MAX_SUBSCRIPTIONS", 5)
    async with Client(server, mode="legacy") as c:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 era
            with pytest.raises(MCPError) as err:
                await c.subscribe_resource("https://example.com/" + "a" * live.MAX_SUBSCRIBED_URI_CHARS)
            assert "at most 2,048" in str(err.value)
            for k in range(5):
                await c.subscribe_resource(f"note://n{k}")
            await c.subscribe_resource("note://n4")      # the same one again is no new subscription
            with pytest.raises(MCPError) as err:
                await c.subscribe_resource("note://n5")
            assert "already has 5 subscriptions" in str(err.value)
            await c.unsubscribe_resource("note://n0")
            await c.subscribe_resource("note://n5")      # room again


async def test_a_closed_session_leaves_nothing_watched(server):
    """Over HTTP the event loop outlives every session: a closed session's subscriptions (and its connection)
    must go with it, or 3,000 open/subscribe/close sessions keep 3,000 targets watched for ever."""
    import gc
    watcher = server.live_watcher
    for k in range(5):
        async with Client(server, mode="legacy") as c:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 era
                await c.subscribe_resource(f"note://n{k}")
            assert len(watcher._targets) == 1 and watcher._targets[0].uris == {f"note://n{k}"}
        assert watcher._targets == [], f"session {k} is still watched after it closed"
    gc.collect()
    assert len(watcher._sessions) == 0  # no connection kept alive by the watcher


async def test_a_change_right_after_subscribing_is_reported_whatever_the_watcher_does_meanwhile(server):
    """The watcher keeps stamps only for watched URIs: when the baseline was taken before the URI was
    watched, a pass in between dropped it, and a change right after that was taken for the starting state
    (test_subscribe_over_stdio failed now and then). A pass and a change are forced into that window."""
    import anyio

    watcher = server.live_watcher
    got: list[str] = []

    async def inbox(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            got.append(str(root.params.uri))

    async with Client(server, mode="legacy", message_handler=inbox) as c:
        note = (await c.call_tool("note_create", {"title": "watched", "content": "v1"})).structured_content
        path = server.workspace_handle.path / "notes" / f"{note['id']}.md"
        real = watcher.baseline

        def baseline_then_pass_then_change(uris, wants_list):
            real(uris, wants_list)
            watcher._pass(watcher._snapshot_targets())      # a pass of the thread, now
            path.write_text(path.read_text(encoding="utf-8") + "\nedited right away\n", encoding="utf-8")

        watcher.baseline = baseline_then_pass_then_change
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 era
            await c.subscribe_resource(note["uri"])
        watcher.baseline = real
        with anyio.fail_after(10):
            while note["uri"] not in got:
                await anyio.sleep(0.05)
