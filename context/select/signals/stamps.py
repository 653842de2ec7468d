"""A log turn's "time, place" prefix, told apart from what the turn says.

Logs stamp each statement: "2024年9月13日 周五 18:23，北京市西城区，咖啡馆：我老板在找房子。",
"2023年11月2日 周四 21:41，在沙发上。小姨养了一只英短猫。", "[6月10日 周六 12:29｜朋友家] 10月13日是…", "2/25（周日）07:02 @家里 我爷爷…",
"Aug 18, 2024, 8:26 AM, Pearl District, Portland, at my desk: My great-uncle…". The prefix is where
and when, not what: turns written in one place share its words because the writer sat there, and
the signals that compare what turns say (links between neighbours, the people a turn names) read
the statement alone.

From the text alone: a turn whose first characters open a date or time (after a "时间：" / "Time:" field
name, if any) and that holds a clock time ("18:23", "8:26 AM", "上午10点" after a date) near its start has a
prefix; it ends at the first closing mark after the clock (a colon, a closing bracket, a full stop) when a
statement follows it and the place between is short, after a named place field ("，地点：北京。"), or after a
place set off by spaces in a script that has none between words ("10:00 北京市海淀区 我…"); else right after
the clock. A turn given a ``name`` is read as "Li: <stamp> statement" (``Packet.spoken``): the stamp after the
name goes too. Other turns: the old rule, up to a colon near the start ("Name: ...").
"""

from __future__ import annotations

import re

from notes_store.bounded_cache import TEXT_CACHE_CHARS, cached_by_size

# The turn opens with a date or time: a digit, a month or weekday name, each after an opening bracket or a
# "时间：" / "Time:" field name if any. No two optional spaces side by side (a turn of spaces is read once).
_OPENS_STAMP = re.compile(
    r"^\s*(?:[\[【(（]\s*)?(?:(?:时间|日期|time|date)\s*[:：]\s*)?(?:\d|(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|"
    r"thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\b|周|星期)", re.IGNORECASE)
_CLOCK = re.compile(r"(?<!\d)\d{1,2}[:：]\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?"
                    # "上午10点", "5日 10点30分", "周五 8点半": a clock in words after a time of day or a date; not
                    # "3点钟", "3点多", "3点了" (a bare "3点钟…" opens a statement; a stamp's hour is not cut mid-word)
                    r"|(?:(?:上午|下午|中午|晚上|早上|傍晚|凌晨|夜里)\s*|(?<=[日号])|(?<=[日号\d一二三四五六天]\s))\d{1,2}\s*[点时]"
                    r"(?:\s*\d{1,2}\s*分|半|(?![钟多了左前后以间候]))",
                    re.IGNORECASE)
# A place given as a field after the clock: "，地点：北京市海淀区。", "][地点: 北京] ", "; Place: Oslo. ".
# No two optional spaces side by side: "10:00" and 2,000 spaces must not cost a quadratic backtrack.
_PLACE_LABEL = re.compile(r"\s*(?:[,，;；]\s*)?(?:[\]】)）]\s*(?:[\[【(（]\s*)?)?(?:地点|位置|地址|place|location)\s*[:：]\s*",
                          re.IGNORECASE)
_LABELLED_PLACE_END = re.compile(r"[。，\]】)）;；：]|(?<!\b[A-Z][a-z])\.\s|:\s")   # not "St. Mary's"
# A place set off by spaces after the clock, in a script without spaces between words: "10:00 北京市海淀区 我…".
# Han and kana on both sides: Cyrillic, Greek or Hangul put spaces between words, and their first word is the
# statement's; so does "我买了 iPhone", where the space sets off a Latin word.
_HAN_KANA = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff"
_SPACED_PLACE = re.compile(f"[{_HAN_KANA}·・]{{2,24}}\\s+(?=[{_HAN_KANA}])")
# Where a stamp's place ends and the statement starts: a full-width colon; an ASCII colon or a full stop
# only after a place the stamp opens with a comma ("…18:23，北京市西城区，咖啡馆：", "…21:41，在沙发上。",
# "…8:26 AM, Pearl District, at my desk: "), not a sentence of the statement ("10:33 我客户…。他…");
# a closing bracket only when the stamp opened with one ("[6月10日 … 12:29｜朋友家] ").
_FULL_COLON = re.compile(r"：")
_AFTER_COMMA = re.compile(r"：|:\s|。")
_SHORT_PLACE = re.compile(r"[^.。!！?？:：\n]{1,24}:\s")
_CLOSERS = {"[": "]", "【": "】", "(": ")", "（": "）"}
_AT_PLACE = re.compile(r"[@＠]\S{1,24}\s+")
# A turn given a ``name`` is read as "Li: 2024年…10:00，北京：我…" (Packet.spoken): the stamp follows the name.
_NAME_OPENING = re.compile(r"[^\s:：\d][^:：\n]{0,39}:\s")
# The old rule for turns without a clock: "Name: ...", "2024年2月1日，公园：...".
_PREFIX_END = re.compile(r"[：】]|:\s")
CLOCK_WITHIN = 40    # the clock is this near the start
PLACE_WITHIN = 48    # and the place after it at most this long


# A reading of a turn's text, remembered (the same history is read on every call), within a
# bounded number of characters of turns.
per_turn = cached_by_size(TEXT_CACHE_CHARS, 65536)


@per_turn
def body_of(text: str) -> str:
    """The turn's statement, without a leading "time, place" prefix (or "Name:", or both)."""
    found = stamped(text)
    if found is not None:
        return found[1]
    m = _PREFIX_END.search(text, 0, 80)
    return text[m.end():] if m else text


def without_stamp(text: str) -> str:
    """The turn without a leading "time, place" prefix that holds a clock; a "Name:" that opens the turn
    stays, before or after the stamp (who speaks is part of how a dialogue's turns link)."""
    found = stamped(text)
    return text if found is None else found[0] + found[1]


def stamped(text: str) -> tuple[str, str] | None:
    """(the "Name: " before the stamp or '', what follows the stamp) when a stamp opens the turn or follows
    its "Name:"; None when it has none."""
    found = _after_stamp(text)
    if found is not None:
        return "", found
    name = _NAME_OPENING.match(text)
    if name is not None and (found := _after_stamp(text[name.end():])) is not None:
        return text[:name.end()], found
    return None


def _after_stamp(text: str) -> str | None:
    """What follows a clock-stamped prefix that opens ``text``; None when it has none."""
    if not _OPENS_STAMP.match(text):
        return None
    clock = _CLOCK.search(text, 0, CLOCK_WITHIN)
    if clock is None:
        return None
    at, stop = clock.end(), clock.end() + PLACE_WITHIN + 1
    label = _PLACE_LABEL.match(text, at)
    if label is not None:
        m = _LABELLED_PLACE_END.search(text, label.end(), label.end() + PLACE_WITHIN + 1)
        if m is not None and text[m.end():].strip():
            return text[m.end():].lstrip()
    m = (_AFTER_COMMA if text[at:at + 1] in ",，" else _FULL_COLON).search(text, at, stop)
    if m is None:  # "09:30 home: My friend…": a short place, no sentence of the statement before the colon
        m = _SHORT_PLACE.match(text, at)
    end = m.end() if m is not None else -1
    closer = _CLOSERS.get(text.lstrip()[:1])
    if closer is not None:
        close = text.find(closer, at, stop)
        if close >= 0 and (end < 0 or close < end):
            end = close + 1
    if end >= 0 and text[end:].strip():
        return text[end:].lstrip()
    rest = text[at:].lstrip(" ,，、|｜]】)）")
    # "07:02 @家里 我爷爷…": a place written as an address; "10:00 北京市海淀区 我叔叔…": set off by spaces.
    place = _AT_PLACE.match(rest) or (_SPACED_PLACE.match(rest) if text[at:at + 1].isspace() else None)
    return rest[place.end():] if place is not None and rest[place.end():].strip() else rest
