"""build_context over MCP with sampling: the client's LLM summary lands in the context; without
sampling, or when it fails, the extractive fallback is used and said so."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.types import CreateMessageResult, ErrorData, TextContent

LONG = " ".join(f"Sentence {i} about token refresh and clock skew in the auth service." for i in range(400))
pytestmark = pytest.mark.anyio

ARGS = {"query": "why does token refresh fail?", "max_tokens": 400,
        "documents": [{"source": "log", "content": LONG}],
        "options": {"include_notes": False, "include_memory": False}}


def _compressed(r) -> list[dict]:
    return r.structured_content["compressed"]


async def test_sampling_summary_is_what_lands_in_the_context(server):
    calls = []

    async def sampling(context, params):
        calls.append(params)
        return CreateMessageResult(role="assistant", model="fake",
                                   content=TextContent(type="text", text="SUMMARY: refresh fails on clock skew"))

    with anyio.fail_after(60):
        async with Client(server, mode="legacy", sampling_callback=sampling) as c:
            r = await c.call_tool("build_context", ARGS)
    assert not r.is_error, r.content[0].text
    assert len(calls) == 1
    prompt = calls[0].messages[0].content.text
    assert "why does token refresh fail?" in prompt and "Sentence 0 about token refresh" in prompt
    ctx = r.structured_content["context"]
    assert "(summary) SUMMARY: refresh fails on clock skew" in ctx
    assert [c["method"] for c in _compressed(r)] == ["summarizer"]
    assert r.structured_content["tokens"] <= r.structured_content["budget"]


async def test_without_sampling_the_document_is_shortened_extractively(server):
    with anyio.fail_after(60):
        async with Client(server, mode="legacy") as c:
            r = await c.call_tool("build_context", ARGS)
    assert not r.is_error, r.content[0].text
    assert [c["method"] for c in _compressed(r)] == ["extractive"]
    assert "[…]" in r.structured_content["context"] and "(summary)" not in r.structured_content["context"]


@pytest.mark.parametrize("failure", ["error", "raise"])
async def test_failed_sampling_falls_back_to_extractive(server, failure):
    async def sampling(context, params):
        if failure == "raise":
            raise RuntimeError("model offline")
        return ErrorData(code=-1, message="user declined")

    args = dict(ARGS, query=f"why does token refresh fail ({failure})?")  # not served from the summary cache
    with anyio.fail_after(60):
        async with Client(server, mode="legacy", sampling_callback=sampling) as c:
            r = await c.call_tool("build_context", args)
    assert not r.is_error, r.content[0].text
    assert [c["method"] for c in _compressed(r)] == ["extractive"]
    assert "(summary)" not in r.structured_content["context"]


MANY = {"query": "why does token refresh fail?", "max_tokens": 2000,
        "documents": [{"source": f"log-{k}", "content": LONG.replace("Sentence", f"Line{k}")} for k in range(4)],
        "options": {"include_notes": False, "include_memory": False}}


@pytest.mark.parametrize("failure", ["error", "hang"])
async def test_a_failing_sampler_is_asked_once_per_call(server, monkeypatch, failure):
    """Four long documents, a client whose model is down or hangs: one request, then extractive for all
    (before, each document waited for its own failure: 4 × 30 s for a hanging model)."""
    from server.tools import context as tools_context
    monkeypatch.setattr(tools_context, "SAMPLING_TIMEOUT_S", 0.5)
    calls = []

    async def sampling(context, params):
        calls.append(params)
        if failure == "hang":
            await anyio.sleep(30)
        return ErrorData(code=-1, message="model offline")

    with anyio.fail_after(60):
        async with Client(server, mode="legacy", sampling_callback=sampling) as c:
            r = await c.call_tool("build_context", dict(MANY, query=f"why does token refresh fail ({failure} x4)?"))
    assert not r.is_error, r.content[0].text
    methods = [c["method"] for c in _compressed(r)]
    assert len(methods) >= 2 and set(methods) == {"extractive"}, methods
    assert len(calls) == 1
    assert any("failed earlier in this call" in w for w in r.structured_content["warnings"])


async def test_sampling_stops_when_the_calls_time_budget_is_used(server, monkeypatch):
    from server.tools import context as tools_context
    monkeypatch.setattr(tools_context, "SAMPLING_CALL_BUDGET_S", 1.5)
    calls = []

    async def sampling(context, params):  # slow but successful: each summary takes 0.6 s
        calls.append(params)
        await anyio.sleep(0.6)
        return CreateMessageResult(role="assistant", model="fake", content=TextContent(type="text", text="S."))

    with anyio.fail_after(60):
        async with Client(server, mode="legacy", sampling_callback=sampling) as c:
            r = await c.call_tool("build_context", dict(MANY, query="why does token refresh fail (budget)?"))
    assert not r.is_error, r.content[0].text
    methods = [c["method"] for c in _compressed(r)]
    # The first fits in the budget; the one that runs past it is cut off (a timeout) and ends sampling.
    assert methods[0] == "summarizer" and methods[-1] == "extractive", methods
    assert len(calls) == methods.index("extractive") + 1, (len(calls), methods)  # none asked after it
    assert any("failed earlier in this call" in w for w in r.structured_content["warnings"])
