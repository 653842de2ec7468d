"""The shape an answer takes, read from what a question asks: a date for "什么时候过生日" / "when is her
birthday", a phone number for "电话是多少", an address for "邮箱", an age for "几岁" / "how old".

"那位建筑师，他什么时候过生日？" is answered by "王建国是3月8号出生的。" (no 生日 in it), while "王建国说生日那天不想大办。"
holds the word and no date. Among the turns a clause already reaches, one holding a thing of the asked shape
is the likelier answer: classic question answering's answer type, read by patterns (a date: any spelling
``numbers.date_terms`` reads as a day of the year), the same for every history. Only a turn's statement is read, never its "time, place" stamp (every stamped turn holds a date).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notes_store.analysis.numbers import date_terms
from notes_store.bounded_cache import QUERY_CACHE_CHARS, TEXT_CACHE_CHARS, cached_by_size

from .stamps import body_of

__all__ = ["EMAIL", "asked_shape", "holds_shape"]

_ZH_NUM = "[零〇一二两三四五六七八九十]"
# An e-mail address (also what signals.bridge reads as an id).
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# (what the question asks, what the answer holds)
_SHAPES: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    "date": (re.compile(r"什么时候|哪天|哪一天|几号|几月|什么日子|日期|\bwhen\b|what (?:date|day)|which (?:date|day)",
                        re.IGNORECASE),
             None),   # a day of the year, in any spelling numbers.date_terms reads
    # A phone's number, not the phone itself ("a Samsung phone").
    "phone": (re.compile(r"电话|手机号|号码|联系方式|phone\s*(?:number|no\b|#)|number to call|call (?:him|her|them)|"
                         r"contact (?:number|details)", re.IGNORECASE),
              re.compile(r"(?<!\d)(?:\d[\s.-]?){7,}\d(?!\d)|\(\d{3}\)\s?\d{3}[-.\s]?\d{4}")),
    "email": (re.compile(r"邮箱|邮件|e-?mail", re.IGNORECASE), EMAIL),
    "age": (re.compile(r"几岁|多少岁|多大了|多大年纪|年龄|岁数|年纪|how old|what age", re.IGNORECASE),
            re.compile(rf"(?:\d{{1,3}}|{_ZH_NUM}{{1,4}})\s*(?:周)?岁|(?<!\d)今年\s*(?:\d{{1,3}}|{_ZH_NUM}{{1,4}})(?![\d零〇一二两三四五六七八九十年月日号点块元斤万千百个次])|\b\d{{1,3}}\s*(?:years?\s+old|yo)\b|\bturned\s+\d{{1,3}}\b|"
                       r"\baged?\s+\d{1,3}\b", re.IGNORECASE)),
    # Where someone is from: a province (the closed list of China's provincial divisions), a place named with its
    # level ("景德镇市", "桐城县"), or "是…人" ("方医生是河南信阳人", never "是个好人").
    "origin": (re.compile(r"哪里人|哪儿人|哪的人|什么地方人|老家|家乡|籍贯|故乡|出生地"),
               re.compile(r"北京|天津|上海|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|"
                          r"海南|四川|贵州|云南|陕西|甘肃|青海|台湾|内蒙|广西|西藏|宁夏|新疆|香港|澳门|东北|"
                          r"[\u4e00-\u9fff]{2,3}[省市县]|"
                          r"是(?![个好坏老熟家客外本别病工大小年穷富男女文明聪能])[\u4e00-\u9fff]{2,4}人(?=[，,。！!；;…]|$)")),
}


@cached_by_size(QUERY_CACHE_CHARS, 1024)
def asked_shape(text: str) -> str:
    """The shape the answer to ``text`` takes ("date", "phone", "email", "age", "origin"), "" when it asks none of them or
    more than one."""
    found = [name for name, (asks, _holds) in _SHAPES.items() if asks.search(text)]
    return found[0] if len(found) == 1 else ""


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def _shapes_held(text: str) -> frozenset[str]:
    body = body_of(text)
    return frozenset(name for name, (_asks, holds) in _SHAPES.items()
                     if (holds.search(body) is not None if holds is not None
                         else any(t.startswith("date") for t in date_terms(body))))


def holds_shape(shape: str, texts: Sequence[str], among: Sequence[int]) -> set[int]:
    """Which of the texts ``among`` hold a thing of ``shape`` in their statement."""
    if not shape:
        return set()
    return {i for i in among if shape in _shapes_held(texts[i])}
