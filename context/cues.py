"""Words a question about a person's attribute is answered in, when it asks in other words.

"我叔叔的生辰是哪天？" is answered by "…的生日是11月11日。", "我同事是哪里人？" by "…老家在江西景德镇。",
"What does Mateo do for a living?" by "…four years in the job as an accountant". Personal-fact questions
ask about a small set of attributes (where from, birthday, age, job, school, hobby, home, family,
pets, car, phone, food, travel), each said in a few common ways: a question that names one way also
finds the others, at a lower weight, as comparative_bases finds "old" for "older". The table was
written from the attributes, not from any dev set's wording.

Each group is a list of phrases; a phrase opening with "?" only recognises the question ("哪里人",
"do for a living"), one opening with "!" is only searched for ("live", "work": too common to say what
a question asks). Chinese phrases match the question as substrings and a two-character one is searched
for as its bigram; an English phrase matches the question's words in order (up to three words between,
a plural or -ed/-ing ending allowed) and each of its words is searched for by its stem.
"""

from __future__ import annotations

import re
from functools import lru_cache

from notes_store.analysis import is_content_term, query_terms

_GROUPS_ZH = (
    ("?哪里人", "?哪儿人", "?什么地方人", "老家", "家乡", "来自", "籍贯", "?出生地", "故乡"),
    ("生日", "生辰", "出生", "?哪天生"),
    ("?做什么工作", "?干什么工作", "?做什么的", "?干哪一行", "?哪一行", "工作", "职业", "上班", "行业", "从事"),
    ("爱好", "业余", "空闲", "闲暇", "兴趣", "迷上", "热爱"),
    ("学校", "大学", "毕业", "母校", "读书", "就读", "学历"),
    ("?多大", "?几岁", "年龄", "岁数", "年纪", "!岁"),
    ("住在", "?住哪", "住址", "!家在", "!租了", "搬到"),
    ("宠物", "!养了"),
    ("孩子", "儿子", "女儿", "小孩"),
    ("口味", "爱吃", "偏爱", "?最喜欢吃", "?百吃不厌", "饮食"),
    ("旅行", "旅游", "度假", "出游", "?环游"),
    ("习惯", "?每天", "?雷打不动", "?固定"),
    ("种植", "种了", "菜园", "花园", "阳台"),
    ("比赛", "马拉松", "跑步", "半马", "全马"),
    ("慈善", "捐款", "募捐", "公益", "义工", "志愿"),
)
_GROUPS_EN = (
    ("hometown", "?where from", "?come from", "?grew up", "?grow up", "!grew", "native", "?born in", "?originally"),
    ("birthday", "born"),
    ("job", "!work", "occupation", "profession", "career", "?do for a living", "employed", "?work as"),
    ("hobby", "hobbies", "?free time", "?spare time", "?outside work", "pastime", "?for fun", "!enjoy"),
    ("school", "college", "university", "graduated", "studied", "degree"),
    ("?how old", "age", "?years old", "!turned"),
    ("?where live", "!live", "!moved", "apartment", "neighborhood", "!home"),
    ("pet", "pets", "cat", "dog", "kitten", "puppy"),
    ("kids", "children", "son", "daughter"),
    ("boss", "manager", "supervisor"),
    ("wife", "husband", "spouse", "married"),
    ("trip", "travel", "vacation", "holiday", "!visited"),
    ("garden", "!grow", "?growing", "?grows", "plant", "crop", "harvest"),
    ("race", "marathon", "10k", "5k", "triathlon", "!running"),
    ("charity", "fundraiser", "?raising money", "?raise money", "!raising", "donate", "donation", "cause"),
)


# A clause that asks: a question word ("Who went to Japan, and what stood out?" asks in both).
ASKS = re.compile(r"\b(?:what|when|where|who|whom|whose|which|why|how)\b|什么|怎么|哪|谁|几|多少|何时", re.IGNORECASE)
_CLAUSE = re.compile(r"[^,，;；:：。!！?？]+[?？]?")


def _stems(phrase: str) -> list[str]:
    return [t for t in query_terms(phrase) if is_content_term(t)]


def _english_trigger(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) + r"(?:s|es|d|ed|ing)?" for w in phrase.split()]
    return re.compile(r"\b" + r"\W+(?:\w+\W+){0,3}?".join(words) + r"\b")


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[tuple[str, ...], tuple[re.Pattern[str], ...], tuple[str, ...]], ...]:
    """Per group: Chinese triggers (substrings), English triggers, terms searched for."""
    out = []
    for groups, chinese in ((_GROUPS_ZH, True), (_GROUPS_EN, False)):
        for group in groups:
            zh: list[str] = []
            en: list[re.Pattern[str]] = []
            search: list[str] = []
            for phrase in group:
                text = phrase.lstrip("?!")
                if not phrase.startswith("!"):
                    if chinese:
                        zh.append(text)
                    else:
                        en.append(_english_trigger(text))
                if not phrase.startswith("?"):
                    # A Chinese word of two characters is one bigram; one character ("岁") is searched
                    # only where the table marks it so; longer phrases only recognise the question.
                    wanted = len(text) == 2 or (len(text) == 1 and phrase.startswith("!"))
                    search += ([text] if wanted else []) if chinese else _stems(text)
            out.append((tuple(zh), tuple(en), tuple(dict.fromkeys(search))))
    return tuple(out)


@lru_cache(maxsize=4096)
def attribute_terms(query: str) -> tuple[str, ...]:
    """Terms of the other ways to say the attributes the question asks about (none when it asks
    about none of them)."""
    asked = asking_text(query)
    lower = asked.lower()
    out: list[str] = []
    for zh, en, search in _table():
        if any(p in asked for p in zh) or any(p.search(lower) for p in en):
            out += search
    return tuple(dict.fromkeys(out))


def asking_text(query: str) -> str:
    """The clauses of the query that ask (a question word, or a "?" at their end), or the whole query when
    none does: "周末想约人去爬山，不过她平时工作挺忙的，她是教什么的来着？" asks what she teaches, not about work."""
    clauses = [c for c in _CLAUSE.findall(query) if c.strip()]
    asking = [c for c in clauses if ASKS.search(c) or c.rstrip()[-1:] in "?？"]
    return " ".join(asking) if asking else query
