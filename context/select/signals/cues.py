"""Words a question about a person's attribute is answered in, when it asks in other words.

"我叔叔的生辰是哪天？" is answered by "…的生日是11月11日。", "我同事是哪里人？" by "…老家在江西景德镇。",
"What does Mateo do for a living?" by "…four years in the job as an accountant". Personal-fact questions
ask about a small set of attributes (where from, birthday, age, job, school, hobby, home, pets, children,
boss, spouse, travel, food, habits, garden, races, charity), each said in a few common ways: a question
that names one way also finds the others, at a lower weight, as comparative_bases finds "old" for
"older". The groups were written from the attributes; the misses that suggested them were read on the
en-longchat and zh-diary dev seeds (the garden, race and charity groups on en-longchat's alone).

Each group is a list of phrases; a phrase opening with "?" only recognises the question ("哪里人",
"do for a living"), one opening with "!" is only searched for ("岁"). Chinese phrases match the question
as substrings and a two-character one is searched for as its bigram; an English phrase of one word
matches a stem of the question, a longer one its words in order (up to three words between), and each
of its words is searched for by its stem. Words common outside the attribute ("live", "home", "cause",
"run") are neither; "works" and "turned" are searched for, never recognised ("works as a nurse", "turned 41":
how a life log says a job and an age; the attribute is one unit per turn, so they add little elsewhere). English questions recognise a group only when they ask about someone (a
name, a possessive, a personal pronoun): "What caused the race condition?" asks about no one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from notes_store.analysis.analyzer import is_content_term, query_terms
from notes_store.bounded_cache import QUERY_CACHE_CHARS, cached_by_size

_GROUPS_ZH = (
    ("?哪里人", "?哪儿人", "?什么地方人", "老家", "家乡", "来自", "籍贯", "?出生地", "故乡"),
    ("生日", "生辰", "出生", "?哪天生"),
    ("?做什么工作", "?干什么工作", "?干哪一行", "?干什么的", "工作", "职业", "上班", "行业", "从事"),
    ("爱好", "业余", "闲暇", "兴趣", "迷上", "热爱", "?喜欢做什么", "?喜欢干什么", "?平时喜欢", "?喜欢玩什么", "!最爱"),
    ("学校", "大学", "毕业", "母校", "读书", "就读", "学历"),
    ("?多大", "?几岁", "年龄", "岁数", "年纪", "!岁"),
    ("住在", "?住哪", "住址", "!家在", "!租了", "搬到"),
    # A pet is said by its kind or breed ("养了只柯基", "一只布偶猫"), rarely as 宠物.
    ("宠物", "!养了", "?养的", "?养了什么", "?狗", "?猫", "!猫", "!狗", "!犬", "猫咪", "小狗", "鹦鹉", "八哥", "柯基", "泰迪",
     "金毛", "萨摩", "哈士", "柴犬", "边牧", "拉布", "比熊", "博美", "英短", "美短", "布偶", "橘猫", "狸花", "暹罗", "仓鼠"),
    ("孩子", "儿子", "女儿", "小孩"),
    ("口味", "爱吃", "偏爱", "?喜欢吃", "?百吃不厌", "饮食"),
    ("旅行", "旅游", "度假", "出游", "?环游"),
    ("习惯", "?雷打不动"),
    ("种植", "种了", "菜园", "花园"),
    ("比赛", "?马拉松", "跑步", "半马", "全马"),
    ("慈善", "捐款", "募捐", "公益", "义工", "志愿"),
    ("老板", "领导", "上司", "主管"),
    ("名字", "姓名", "名叫", "?叫什么", "?叫啥", "?是谁", "!叫"),
    ("关系", "?什么关系", "?是我的谁", "?是谁", "!是我", "!叫"),
    # Where an event is held ("年会定在世纪城假日酒店", "婚礼在苏州办").
    ("地点", "?在哪办", "?在哪儿办", "?在哪里办", "?在哪举办", "?在哪里举办", "?在哪举行", "?在哪里举行", "?在哪开",
     "?在哪里开", "举办", "举行", "会场", "场地", "!定在", "!办在"),
    ("老婆", "老公", "妻子", "丈夫", "爱人", "结婚"),
)
_GROUPS_EN = (
    ("hometown", "?where from", "?come from", "?grew up", "?grow up", "native", "?born in", "?originally"),
    ("birthday", "born"),
    ("job", "!works", "occupation", "profession", "career", "?do for a living", "?do for work", "employed", "?work as",
     "?work for", "?where work"),
    ("hobby", "hobbies", "?free time", "?spare time", "?outside work", "pastime", "?for fun"),
    ("school", "college", "university", "graduate", "study", "degree"),
    ("?how old", "age", "?years old", "!turned"),
    ("?where live", "apartment", "neighborhood"),
    ("pet", "pets", "cat", "dog", "kitten", "puppy"),
    ("kids", "children", "son", "daughter"),
    ("boss", "manager", "supervisor"),
    ("wife", "husband", "spouse", "married", "marry"),
    ("trip", "travel", "vacation", "holiday"),
    ("garden", "?what grow", "plant", "crop", "harvest", "vegetables"),
    ("race", "racing", "marathon", "10k", "5k", "triathlon"),
    ("charity", "fundraiser", "?raising money", "?raise money", "donate", "donation"),
    ("food", "dish", "cuisine", "?favorite meal", "?like to eat"),
)


# A clause that asks: a question word ("Who went to Japan, and what stood out?" asks in both).
ASKS = re.compile(r"\b(?:what|when|where|who|whom|whose|which|why|how)\b|什么|怎么|哪|谁|几|多少|何时", re.IGNORECASE)
# Clauses end at a mark, or at a full stop before a space ("I got back from a trip. When did…?").
_CLAUSE = re.compile(r"(?:[^,，;；:：。!！?？.]|\.(?!\s))+[?？]?")


def _stems(phrase: str) -> list[str]:
    return [t for t in query_terms(phrase) if is_content_term(t)]


def _english_trigger(phrase: str) -> re.Pattern[str] | tuple[str, ...]:
    """One word: its stem, matched against the question's stems ("studied" and "study"). Several: the
    words in order with up to three between ("grew up" is not "grow up": each its own phrase)."""
    if " " not in phrase:
        return tuple(_stems(phrase)) or (phrase,)
    words = [re.escape(w) + r"(?:s|es|d|ed|ing)?" for w in phrase.split()]
    return re.compile(r"\b" + r"\W+(?:\w+\W+){0,3}?".join(words) + r"\b")


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[tuple[str, ...], tuple[re.Pattern[str] | tuple[str, ...], ...], tuple[str, ...]], ...]:
    """Per group: Chinese triggers (substrings), English triggers, terms searched for."""
    out = []
    for groups, chinese in ((_GROUPS_ZH, True), (_GROUPS_EN, False)):
        for group in groups:
            zh: list[str] = []
            en: list[re.Pattern[str] | tuple[str, ...]] = []
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


# The end of a long query is searched for what it asks (the question closes it); bounded work per call.
ASKED_WITHIN = 2000
# Someone an English question asks about: a name inside it, a possessive, a personal pronoun.
_ABOUT_SOMEONE = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+|'s\b|(?i:\b(?:i|me|my|you|your|he|him|his|she|her|"
                            r"they|them|their|we|our|us)\b)|[\u3400-\u9fff]")


# A description of the person right before their name ("my college roommate Ben", "Caroline's school
# friend Anna"): it says who is meant, not what is asked, so its words recognise no attribute. Nouns
# only: a preposition or pronoun between ("her trip to India", "her before she left") is no description.
_DESCRIBED_NAME = re.compile(
    r"\b(?:[Mm]y|[Yy]our|[Hh]is|[Hh]er|[Tt]heir|[Oo]ur|[A-Z][a-z]+'s)\s+"
    r"(?:(?!(?:to|for|with|at|from|about|before|after|of|in|on|by|into|during|since|and|or|but|the|an?|"
    r"she|he|they|it|we|i|you|her|his|their|my|our|your)\b)[a-z][a-z-]*\s+){1,3}(?=[A-Z][a-z]+\b)")


@cached_by_size(QUERY_CACHE_CHARS, 4096)
def attribute_groups(query: str) -> tuple[tuple[str, ...], ...]:
    """For each attribute the question asks about in its asking clauses, the terms of the other ways to
    say it (none when it asks about none)."""
    asked = asking_text(query[-ASKED_WITHIN:])
    someone = _about_someone(asked)
    english = _DESCRIBED_NAME.sub(" ", asked)
    lower = english.lower()
    stems = set(query_terms(english))
    out: list[tuple[str, ...]] = []
    for zh, en, search in _table():
        if any(p in asked for p in zh) or (someone and any(
                set(p) <= stems if isinstance(p, tuple) else p.search(lower) for p in en)):
            out.append(search)
    return tuple(out)


def attribute_terms(query: str) -> tuple[str, ...]:
    """All the terms of ``attribute_groups``, once each."""
    return tuple(dict.fromkeys(t for group in attribute_groups(query) for t in group))


def _about_someone(text: str) -> bool:
    for m in _ABOUT_SOMEONE.finditer(text):
        word = m.group(0)
        # A capitalised word is a name unless it opens the text or a sentence (the lookbehinds) or is a
        # question word; a CJK character means a Chinese question, which names its person in words.
        if not (word[:1].isupper() and ASKS.fullmatch(word)):
            return True
    return False


def asking_text(query: str) -> str:
    """The clauses of the query that ask (a question word, or a "?" at their end), or the whole query when
    none does: "周末想约人去爬山，不过她平时工作挺忙的，她是教什么的来着？" asks what she teaches, not about work."""
    clauses = [c for c in _CLAUSE.findall(query) if c.strip()]
    asking = [c for c in clauses if ASKS.search(c) or c.rstrip()[-1:] in "?？"]
    return " ".join(asking) if asking else query
