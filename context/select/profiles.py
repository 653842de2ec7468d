"""How each kind of query weighs the scores and shares out the budget, and which kind a query is.

A ``Profile`` is read by both halves of the selection: ``scoring`` weighs relevance, recency and importance
with it, ``packing`` gives each source its minimum and maximum share of the room.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUERY_TYPES = ("auto", "knowledge", "chat", "task")


@dataclass(frozen=True)
class Profile:
    """How a query type weighs the scores and shares out the budget (shares of what is left
    after system instructions, query and tools)."""

    relevance_weight: float
    recency_weight: float
    importance_weight: float
    shares: dict[str, tuple[float, float]]   # share name -> (min, max)
    recent_turns: int          # the newest N turns get scoring.RECENT_BONUS: the present
    neighbour_weight: float    # how much a turn inherits from its best neighbour's relevance
    condensed_share: float     # budget set aside for the condensed earlier conversation


PROFILES: dict[str, Profile] = {
    # A question over material is answered by what the material says, not by when: recency and
    # the newest-turn bonus each pushed out turns plain BM25 packs, and lost to it on every
    # generated log (bench.quality, dev seeds) while moving conv-26 by one question.
    "knowledge": Profile(0.9, 0.0, 0.05, {
        "state": (0.0, 0.15), "tool_results": (0.0, 0.25), "history": (0.1, 0.8),
        "evidence": (0.15, 0.6), "documents": (0.1, 0.6), "tools": (0.0, 0.2)},
        recent_turns=0, neighbour_weight=0.6, condensed_share=0.0),
    "chat": Profile(0.45, 0.45, 0.1, {
        "state": (0.0, 0.1), "tool_results": (0.0, 0.2), "history": (0.4, 0.9),
        "evidence": (0.05, 0.35), "documents": (0.0, 0.3), "tools": (0.0, 0.2)},
        recent_turns=4, neighbour_weight=0.4, condensed_share=0.15),
    "task": Profile(0.6, 0.3, 0.1, {
        "state": (0.05, 0.25), "tool_results": (0.1, 0.4), "history": (0.15, 0.6),
        "evidence": (0.1, 0.45), "documents": (0.0, 0.4), "tools": (0.0, 0.25)},
        recent_turns=2, neighbour_weight=0.4, condensed_share=0.1),
}

_QUESTION_RE = re.compile(
    r"^\s*(what|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|has|have|had)\b|[?？]|什么|怎么|为什么|哪|谁|何时|多少|吗[?？]?\s*$|是否",
    re.IGNORECASE)
_TASK_RE = re.compile(
    r"^\s*(please\s+)?(fix|implement|add|write|create|update|refactor|run|build|deploy|remove|delete|"
    r"rename|make|change|continue|finish|debug|test|migrate|set up|setup|install)\b|"
    r"^\s*(修复|实现|添加|编写|创建|更新|重构|运行|部署|删除|继续|完成|调试|测试|迁移)",
    re.IGNORECASE)


def decide_query_type(query: str, *, has_task_state: bool, has_tool_results: bool,
                      has_sources: bool) -> str:
    """``auto``: an imperative with work in progress is a task, a question over material is
    knowledge, anything else is chat."""
    if _TASK_RE.search(query) or (has_task_state and not _QUESTION_RE.search(query)):
        return "task"
    if _QUESTION_RE.search(query) and (has_sources or has_task_state or has_tool_results):
        return "knowledge"
    if has_tool_results and not _QUESTION_RE.search(query):
        return "task"
    return "chat"

