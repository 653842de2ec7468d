"""Numbers and dates in one spelling, so that the ways people write them meet.

"有几个人是六月份过生日的？" is answered by "其生日是06月21日", "6月21号" and "六月二十一日"; "How many people were
born in June?" by "6/21", "Jun 21" and "the 21st of June". Pure functions over text, no dictionary:

- ``cn_number("二十一")`` -> 21: Chinese numerals (〇零一二两三…九, 十百千万亿) to an integer;
- ``normalize(text)``: the text with full-width forms folded (NFKC), Chinese numerals that count or date
  something written in digits ("六月" -> "6月", "十二号" -> "12号", "三千块" -> "3000块"), zero-padded month and day
  numbers unpadded ("06月" -> "6月", "06/21" -> "6/21") and English month names and abbreviations written
  out ("Jun." -> "June"); every other character as it was;
- ``date_terms(text)``: one word per month and per day of the year the text names, whatever the spelling:
  ``month6`` for June, ``date6x21`` for June 21 ("6月21日", "06月21号", "六月二十一日", "June 21", "21 June",
  "Jun 21st", "the 21st of June", "6/21"); a context builder adds them to what it scores, and the
  words of the text stay as they were (the index's analyzer is not changed by this module);
- ``number_terms(text)``: the Chinese numerals of the text that count something, as digits ("三千" ->
  "3000"), for the same reason.

A clock ("14:06") and a year ("2024年") are not dates of the year here; a slash date is read month first
(the US order) when its first part is a month (1-12) and its second a day.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_DIGIT = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_UNIT = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10_000, "亿": 100_000_000}
CN_NUMERAL = "〇零一二两三四五六七八九十百千万亿"

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_OF: dict[str, int] = {}
for _k, _m in enumerate(MONTHS, 1):
    _MONTH_OF[_m] = _k
    _MONTH_OF[_m[:3]] = _k
_MONTH_OF["sept"] = 9
_MONTH_NAME = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
              r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"


def cn_number(text: str) -> int | None:
    """The integer a run of Chinese numerals spells ("二十一" 21, "十二" 12, "一百零五" 105, "三千" 3000,
    "两万五千" 25000, "二〇二四" 2024 digit by digit); None when it is not one."""
    if not text or any(c not in CN_NUMERAL for c in text):
        return None
    if all(c in _DIGIT for c in text):  # digit by digit: "二〇二四", "六"
        n = 0
        for c in text:
            n = n * 10 + _DIGIT[c]
        return n
    total = section = 0
    digit: int | None = None
    for c in text:
        if c in _DIGIT:
            digit = _DIGIT[c]
        elif c in _UNIT:
            section += (1 if digit is None else digit) * _UNIT[c]
            digit = None
        else:  # 万, 亿
            section += digit or 0
            if section == 0:
                return None
            total += section * _BIG[c]
            section, digit = 0, None
    return total + section + (digit or 0)


# A Chinese numeral that counts or dates something: before a unit of date, time, money or count, or with
# a 十/百/千/万 in it. "一起", "一直", "万一", "十分" are words, not numbers: the unit after them decides.
_CN_COUNTED = re.compile(
    rf"[{CN_NUMERAL}]+(?=[月日号岁个人块元次年天周位件台本张条只家分钟小时点半份])|[〇零一二两三四五六七八九]*[十百千万亿][{CN_NUMERAL}]*")
_PADDED = re.compile(r"(?<![\d:：.])0(\d)(?=\s*[月日号]|/\d)|(?<=\d/)0(\d)(?!\d)")
_EN_MONTH = re.compile(rf"\b{_MONTH_NAME}\b\.?", re.IGNORECASE)


def _cn_to_digits(m: re.Match[str]) -> str:
    raw = m.group(0)
    n = cn_number(raw)
    if n is None or raw in ("万", "亿", "千", "百"):
        return raw
    if raw == "十" and not m.string.startswith(("月", "日", "号", "岁"), m.end()):
        return raw  # "十分", "十足": a word
    return str(n)


def _fold(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """``text`` with numbers and dates in one spelling (see the module)."""
    text = _fold(text)
    if not text.isascii():
        text = _CN_COUNTED.sub(_cn_to_digits, text)
    text = _PADDED.sub(lambda m: m.group(1) or m.group(2), text)
    return _EN_MONTH.sub(_month_word, text)


def _month_word(m: re.Match[str]) -> str:
    word = m.group(0).rstrip(".").lower()
    if word == "may" and m.group(0)[0].islower():
        return m.group(0)  # "may" the verb; "May" the month
    if word == "mar" and m.group(0)[0].islower():
        return m.group(0)
    full = MONTHS[_MONTH_OF[word] - 1]
    return full.capitalize() if m.group(0)[0].isupper() else full


_ZH_DATE = re.compile(r"(?<![\d:])(\d{1,2})\s*月(?:份)?\s*(?:(\d{1,2})\s*[日号])?")
_SLASH_DATE = re.compile(r"(?<![\d/:.])(\d{1,2})/(\d{1,2})(?:/(?:\d{2}|\d{4}))?(?![\d/:])")
# A month and day with a dot ("小姨8.15过生日", "生日是3.14"), in Chinese text, said beside a word of a day (a birthday, a
# day, "过"): "血糖6.8" and "打了9.9折" are no dates.
_DOT_DATE = re.compile(r"(?<![\d.:/])(1[0-2]|0?[1-9])\.(3[01]|[12]\d|0?[1-9])(?![\d.])")
_DOT_DATE_WORD = re.compile(r"生日|生辰|出生|过生|纪念日|那天|当天|号|过")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_EN_MONTH_DAY = re.compile(rf"\b({_MONTH_NAME})\.?\s+{_DAY}\b(?!\s*(?::|[ap]\.?m\b|%))", re.IGNORECASE)
_EN_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH_NAME})\b", re.IGNORECASE)
_EN_MONTH_ALONE = re.compile(rf"\b({_MONTH_NAME})\b", re.IGNORECASE)


def _ok(month: int, day: int | None) -> bool:
    return 1 <= month <= 12 and (day is None or 1 <= day <= 31)


@lru_cache(maxsize=65536)
def date_terms(text: str) -> tuple[str, ...]:
    """``month<m>`` and ``date<m>x<d>`` for every month and day of the year ``text`` names (see the module)."""
    text = normalize(text)
    out: list[str] = []

    def add(month: int, day: int | None) -> None:
        if _ok(month, day):
            out.append(f"month{month}")
            if day is not None:
                out.append(f"date{month}x{day}")

    if not text.isascii():
        for m in _ZH_DATE.finditer(text):
            add(int(m.group(1)), int(m.group(2)) if m.group(2) else None)
        for m in _DOT_DATE.finditer(text):
            if _dot_date_said(m):
                add(int(m.group(1)), int(m.group(2)))
    for m in _SLASH_DATE.finditer(text):
        add(int(m.group(1)), int(m.group(2)))
    lower = text.lower()
    if any(c.isalpha() and c.isascii() for c in text):
        for m in _EN_MONTH_DAY.finditer(text):
            add(_MONTH_OF[m.group(1).lower().rstrip(".")[:3] if m.group(1).lower() != "sept" else "sept"], int(m.group(2)))
        for m in _EN_DAY_MONTH.finditer(text):
            add(_MONTH_OF[m.group(2).lower()[:3]], int(m.group(1)))
        for m in _EN_MONTH_ALONE.finditer(text):
            word = m.group(1)
            if word.lower() in ("may", "mar") and word[0].islower():
                continue
            out.append(f"month{_MONTH_OF[lower[m.start():m.end()][:3]]}")
    return tuple(dict.fromkeys(out))


def _dot_date_said(m: re.Match[str]) -> bool:
    """A dotted number (``_DOT_DATE``'s match ``m``) is a date: a word of a day stands within a few characters of it
    in the text it was found in."""
    text = m.string
    return _DOT_DATE_WORD.search(text, max(0, m.start() - 6), min(len(text), m.end() + 8)) is not None


def _day_token(month: int, day: int | None, raw: str, name: bool = False) -> str:
    if not _ok(month, day):
        return raw
    words = f" month{month} " if day is None else f" month{month} date{month}x{day} "
    # An English date keeps its month's name: "June" asked of a turn saying "6/21" or "June 21" meets both.
    return f" {MONTHS[month - 1].capitalize()}{words}" if name else raw + words


@lru_cache(maxsize=65536)
def with_date_words(text: str) -> str:
    """``normalize(text)`` with each month or day of the year it names followed by ``date_terms``' words
    ("6月21日 month6 date6x21 " for "六月二十一日", " June month6 date6x21 " for "June 21" and "6/21"; a month named
    alone in English gains " month6"): what a scorer reads, so that every spelling of a day holds the same
    words, and "4月1日" and "1月4日" do not. The text a reader sees is not this."""
    text = normalize(text)

    def zh(m: re.Match[str]) -> str:
        return _day_token(int(m.group(1)), int(m.group(2)) if m.group(2) else None, m.group(0))

    def slash(m: re.Match[str]) -> str:
        return _day_token(int(m.group(1)), int(m.group(2)), m.group(0), name=True)

    def month_day(m: re.Match[str]) -> str:
        return _day_token(_MONTH_OF[m.group(1).lower().rstrip(".")[:3]], int(m.group(2)), m.group(0), name=True)

    def day_month(m: re.Match[str]) -> str:
        return _day_token(_MONTH_OF[m.group(2).lower()[:3]], int(m.group(1)), m.group(0), name=True)

    def month_alone(m: re.Match[str]) -> str:
        word = m.group(1)
        if word.lower() in ("may", "mar") and word[0].islower():
            return word
        return f"{word} month{_MONTH_OF[word.lower()[:3]]}"

    def dot(m: re.Match[str]) -> str:
        return _day_token(int(m.group(1)), int(m.group(2)), m.group(0)) if _dot_date_said(m) else m.group(0)

    if not text.isascii():
        text = _DOT_DATE.sub(dot, _ZH_DATE.sub(zh, text))
    text = _SLASH_DATE.sub(slash, text)
    if any(c.isalpha() and c.isascii() for c in text):
        text = _EN_MONTH_DAY.sub(month_day, text)
        text = _EN_DAY_MONTH.sub(day_month, text)
        text = _EN_MONTH_ALONE_UNMARKED.sub(month_alone, text)
    return text


# A month's name not already followed by its words (a date above wrote " June month6 date6x21 ").
_EN_MONTH_ALONE_UNMARKED = re.compile(rf"\b({_MONTH_NAME})\b(?!\s*month\d)", re.IGNORECASE)


_CN_RUN = re.compile(rf"[{CN_NUMERAL}]+")


@lru_cache(maxsize=65536)
def number_terms(text: str) -> tuple[str, ...]:
    """The Chinese numerals of ``text`` that count or date something, as digits (see ``normalize``)."""
    if text.isascii() or not _CN_RUN.search(text):
        return ()
    out = [m.group(0) for m in re.finditer(r"\d+", normalize(text))]
    have = set(re.findall(r"\d+", _fold(text)))
    return tuple(dict.fromkeys(n for n in out if n not in have))
