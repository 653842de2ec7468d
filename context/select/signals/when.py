"""Turns that say when, for questions that ask when.

"When did Melanie go to the pottery workshop?" is answered by the turn that tells the event with its
time ("Last Fri I finally took my kids to a pottery workshop."), not by the later turns that talk about
pottery without one ("The pots came out great!"). Of LoCoMo conv-26's temporal questions, 30 of 37
evidence turns hold a time expression, against 61 of its 419 turns; of the generated LoCoMo-shaped
sets', every one. A question that asks when counts a turn that says no time UNTIMED_WEIGHT as much.

From the text alone: the question asks when by its question words ("when", "how long", "what year",
"什么时候", "哪天", "多久"); a turn says when by a time expression of its own statement (a log's
time-and-place stamp is left out: every turn of a log has one). Time expressions are a closed class
of the language (weekdays, months, "yesterday", "two weeks ago", "去年", "10月13日"), not a list of
the answers' words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notes_store.analysis.numbers import date_terms

from .stamps import body_of, per_turn

# 0.4, dev 1k/2k (bench.quality, 2026-12-02): en-reunion 0.743/0.814 -> 0.752/0.818, en-longchat 0.779 -> 0.785,
# en-written 0.805 -> 0.811, zh-diary 0.687/0.804 -> 0.693/0.807, zh-lifelog 0.725/0.836 -> 0.734/0.842,
# en-memlog-hard 0.882 -> 0.887, en-daily, en-memlog, zh-daily, zh-memlog +0.002-0.005; conv26 level,
# conv26-interleaved 2k 0.839 -> 0.833 (its "When did Melanie go camping in June?" turn says no time),
# en-dialogue -0.002. 0.6 and 0.8 gained less on the LoCoMo-shaped sets.
UNTIMED_WEIGHT = 0.4
# A turn linked this strongly to one that says when ("When did you get back?" / "Yesterday morning.")
# is timed through it.
LINKED = 0.5

# "When" asks only where a clause opens with it ("What did Maureen do when Morwenna went back?" asks what)
# and no later clause asks something else ("When I was a kid, what did I collect?"); "how long" asks a
# duration unless a "be" follows ("How long is the bridge?"); "what year" a time unless a noun does
# ("what time zone", "what year of school").
_AUX = r"(?:did|does|do|is|was|were|will|are|has|have|had|should|would|can|could|'s|'re)"
_ASKS_WHEN = re.compile(
    r"(?:^|[,;:.?!]\s*)(?:(?:and|so|but|then|exactly|roughly|approximately|remind me,?)\s+)?when\b(?![^?]*,\s*(?:what|which|"
    r"who|whom|where|how|why)\b)|\bremember when\b|\bwhen\s*\?|\bhow long\b(?!\s+(?:is|are|was|were)\b)|"
    rf"\b(?:what|which) (?:time|date|day|year|month|week)(?=\s*\?|\s+{_AUX}\b)|\bwhat'?s the date\b|"
    r"\bhow many (?:days|weeks|months|years)\b(?! old)|\bsince when\b|"
    r"什么时候|啥时候|什么时间|何时|几时|哪天|哪一天|几号(?![楼房线床门车座位鞋码])|几月|哪年(?!级)|哪一年|哪个月|哪个星期|多久|多长时间|"
    r"几点|什么日子|哪一周|哪周",
    re.IGNORECASE)

_NUM = (r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple(?: of)?|"
        r"few|several|many)")
_UNIT = r"(?:minute|hour|day|night|week|weekend|fortnight|month|year|decade)s?"
# Names of days and months count capitalised ("march", "sat", "sun", "may" are words of their own), the
# short forms only after a word that makes them a date ("last Fri", "on Sat", "in May").
_DAY = r"(?-i:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)"
_DAY_SHORT = r"(?-i:(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\.?)"
_MONTH = r"(?-i:January|February|March|April|June|July|August|September|October|November|December)"
_MONTH_SHORT = r"(?-i:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?)"
_SEASON = r"(?:spring|summer|autumn|fall|winter|christmas|easter|thanksgiving|new year)"
_EN_TIME = (
    rf"\b(?:yesterday|today|tonight|tomorrow|noon|midnight|{_DAY}s?|{_MONTH}|"
    rf"(?:in|since|of|by|until|till|from|during|around|before|after|early|late|mid|summer|spring|fall|winter) (?:19|20)\d\d|"
    rf"(?:last|next|this|past|coming|that|every|on|in|early|late|mid) (?:{_UNIT}|{_DAY_SHORT}|{_MONTH_SHORT}|{_SEASON}|"
    rf"morning|afternoon|evening)|\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTH_SHORT}|{_MONTH_SHORT} \d{{1,2}}|"
    rf"{_NUM} {_UNIT}\b(?! old)(?: ago| now| later| before| back)?|the other (?:day|night|week)|ago|"
    rf"since (?:\d|last|then|early|late|the (?:start|beginning|end)|{_MONTH}|{_DAY})|recently|lately|"
    rf"\d{{1,2}}:\d{{2}}(?:\s*[ap]m)?|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?)\b")
_ZH_TIME = (
    r"昨天|昨儿|前天|今天|明天|后天|昨晚|今晚|今早|上周|下周|本周|这周|上个?星期|下个?星期|上个?月|下个?月|这个月|去年|前年|今年|明年|"
    r"周[一二三四五六日末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|前[一二两三几]天|"
    r"[0-9０-９一二三四五六七八九十两几半]+(?:天|周|个星期|个月|年)(?:前|以前|之前|后|以后|了)|"
    r"[0-9０-９]+\s*(?:年(?![级纪])|月|日(?!元)|号(?![楼房线床门车座位鞋码电]))|[一二三四五六七八九十]+月|初[一二三四五六七八九十]|"
    r"春节|国庆|中秋|元旦|端午|最近|前几天|那天")
_SAYS_WHEN = re.compile(f"{_EN_TIME}|{_ZH_TIME}", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """The question asks for a time or a duration."""
    return _ASKS_WHEN.search(query) is not None


@per_turn
def says_when(text: str) -> bool:
    """The turn's own statement (its log stamp left out) holds a time expression ("8.15过生日" too: a dotted date)."""
    body = body_of(text)
    return _SAYS_WHEN.search(body) is not None or any(t.startswith("date") for t in date_terms(body))


def untimed_turns(query: str, texts: Sequence[str], rels: Sequence[float],
                  links: Sequence[float] | None = None) -> list[int]:
    """The turns with some relevance that say no time, nor does a turn they are linked to (``links[i]``:
    the strength of the link between turns i and i+1, see context.select.signals.links), when the question asks when
    ([] otherwise)."""
    if not asks_when(query):
        return []
    said: dict[int, bool] = {}

    def timed(i: int) -> bool:  # only the turns with relevance and their neighbours are read
        if i not in said:
            said[i] = says_when(texts[i])
        return said[i]

    out = []
    for i, r in enumerate(rels):
        if r <= 0 or timed(i):
            continue
        if links and ((i > 0 and links[i - 1] >= LINKED and timed(i - 1))
                      or (i + 1 < len(texts) and links[i] >= LINKED and timed(i + 1))):
            continue
        out.append(i)
    return out
