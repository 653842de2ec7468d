"""The build_context tool: the context builder over the server's workspace.

``context`` (and tiktoken behind it) is imported inside the tool, never at
server start. When the client declared the sampling capability, long items
may be summarised by the client's own LLM (``sampling/createMessage``); the
library falls back to extractive shortening when that is unavailable or fails.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, Optional

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from .mcp_models import ContextFormat, NoteType
from .mcp_state import WorkspaceHandle
from .tools_notes import result

log = logging.getLogger("ctxnotes.server")

ContextQueryType = Literal["auto", "knowledge", "chat", "task"]
SAMPLING_TIMEOUT_S = 30.0


class HistoryTurn(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str = Field(description="user | assistant | system | tool")
    content: Any = Field(description="The turn's text")
    timestamp: Optional[str] = Field(default=None, description="ISO 8601, optional")


class ContextMessage(BaseModel):
    role: str
    content: str


class BuildContextOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    context: Optional[str] = Field(default=None, description="The packed context (format='text')")
    messages: Optional[list[ContextMessage]] = Field(default=None, description="The packed context (format='messages')")
    tokens: int = Field(description="Exact size of the output in tokens")
    budget: int = Field(description="floor(max_tokens * (1 - reserve_ratio)); tokens never exceeds it")
    sections: dict[str, int] = Field(description="Tokens per section")
    selected: list[dict[str, Any]] = Field(description="Items included, with their scores")
    dropped: list[dict[str, Any]] = Field(description="Items left out and why")
    compressed: list[dict[str, Any]] = Field(description="Items shortened and how")
    warnings: list[str]
    query_type: str
    sources: dict[str, dict[str, int]] = Field(description="Per source: candidates, selected, dropped")


def register(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.tool(
        name="build_context", title="Build a context for a query",
        description=(
            "Pack the most useful context for a query into a hard token budget: system instructions, the "
            "task state, relevant notes and memories from this workspace, documents and tool results you pass "
            "in, and the conversation history; reports what was included, dropped or compressed and why. Use "
            "it when starting or resuming a task or before answering with limited context room; use "
            "note_search for a quick lookup of notes only.\n"
            "Example: {\"query\": \"why does token refresh fail?\", \"max_tokens\": 2000, "
            "\"task_state\": {\"goal\": \"fix auth\", \"step\": 3}}"),
        annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True,
                                    openWorldHint=False))
    async def build_context(
        ctx: Context,
        query: Annotated[str, Field(description="The question or task the context is for")],
        max_tokens: Annotated[int, Field(ge=64, description="Total token budget of the caller's window share")] = 3000,
        reserve_ratio: Annotated[float, Field(ge=0, lt=1, description="Share of max_tokens kept free for the answer")] = 0.2,
        format: Annotated[ContextFormat, Field(description="text: one string; messages: a chat message list")] = "text",
        history: Annotated[Optional[list[HistoryTurn]], Field(description="Conversation turns, oldest first")] = None,
        system_instructions: Annotated[Optional[str], Field(description="Instructions that must stay in")] = None,
        task_state: Annotated[Optional[dict[str, Any] | str], Field(
            description="Where the task stands (always kept): a string or an object")] = None,
        tool_results: Annotated[Optional[list[dict[str, Any]]], Field(
            description="Recent tool outputs: [{\"tool\": name, \"content\": text, \"timestamp\"?: ISO}]")] = None,
        documents: Annotated[Optional[list[dict[str, Any]]], Field(
            description="Extra documents: [{\"source\": name, \"content\": text, \"score\"?: 0-1}]")] = None,
        include_notes: Annotated[bool, Field(description="Search this workspace's notes")] = True,
        include_memory: Annotated[bool, Field(description="Search this workspace's memories")] = True,
        note_types: Annotated[Optional[list[NoteType]], Field(description="Only notes of these types")] = None,
        tags: Annotated[Optional[list[str]], Field(description="Only notes with all these tags")] = None,
        tools: Annotated[Optional[list[dict[str, Any]]], Field(
            description="Tool definitions to fit in: [{\"name\", \"description\", \"input_schema\"}]")] = None,
        query_type: Annotated[ContextQueryType, Field(
            description="Shapes the budget split: knowledge (facts/notes), chat (history), task (state and "
                        "tool results); auto decides from the inputs")] = "auto",
        relevance_weight: Annotated[Optional[float], Field(ge=0, description="Override the relevance weight")] = None,
        recency_weight: Annotated[Optional[float], Field(ge=0, description="Override the recency weight")] = None,
        min_relevance: Annotated[Optional[float], Field(ge=0, le=1, description="Drop items scoring below this")] = None,
    ) -> Annotated[CallToolResult, BuildContextOut]:
        ws = await anyio.to_thread.run_sync(handle.get)
        summarizer = _sampling_summarizer(ctx)

        def progress(done: float, total: float, message: str = "") -> None:
            try:
                anyio.from_thread.run(ctx.report_progress, done, total, message)
            except Exception:
                log.debug("progress notification failed", exc_info=True)

        def run() -> Any:
            from context import ContextError, build_context as build
            evidence = _evidence(ws)
            try:
                return build(query, history=[h.model_dump(exclude_none=True) for h in history] if history else None,
                             system_instructions=system_instructions, task_state=task_state,
                             tool_results=tool_results, documents=documents, max_tokens=max_tokens,
                             reserve_ratio=reserve_ratio, format=format, include_notes=include_notes,
                             include_memory=include_memory, note_types=list(note_types) if note_types else None,
                             tags=tags, tools=tools, query_type=query_type, relevance_weight=relevance_weight,
                             recency_weight=recency_weight, min_relevance=min_relevance, evidence=evidence,
                             summarizer=summarizer, progress=progress)
            except (ContextError, ValueError) as exc:
                raise ToolError(str(exc)) from None

        res = await anyio.to_thread.run_sync(run)
        data = res.to_dict()
        out = BuildContextOut(**data)
        if format == "text":
            text = data.get("context") or ""
        else:
            text = "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in data.get("messages") or [])
        summary = (f"\n\n---\n{out.tokens}/{out.budget} tokens; {len(out.selected)} item(s) selected, "
                   f"{len(out.dropped)} dropped, {len(out.compressed)} compressed")
        if out.warnings:
            summary += "\nwarnings: " + "; ".join(out.warnings)
        return result(text + summary, out)


def _evidence(ws: Any) -> Any:
    from context.workspace_evidence import WorkspaceEvidence
    return WorkspaceEvidence(ws)


def _sampling_summarizer(ctx: Context) -> Any:
    """A summarizer backed by the client's LLM, or None when the client cannot sample."""
    try:
        from mcp.types import ClientCapabilities, SamplingCapability
        session = ctx.session
        if not session.check_client_capability(ClientCapabilities(sampling=SamplingCapability())):
            return None
    except Exception:
        return None

    async def ask(text: str, query: str, max_tokens: int) -> str | None:
        import warnings
        from mcp.types import SamplingMessage, TextContent
        prompt = (f"Summarise the following text in at most {max_tokens} tokens, keeping every fact that helps "
                  f"with this query: {query}\nReply with the summary only.\n\n---\n{text}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with anyio.fail_after(SAMPLING_TIMEOUT_S):
                r = await session.create_message(
                    [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                    max_tokens=max(16, int(max_tokens)),
                    system_prompt="You write faithful, compact summaries. Never add facts.")
        content = r.content
        if isinstance(content, list):
            content = next((c for c in content if getattr(c, "type", None) == "text"), None)
        return getattr(content, "text", None) or None

    def summarize(text: str, query: str, max_tokens: int) -> str | None:
        try:
            return anyio.from_thread.run(ask, text, query, max_tokens)
        except Exception as exc:  # the library falls back to extractive shortening
            log.info("sampling summarizer unavailable (%s); falling back", type(exc).__name__)
            return None

    return summarize
