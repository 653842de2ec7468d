"""``zh-restamped``: the ``zh-daily`` logs with each turn's "time, place" stamp written another way.

A log's stamp format is the caller's choice; the selection reads stamps from the text alone
(``context.select.signals.stamps``), so a format it was not written against must not cost it recall. Each history
keeps its turns, questions and evidence and gets one of ``FORMATS`` (cycled over the set's histories):
fields named ("时间：…，地点：…。"), a clock in words in brackets, bracketed fields, ISO 8601 with the place
set off by spaces, and a date run into its clock. Parsed here with a regex for zh-daily's own stamp, not
with the code under test. Our own transformation of our own CC0 set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .daily_logs import daily_log_set
from .model import Conversation, DevSet

# zh-daily's stamp: "2024年11月14日 07:21，上海市徐汇区，餐厅：刚交了这个月的房租。"
_DAILY_STAMP = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日 (\d{1,2}):(\d{2})，([^，：]+)，([^：]+)：(.+)", re.S)

Stamp = tuple[int, int, int, int, int, str, str]     # year, month, day, hour, minute, district, place


def _clock_in_words(h: int, m: int) -> str:
    period = "上午" if h < 12 else "下午" if h < 18 else "晚上"
    hour = h if h <= 12 else h - 12
    return f"{period}{hour}点" + (f"{m}分" if m else "")


FORMATS: dict[str, Callable[[Stamp], str]] = {
    "labels": lambda s: f"时间：{s[0]}年{s[1]}月{s[2]}日 {s[3]:02d}:{s[4]:02d}，地点：{s[5]}{s[6]}。",
    "words": lambda s: f"（{s[0]}年{s[1]}月{s[2]}日 {_clock_in_words(s[3], s[4])}，{s[5]}·{s[6]}）",
    "fields": lambda s: f"[时间: {s[0]}-{s[1]:02d}-{s[2]:02d} {s[3]:02d}:{s[4]:02d}:00][地点: {s[5]} {s[6]}] ",
    "iso": lambda s: f"{s[0]}-{s[1]:02d}-{s[2]:02d}T{s[3]:02d}:{s[4]:02d}:00 {s[5]}{s[6]} ",
    "run-in": lambda s: f"{s[0]}年{s[1]:02d}月{s[2]:02d}日{s[3]:02d}:{s[4]:02d} {s[5]} ",
}


def restamp(text: str, fmt: str) -> str:
    """``text`` (a zh-daily turn) with its stamp written in format ``fmt``."""
    m = _DAILY_STAMP.fullmatch(text)
    if m is None:
        raise ValueError(f"not a zh-daily stamped turn: {text[:40]!r}")
    y, mo, d, h, mi = (int(x) for x in m.groups()[:5])
    return FORMATS[fmt]((y, mo, d, h, mi, m[6], m[7])) + m[8]


def restamped(conv: Conversation, fmt: str) -> Conversation:
    """The same history, questions and evidence ids, every turn restamped."""
    new = {t["content"]: restamp(t["content"], fmt) for t in conv.history}
    history = [{**t, "content": new[t["content"]]} for t in conv.history]
    return Conversation(history, {k: new.get(v, v) for k, v in conv.by_id.items()}, conv.questions)


def restamped_set(seeds: Sequence[int], split: str) -> DevSet:
    """``zh-restamped``: zh-daily's histories for ``seeds``, the k-th in the k-th format (cycled)."""
    names = list(FORMATS)
    convs = daily_log_set("zh", seeds, split).conversations
    return DevSet("zh-restamped", split, [restamped(c, names[k % len(names)]) for k, c in enumerate(convs)])
