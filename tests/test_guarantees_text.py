"""Text guarantees checked against what the client SENT, through MCP tools.

- Chinese words are found inside sentences (no spaces between words) by ``note_search``; characters
  of the query scattered through another note do not make it a hit. An index of single characters
  without bigrams fails the first check; a query split into single characters fails the second.
- Line endings: content is stored with ``\\n`` line endings (``\\r\\n`` and a lone ``\\r`` each become
  ``\\n``); every other character, including trailing spaces, blank lines, tabs, a BOM and
  non-normalised Unicode, comes back exactly as sent.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio


def normalise_line_endings(text: str) -> str:
    """The documented rule, written independently of the store: CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


async def _create(client, title: str, content: str) -> str:
    r = await client.call_tool("note_create", {"title": title, "content": content})
    assert not r.is_error, r.content[0].text
    return r.structured_content["id"]


async def _hits(client, query: str) -> list[str]:
    r = await client.call_tool("note_search", {"query": query, "limit": 20})
    assert not r.is_error, r.content[0].text
    return [h["id"] for h in r.structured_content["hits"]]


async def test_chinese_words_found_inside_sentences(client):
    target = await _create(client, "进度", "已完成数据模型层的重构，下一步是接口联调。")
    other = await _create(client, "会议", "讨论了发布计划和测试覆盖率。")
    # Every character of 数据模型 and 重构 occurs here, but never two of them next to each other.
    scattered = await _create(client, "散字", "型号的数量有证据，模样很重要，结构不同。")
    for query in ("数据模型", "数据", "模型层", "重构", "接口联调", "已完成"):
        assert await _hits(client, query) == [target], query
    assert await _hits(client, "发布计划") == [other]
    assert scattered not in await _hits(client, "数据模型 重构")
    assert await _hits(client, "型号") == [scattered]
    # A word that is absent stays absent even though all its characters are present in two notes.
    assert await _hits(client, "据重") == []


async def test_chinese_inside_mixed_sentences_and_titles(client):
    target = await _create(client, "关于缓存失效的结论", "Redis缓存TTL设为300秒后，命中率提升到95%。")
    assert await _hits(client, "缓存失效") == [target]
    assert await _hits(client, "命中率") == [target]
    assert await _hits(client, "redis 命中率") == [target]


LINE_ENDING_CASES = [
    "a\r\nb",
    "trailing\r",
    "x\ry",
    "mixed\r\n\n\r",
    "\r\n\r\nstarts with blank lines",
    "ends with CRLF\r\n",
    "plain\nunix\n",
    "no newline at end",
    "tail spaces   \n\n\n",
    "\ttabs\tand  double  spaces",
    "\ufeffstarts with a BOM",
    "decomposed e\u0301 and composed \u00e9",
    "---\nlooks: like front matter\n---\n",
    "",
]


@pytest.mark.parametrize("sent", LINE_ENDING_CASES, ids=[repr(c)[:30] for c in LINE_ENDING_CASES])
async def test_note_content_round_trip_against_the_input(client, sent):
    expected = normalise_line_endings(sent)
    created = await client.call_tool("note_create", {"title": "le", "content": sent})
    assert not created.is_error, created.content[0].text
    note_id = created.structured_content["id"]
    read = await client.call_tool("note_read", {"note_id": note_id})
    assert read.structured_content["content"] == expected, (sent, read.structured_content["content"])
    # The same rule for an update, and for the resource that serves the raw file.
    updated = await client.call_tool("note_update", {"note_id": note_id, "content": sent + "\r\nmore"})
    assert not updated.is_error, updated.content[0].text
    read = await client.call_tool("note_read", {"note_id": note_id})
    assert read.structured_content["content"] == normalise_line_endings(sent + "\r\nmore")
    raw = (await client.read_resource(f"note://{note_id}")).contents[0].text
    assert "\r" not in raw


@pytest.mark.parametrize("sent", ["a\r\nb", "trailing\r", "keep  \n\n", "\ufeffbom e\u0301"])
async def test_memory_content_round_trip_against_the_input(client, sent):
    r = await client.call_tool("memory_add", {"content": sent, "memory_type": "semantic"})
    assert not r.is_error, r.content[0].text
    memory_id = r.structured_content["id"]
    read = await client.call_tool("memory_read", {"memory_id": memory_id})
    assert read.structured_content["content"] == normalise_line_endings(sent)
