"""ContextResult: the packed context plus a report of what went in, what did not and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ContextResult:
    """What ``build_context`` returns.

    ``tokens`` is the exact size of the output (text: tiktoken on the string;
    messages: contents plus ``MESSAGE_OVERHEAD_TOKENS`` per message) and never
    exceeds ``budget`` = floor(max_tokens * (1 - reserve_ratio)).
    """

    format: str
    query_type: str
    tokens: int
    budget: int
    context: str | None = None
    messages: list[dict[str, str]] | None = None
    sections: dict[str, int] = field(default_factory=dict)
    selected: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    compressed: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.format == "text":
            out["context"] = self.context
        else:
            out["messages"] = self.messages
        out.update(tokens=self.tokens, budget=self.budget, sections=dict(self.sections),
                   selected=list(self.selected), dropped=list(self.dropped),
                   compressed=list(self.compressed), warnings=list(self.warnings),
                   query_type=self.query_type, sources=dict(self.sources))
        return out
