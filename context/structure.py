"""Structure: lay the selected packets out as a text template or as chat messages.

Text: the sections [Role & Policies] [Task] [State] [Evidence] [Context]
[Output], always in that order. [Task] and [Context] are always present ("(none)" when
empty); any other section appears only when it has something in it, and the [Output]
line only when there is evidence or state to cite, so a history-only build spends its
room on turns rather than on empty headings (see ``shown_sections``). Messages: ordered against
lost-in-the-middle (system, state and key evidence first, supporting material in
the middle, recent turns and the query last). The cost functions here are what
the select stage budgets with, so layout and accounting cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from dataclasses import dataclass

from . import packets as P
from .packets import Packet
from .tokens import TokenCounter

SECTIONS = ("Role & Policies", "Task", "State", "Evidence", "Context", "Output")
SECTION_OF = {P.SYSTEM: "Role & Policies", P.TOOL: "Role & Policies", P.QUERY: "Task",
              P.TASK_STATE: "State", P.TOOL_RESULT: "State", P.NOTE: "Evidence",
              P.MEMORY: "Evidence", P.DOCUMENT: "Evidence", P.SUMMARY: "Context",
              P.HISTORY: "Context"}
# An empty section that is shown (Task, Context) says so in as few tokens as possible.
EMPTY_SECTION = {name: "(none)" for name in SECTIONS}
OUTPUT_LINE = "Answer the task using the sections above; cite evidence by its tag."
TOOLS_HEADING = "Tools (JSON schema):"

# Messages format accounting: every message costs its content's tokens plus this
# many (role and the chat template's delimiters; OpenAI's own guide counts 3-4).
MESSAGE_OVERHEAD_TOKENS = 4
STATE_HEADING = "Current state and key evidence:"
SUPPORT_HEADING = "Supporting material:"
KEY_EVIDENCE_MAX = 3


def packet_text(p: Packet) -> str:
    """The exact text a packet contributes (one or more lines, no trailing newline)."""
    if p.source == P.HISTORY:
        name = p.speaker_name
        if name:  # who spoke: in a group chat in one role the role says nothing of it
            return f"{p.role} ({name}): {p.content}" if p.show_role else f"{name}: {p.content}"
        return f"{p.role}: {p.content}" if p.show_role else p.content
    if p.source in (P.NOTE, P.MEMORY):
        tag = [f"{p.source} {p.id}"]
        if p.label:
            tag.append(p.label)
        if p.importance is not None and p.source == P.MEMORY:
            tag.append(f"importance {p.importance:.2f}")
        tag.append(f"relevance {p.relevance:.2f}")
        title = p.title if p.title and p.title != p.label else ""  # memories' title is often their type
        head = f"[{' | '.join(tag)}]" + (f" {title}" if title else "")
        return f"{head}\n{p.content}"
    if p.source == P.DOCUMENT:
        return f"[document {p.id} | relevance {p.relevance:.2f}]\n{p.content}"
    if p.source == P.TOOL_RESULT:
        when = f" | {p.timestamp:%Y-%m-%d %H:%M}" if p.timestamp else ""
        return f"[tool_result {p.label}{when}]\n{p.content}"
    if p.source == P.TASK_STATE:
        return p.content
    return p.content


def group_header(group: str, fmt: str, previous: str | None = None) -> str:
    """The date line shown once before the first selected turn of each day. Its year only where the
    year changes from the ``previous`` header's: the lines run in date order, so "[Sun 2 Apr]" after
    "[Thu 16 Mar 2023]" reads as 2023, and a 1k context of ~10 days keeps ~30 tokens for turns."""
    day, year = _day_and_year(group)
    shown = day if previous is not None and year and _day_and_year(previous)[1] == year else group
    return f"[{shown}]" if fmt == "text" else f"[{shown}] "


def _day_and_year(group: str) -> tuple[str, str]:
    """("Thu 16 Mar", "2023") of a day label "Thu 16 Mar 2023" (gather.day_label); (group, "") otherwise."""
    day, _, year = group.rpartition(" ")
    return (day, year) if day and len(year) == 4 and year.isdigit() else (group, "")


def year_marks_cost(groups: Iterable[str], fmt: str, counter: TokenCounter, most: int = 3) -> int:
    """Tokens the years shown in the headers add to what ``group_cost`` counts: one mark per year of
    ``groups`` (each year's headers run together), for at most ``most`` years, the rest being left to
    the exact count."""
    first_of: dict[str, str] = {}
    for g in groups:
        first_of.setdefault(_day_and_year(g)[1], g)
    first_of.pop("", None)
    extra = sorted((counter.count(group_header(g, fmt)) - counter.count(group_header(g, fmt, previous=g))
                    for g in first_of.values()), reverse=True)
    return sum(extra[:most])


def tool_turn_text(p: Packet) -> str:
    """A tool turn folded into an ordinary message (chat APIs refuse a bare role "tool")."""
    return f"[tool result{' ' + p.label if p.label else ''}]\n{p.content}"


def history_message(p: Packet, previous_role: str | None) -> dict[str, str]:
    """One history turn as a chat message. A tool turn is a ``tool`` message with its
    ``tool_call_id`` when the caller gave one and it follows an assistant turn (the only place
    chat APIs accept it); otherwise it is folded into a user message that says what it is."""
    if p.role == "tool":
        if p.tool_call_id and previous_role == "assistant":
            return {"role": "tool", "tool_call_id": p.tool_call_id, "content": p.content}
        return {"role": "user", "content": tool_turn_text(p)}
    name = p.speaker_name
    if name and not _MESSAGE_NAME.fullmatch(name):  # a name chat APIs refuse goes in the text instead
        return {"role": p.role or "user", "content": f"{name}: {p.content}"}
    message = {"role": p.role or "user", "content": p.content}
    if name:  # chat APIs take a participant's name beside the role
        message["name"] = name
    return message


# The participant names OpenAI-style chat APIs accept in a message's ``name``.
_MESSAGE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def packet_cost(p: Packet, fmt: str, counter: TokenCounter) -> int:
    """Tokens a packet adds to the output in ``fmt`` (its date header is costed apart)."""
    if fmt == "messages" and p.source == P.HISTORY:
        # A tool turn is costed as folded (the longer of its two forms).
        if p.role == "tool":
            return counter.count(tool_turn_text(p)) + MESSAGE_OVERHEAD_TOKENS
        return message_tokens(history_message(p, None), counter)
    return counter.count(packet_text(p)) + 1  # +1: the newline joining it to the next item


def group_cost(group: str, fmt: str, counter: TokenCounter) -> int:
    """Tokens of a day's header after another of its year (see year_marks_cost for the years)."""
    return counter.count(group_header(group, fmt, previous=group)) + (1 if fmt == "text" else 0) if group else 0


@dataclass
class Layout:
    """Packets sorted into the places they are rendered."""

    system: str
    query: str
    tools: list[Packet]
    state: list[Packet]
    evidence: list[Packet]
    context: list[Packet]


def layout(system: str, query: str, tools: list[Packet], chosen: list[Packet]) -> Layout:
    state = [p for p in chosen if p.source == P.TASK_STATE] + sorted(
        (p for p in chosen if p.source == P.TOOL_RESULT), key=lambda p: p.position)
    evidence = sorted((p for p in chosen if p.source in P.EVIDENCE_SOURCES), key=lambda p: -p.score)
    context = [p for p in chosen if p.source == P.SUMMARY] + sorted(
        (p for p in chosen if p.source == P.HISTORY), key=lambda p: p.position)
    return Layout(system, query, sorted(tools, key=lambda p: p.position), state, evidence, context)


def _with_headers(turns: Iterable[Packet], fmt: str) -> Iterator[tuple[Packet, str]]:
    """Each of ``turns`` with the date header shown above it ('' for none): once per day, its year left out
    only where the last date the reader saw (a header, or the day a dated turn states itself) had it."""
    last_group = told = None
    for p in turns:
        head = ""
        if p.source == P.HISTORY and p.header and p.header != last_group:
            head = group_header(p.header, fmt, told)
            last_group = p.header
        if p.source == P.HISTORY and p.group:
            told = p.group
        yield p, head


def _history_lines(turns: list[Packet], fmt: str) -> list[str]:
    lines = []
    for p, head in _with_headers(turns, fmt):
        if head:
            lines.append(head)
        lines.append(packet_text(p))
    return lines


def section_bodies(lay: Layout) -> dict[str, str]:
    """Text of each section (without its ``[Name]`` line)."""
    role = lay.system.strip()
    if lay.tools:
        tools = "\n".join([TOOLS_HEADING] + [p.content for p in lay.tools])
        role = f"{role}\n{tools}" if role else tools
    bodies = {
        "Role & Policies": role,
        "Task": lay.query,
        "State": "\n".join(packet_text(p) for p in lay.state),
        "Evidence": "\n".join(packet_text(p) for p in lay.evidence),
        "Context": "\n".join(_history_lines(lay.context, "text")),
        "Output": OUTPUT_LINE,
    }
    return {name: body or EMPTY_SECTION[name] for name, body in bodies.items()}


def shown_sections(lay: Layout, bodies: dict[str, str]) -> list[str]:
    """Task and Context always; any other section only when it has something, and the Output line
    only when there is evidence or state to cite. A history-only build then costs ~20 template
    tokens instead of ~55 (about one more turn at 1k), the room plain BM25 packs turns into."""
    shown = [n for n in SECTIONS if n in ("Task", "Context") or (n != "Output" and bodies[n] != EMPTY_SECTION[n])]
    if lay.evidence or lay.state:
        shown.append("Output")
    return shown


def render_text(lay: Layout) -> str:
    bodies = section_bodies(lay)
    return "\n\n".join(f"[{name}]\n{bodies[name]}" for name in shown_sections(lay, bodies))


def render_messages(lay: Layout) -> list[dict[str, str]]:
    """Chat messages, most important at the edges (lost-in-the-middle)."""
    messages: list[dict[str, str]] = []
    system = lay.system.strip()
    if lay.tools:
        tools = "\n".join([TOOLS_HEADING] + [p.content for p in lay.tools])
        system = f"{system}\n{tools}" if system else tools
    if system:
        messages.append({"role": "system", "content": system})
    key = lay.evidence[:KEY_EVIDENCE_MAX]
    support = lay.evidence[KEY_EVIDENCE_MAX:]
    first = [packet_text(p) for p in lay.state + key]
    if first:
        messages.append({"role": "system", "content": "\n".join([STATE_HEADING] + first)})
    middle = [packet_text(p) for p in support] + [packet_text(p) for p in lay.context if p.source == P.SUMMARY]
    if middle:
        messages.append({"role": "user", "content": "\n".join([SUPPORT_HEADING] + middle)})
    for p, head in _with_headers((p for p in lay.context if p.source == P.HISTORY), "messages"):
        message = history_message(p, messages[-1]["role"] if messages else None)
        message["content"] = head + message["content"]
        messages.append(message)
    messages.append({"role": "user", "content": lay.query})
    return messages


def message_tokens(m: dict[str, str], counter: TokenCounter) -> int:
    """Tokens of one message: its content (and name) counted exactly plus MESSAGE_OVERHEAD_TOKENS."""
    return counter.count(m["content"]) + MESSAGE_OVERHEAD_TOKENS + (counter.count(m["name"]) + 1 if m.get("name") else 0)


def messages_tokens(messages: list[dict[str, str]], counter: TokenCounter) -> int:
    """Tokens of a message list (see ``message_tokens``)."""
    return sum(message_tokens(m, counter) for m in messages)


def output_tokens(lay: Layout, fmt: str, counter: TokenCounter) -> int:
    """The exact size of the rendered output: what the budget is enforced on."""
    if fmt == "text":
        return counter.count(render_text(lay))
    return messages_tokens(render_messages(lay), counter)


def section_tokens(lay: Layout, fmt: str, counter: TokenCounter) -> dict[str, int]:
    """Tokens per template section (text: each section's block; messages: its contents)."""
    if fmt == "text":
        bodies = section_bodies(lay)
        shown = shown_sections(lay, bodies)
        # Every section keeps its key in the report (0 when left out), so consumers see one shape.
        return {name: counter.count(f"[{name}]\n{bodies[name]}") if name in shown else 0 for name in SECTIONS}
    bodies = section_bodies(lay)
    out = {name: (counter.count(bodies[name]) if bodies[name] != EMPTY_SECTION.get(name) else 0)
           for name in SECTIONS if name != "Output"}
    out["Context"] = sum(packet_cost(p, "messages", counter) for p in lay.context
                         if p.source == P.HISTORY) + sum(counter.count(packet_text(p)) for p in lay.context
                                                         if p.source == P.SUMMARY)
    return out
