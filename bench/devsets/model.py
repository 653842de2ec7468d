"""The shapes every dev set shares: a history of turns, the questions asked of it, a named split."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

# A history turn as build_context takes it: role, content, and optionally id, timestamp (datetime or
# ISO text) and, while a set is being built, its session number.
Turn = dict[str, Any]


class _QuestionExtras(TypedDict, total=False):
    superseded: list[str]   # an updated fact: the ids of the older statements it replaces


class Question(_QuestionExtras):
    """A question, the ids of the turns that answer it, its answer text and a category label."""

    question: str
    evidence: list[str]
    answer: str
    category: int | str


@dataclass
class Conversation:
    """One history and the questions asked of it; ``by_id`` maps an evidence id to its turn text."""

    history: list[Turn]
    by_id: dict[str, str]
    questions: list[Question] = field(default_factory=list)


@dataclass
class DevSet:
    """A named set of conversations; ``split`` is "dev" (tune on it) or "held-out" (report only)."""

    name: str
    split: str
    conversations: list[Conversation]

    @property
    def n_questions(self) -> int:
        return sum(len(c.questions) for c in self.conversations)

    @property
    def n_turns(self) -> int:
        return sum(len(c.history) for c in self.conversations)
