"""Compress: shorten what does not fit, visibly, instead of cutting it silently.

Two tools: extractive shortening (keep the sentences most relevant to the
query, mark every gap with ``[…]``) and an optional caller-supplied summarizer
(e.g. the MCP client's LLM), whose results are cached by content hash so an
agent loop does not pay for the same summary twice. Older history that does not
fit verbatim is condensed into one "earlier conversation" packet.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence


from notes_store.bounded_cache import TEXT_CACHE_CHARS, cached_by_size
from ..packets import Packet
from ..select.relevance import terms_of
from ..stopping import checked
from ..tokens import TokenCounter

Summarizer = Callable[[str, str, int], "str | None"]

CUT_MARK = "[…]"
_SENTENCE_RE = re.compile(r"[^.!?。！？\n]+(?:[.!?。！？]+[\"')\]]*|\n|$)")
# Words that mark a sentence as a decision, fact or open question worth keeping.
_CUES = re.compile(r"\b(decid\w*|agree\w*|will|must|need\w*|plan\w*|todo|fix\w*|because|deadline|"
                   r"error|fail\w*|bug|next|remember|prefer\w*)\b|决定|需要|必须|计划|问题|错误|下一步|\?|？|\d",
                   re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences (and lines) of ``text``, in order, stripped; good enough for extractive picks."""
    return [s.strip() for s in _SENTENCE_RE.findall(text) if s.strip()]


@cached_by_size(TEXT_CACHE_CHARS, 32768)
def sentence_table(text: str) -> tuple[tuple[str, frozenset[str], bool], ...]:
    """(sentence, its terms, whether it reads like a decision/fact/question) for each sentence of
    ``text``; cached by text, since the same old turns are condensed again on every call of a long session."""
    return tuple((s, frozenset(terms_of(s)), _CUES.search(s) is not None) for s in split_sentences(text))


# Lines tried per condensed packet: a few dozen fit in any room a tier gets, and each try costs an exact count.
MAX_LINES_TRIED = 400
MIN_LINE_TOKENS = 4     # "- user: Ok." and the newline: below this nothing more fits


def _sentence_score(sentence: str, qterms: set[str]) -> float:
    terms = set(terms_of(sentence))
    overlap = len(terms & qterms)
    cue = 0.3 if _CUES.search(sentence) else 0.0
    return overlap + cue + min(len(terms), 20) / 200.0  # a little length prior breaks ties


def extractive_shorten(text: str, query_terms: Sequence[str], max_tokens: int,
                       counter: TokenCounter) -> str | None:
    """The sentences of ``text`` most relevant to the query that fit ``max_tokens``, in original
    order, with ``[…]`` wherever something was left out. None when not even a fragment fits."""
    if counter.count(text) <= max_tokens:
        return text
    sentences = split_sentences(text)
    qterms = set(query_terms)
    order = sorted(range(len(sentences)), key=lambda i: (-_sentence_score(sentences[i], qterms), i))
    keep = _fitting_sentences(sentences, order, max_tokens, counter)
    if keep:
        return _join(sentences, sorted(keep))
    # Not one whole sentence fits: keep the start of the best one, marked as cut.
    best = sentences[order[0]] if sentences else text
    room = max_tokens - counter.count(" " + CUT_MARK) - 1
    if room < 3:
        return None
    head = counter.truncate(best, room).rstrip()
    while head and counter.count(f"{head} {CUT_MARK}") > max_tokens:
        head = counter.truncate(head, counter.count(head) - 1).rstrip()
    return f"{head} {CUT_MARK}" if head else None


def _fitting_sentences(sentences: list[str], order: list[int], max_tokens: int, counter: TokenCounter) -> list[int]:
    """Sentences taken in ``order`` while the joined text fits ``max_tokens``.

    Each sentence and each gap mark is counted once and the counts are added up: joining the kept text
    and counting it again for every sentence tried was O(sentences x kept text), 94 s of CPU for one
    20,000-sentence document. The sum is checked exactly at the end (token counts of joined texts need
    not add up), dropping the last sentences taken until the text fits."""
    n = len(sentences)
    mark = counter.count(" " + CUT_MARK)
    kept: set[int] = set()
    keep: list[int] = []
    used = marks = 0          # tokens of the kept sentences; gap marks before runs that do not open the text
    last = -1                 # the last sentence kept (a mark follows it unless it ends the text)
    for i in checked(order):
        left, right = i - 1 in kept, i + 1 in kept
        new_marks = marks + (-1 if left and right else -(i == 0) if right else 0 if left else i != 0)
        new_last = max(last, i)
        cost = counter.count(" " + sentences[i])
        if used + cost + (new_marks + (new_last != n - 1)) * mark <= max_tokens:
            kept.add(i)
            keep.append(i)
            used, marks, last = used + cost, new_marks, new_last
    while keep and counter.count(_join(sentences, sorted(keep))) > max_tokens:
        keep.pop()
    return keep


def _join(sentences: list[str], keep: list[int]) -> str:
    parts: list[str] = []
    prev = -1
    for i in keep:
        if i != prev + 1:
            parts.append(CUT_MARK)
        parts.append(sentences[i])
        prev = i
    if keep and keep[-1] != len(sentences) - 1:
        parts.append(CUT_MARK)
    return " ".join(parts)


class SummaryCache:
    """Summaries by (content hash, query, max_tokens); bounded, least recently used goes first."""

    def __init__(self, max_entries: int = 2048) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[str, str] = OrderedDict()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(text: str, query: str, max_tokens: int) -> str:
        h = hashlib.sha256()
        for part in (text, "\x00", query, "\x00", str(max_tokens)):
            h.update(part.encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    def get(self, key: str) -> str | None:
        value = self._items.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._items.move_to_end(key)
        return value

    def put(self, key: str, value: str) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()
        self.hits = self.misses = 0


SUMMARY_CACHE = SummaryCache()


def shorten(text: str, query: str, query_terms: Sequence[str], max_tokens: int, counter: TokenCounter,
            summarizer: Summarizer | None, warnings: list[str]) -> tuple[str, str] | None:
    """``text`` brought under ``max_tokens``: (new text, method) or None if it cannot be done.

    The summarizer is tried first (cached); a failure, None or an over-long answer falls back to
    extractive shortening and is reported in ``warnings``.
    """
    if summarizer is not None:
        key = SummaryCache.key(text, query, max_tokens)
        cached = SUMMARY_CACHE.get(key)
        if cached is not None:
            return cached, "summarizer"
        try:
            summary = summarizer(text, query, max_tokens)
        except Exception as exc:  # the client's LLM may be unavailable; extractive still works
            warnings.append(f"summarizer failed ({type(exc).__name__}: {exc}); used extractive compression")
            summary = None
        else:
            if summary is None or not str(summary).strip():
                warnings.append("summarizer returned nothing; used extractive compression")
                summary = None
            elif counter.count(str(summary)) > max_tokens:
                warnings.append(f"summarizer returned {counter.count(str(summary))} tokens for a "
                                f"{max_tokens}-token limit; used extractive compression")
                summary = None
        if summary is not None:
            summary = f"(summary) {str(summary).strip()}"
            if counter.count(summary) <= max_tokens:
                SUMMARY_CACHE.put(key, summary)
                return summary, "summarizer"
    short = extractive_shorten(text, query_terms, max_tokens, counter)
    return (short, "extractive") if short else None


CONDENSED_HEADING = "Earlier conversation (condensed, extractive; {n} turns not shown verbatim):"


def condense_history(turns: Sequence[Packet], query_terms: Sequence[str], max_tokens: int,
                     counter: TokenCounter) -> tuple[str, int] | None:
    """One compact packet of the key sentences of ``turns`` (chronological), within ``max_tokens``.

    Picks sentences that touch the query or read like decisions, facts and open
    questions; returns (text, number of turns it drew from) or None when nothing fits.
    """
    if not turns:
        return None
    heading = CONDENSED_HEADING.format(n=len(turns))
    room = max_tokens - counter.count(heading) - 1
    if room < 12:
        return None
    qterms = set(query_terms)
    candidates: list[tuple[float, int, int, str]] = []
    for t_index, turn in enumerate(turns):
        for s_index, (sentence, terms, cue) in enumerate(sentence_table(turn.content)):
            # The same score as _sentence_score, from the cached terms.
            score = len(terms & qterms) + (0.3 if cue else 0.0) + min(len(terms), 20) / 200.0
            if score >= 0.3 and len(sentence) > 12:
                candidates.append((score, t_index, s_index, f"- {turn.speaker_name or turn.role}: {sentence}"))
    return pack_lines(candidates, heading, max_tokens, counter)


def pack_lines(candidates: list[tuple[float, int, int, str]], heading: str, max_tokens: int,
               counter: TokenCounter) -> tuple[str, int] | None:
    """The best ``(score, turn index, sentence index, line)`` candidates under ``heading``, in
    chronological order, within ``max_tokens`` counted exactly: (text, number of turns drawn from),
    or None when no line fits. A repeated line ("ok", a greeting) is taken once."""
    room = max_tokens - counter.count(heading) - 1
    candidates.sort(key=lambda c: (-c[0], -c[1]))  # most useful first, newer on ties
    picked: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    used = 0
    for _score, t_index, s_index, line in candidates[:MAX_LINES_TRIED]:
        if room - used < MIN_LINE_TOKENS:
            break
        if line in seen:
            continue
        cost = counter.count(line) + 1
        if used + cost <= room:
            picked.append((t_index, s_index, line))
            seen.add(line)
            used += cost
    if not picked:
        return None
    picked.sort()
    text = "\n".join([heading] + [line for _, _, line in picked])
    while counter.count(text) > max_tokens and len(picked) > 1:  # exactness guard (tokens merge across lines)
        picked.pop()
        text = "\n".join([heading] + [line for _, _, line in picked])
    if counter.count(text) > max_tokens:
        return None
    return text, len({t for t, _, _ in picked})
