"""One hop across a bridge: from the turns that answer a question's condition to the turns that answer
what it asks.

"那个爱好是钓鱼的人，他的名字有几个字？": the log says "我姑父特别喜欢钓鱼。" and elsewhere "我姑父的名字叫王建国。". The second
turn shares nothing with the question but the bridge (姑父) the first supplies. "我的耳机怎么样？": "我用的耳机是索尼
WH-1000XM5。" and later "WH-1000XM5降噪真不错……": the follow-up is reached only through the model's name.

From the text alone, one hop bounded in cost, the same code for every language:
- anchors: the clause's best turns (at most ANCHORS, each within ANCHOR_SHARE of the best);
- bridges: what an anchor holds beyond the question's words that may name someone or something: a
  relation word or a name (a CJK bigram sharing no character with the question, a capitalised word, the
  word after "my"), an item's name or an id (a word with digits, an e-mail, a phone number), held by at
  least 2 turns and at most LINK_SHARE of them;
- the asked part: the clause's words the anchor does not hold (the part after "他的" / "what is his" when
  the clause has one), with the other ways to say its attribute (signals.cues);
- only a clause that picks someone out by a fact (it has a condition part: see query.Clause.condition)
  hops to the asked words; any other clause hops to an item's follow-ups only (id-like bridges);
- a turn holding a bridge is scored with the asked part's words (BM25 over the history): its share of
  the anchor's relevance is BRIDGE_WEIGHT times its score against the best such turn's, times the
  bridge's rarity. A question that picks no one out ("我的耳机怎么样？") lends every turn
  holding an id-like bridge (a model name: a word with digits or capitals) ITEM_WEIGHT of the anchor.
A turn's relevance and what it is lent combine as a noisy-or (both: above either alone).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from notes_store.analysis.analyzer import index_terms, is_cjk, is_content_term, query_terms, stem_word

from ..query import Clause
from ..relevance import LexicalScorer, scorer_for, specificity, terms_of_query
from .cues import attribute_groups
from .shapes import EMAIL, asked_shape, holds_shape
from .stamps import body_of

ANCHORS = 3
ANCHOR_SHARE = 0.6
LINK_SHARE = 0.05
BRIDGE_WEIGHT = 0.9
ITEM_WEIGHT = 0.8
# A turn holding the bridge but none of the asked words (the attribute said another way: "她是做什么工作的？" of
# "范冰冰是一名药剂师。") is lent this much, times how specific it is (a fact holds a rare word; chat does not).
LINK_ONLY_WEIGHT = 0.55
# A bigram that straddles the condition's word ("方医" of "方医生" for "那位全科医生") may still name the person.
HALF_SAID = True
# A holder of no asked word that holds a thing of the asked shape says the attribute another way: it is lent this
# much (between a holder of the bridge alone and one of the asked words; 0: off).
LINK_SHAPE_WEIGHT = 0.7
# A holder of the asked part's words that also holds a thing of its shape (signals.shapes) scores this much of
# the best holder's score more.
SHAPE_WEIGHT = 1.0
# A question that picks no one out ("我老婆的生日在哪个季节？") answered by a turn that names the person another way
# ("沈悦的生日是3.14。"): the turn that says who that is ("我老婆叫沈悦。") is lent this much of the anchor's relevance.
INTRO_WEIGHT = 0.7
# A turn across the bridge that says who the bridge is by another name ("我表哥叫陈志远。" for 表哥, "部门经理叫彭伟。"
# for 彭伟) is lent INTRO_WEIGHT of the anchor's; the turns holding that other name and the asked words (
# "陈志远的生日是11.3。") this much of it, times their score against the best such turn's.
SECOND_HOP_WEIGHT = 0.8
# A CJK bridge's rarity is scaled by how often it opens a clause of the statements that hold it (within
# SUBJECT_CHARS characters of the clause's start: "我同事邹静怡…"): from SUBJECT_FLOOR (never) to 1 (always).
SUBJECT_FLOOR = 0.3
SUBJECT_CHARS = 5
# A history shorter than this is read whole by any budget: no hop needed.
MIN_HISTORY = 20

# A capitalised word, at the start of a sentence too ("Zoe's birthday is 3/5."): the words that open many
# sentences ("My", "The") are held by too many turns to be a bridge.
_CAPITALISED = re.compile(r"\b([A-Z][A-Za-z]+)\b")
# The words numbers.with_date_words writes for a date: the question's condition, never a bridge.
_DATE_WORD = re.compile(r"(?:month\d+|date\d+x\d+)")
_AFTER_MY = re.compile(r"\b(?:my|our)\s+([a-z][a-z-]+)", re.IGNORECASE)
# An item's name: a word with digits ("1000XM5", "S24"), capitals inside ("AirPods"), or a capitalised word before
# a number ("Pixel 8", "Galaxy S24").
_ID_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*[0-9][A-Za-z0-9.+-]*|[A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*|"
                      r"[A-Z][a-z]+(?=\s?[A-Z]?\d)|(?<=\d)\s?[A-Z][A-Za-z]+")
# A name in quotes: a nickname ("大肚子"), a pet's or a thing's name.
_QUOTED = re.compile(r"[“「『\"]([^”」』\"，。,]{2,8})[”」』\"]")
# A model's number said after its brand or line ("红管405", "Forerunner 265"): three digits or more, no unit after it.
_MODEL_NUMBER = re.compile(r"(?:(?<=[\u4e00-\u9fffA-Za-z])|(?<=[\u4e00-\u9fffA-Za-z] ))\d{3,}"
                           r"(?![\d.:/年月日号点时分秒岁元块斤度个%％万千百多])")


def bridges(anchor: str, clause: str, condition: str = "") -> tuple[list[str], list[str]]:
    """(bridge terms, id-like bridge terms) of an anchor turn for a clause (see the module). A CJK bigram
    overlapping where the anchor says a pair of the ``condition``'s characters (the clause when none is given)
    is the condition's own word, not a bridge; the asked part's characters do not count ("大鹏" is a bridge
    for "…的发小，他儿子多大了？")."""
    body = body_of(anchor).strip()
    qterms = set(query_terms(clause)) | set(index_terms(clause))
    said = _condition_spans(body, condition or clause)
    out: list[str] = []
    ids: list[str] = []
    for m in EMAIL.finditer(body):
        ids += [t for t in index_terms(m.group(0)) if t not in qterms]
    for m in _ID_LIKE.finditer(body):
        # A model's name mixes letters and digits ("WH-1000XM5", "S24") or capitals ("AirPods"); a number alone
        # (an age, a price, a clock's minutes) names nothing.
        found = [t for t in index_terms(m.group(0)) if t not in qterms and is_content_term(t) and not t.isdigit()]
        ids += found
    for m in _QUOTED.finditer(body):
        # A nickname in quotes ("起了个外号叫“大肚子”"): the follow-ups name the thing by it alone.
        name = m.group(1)
        ids += [t for t in index_terms(name) if t not in qterms and is_content_term(t) and (len(t) == 2 or not is_cjk(t))]
    for m in _MODEL_NUMBER.finditer(body):
        if m.group(0) not in qterms:
            ids.append(m.group(0))
    for w in _CAPITALISED.findall(body):
        st = stem_word(w.lower())
        if st not in qterms and is_content_term(st):
            out.append(st)
    for w in _AFTER_MY.findall(body):
        st = stem_word(w.lower())
        if st not in qterms and is_content_term(st):
            out.append(st)
    for t in index_terms(body):
        if len(t) == 2 and is_cjk(t) and t not in qterms and _unsaid(t, body, said):
            out.append(t)
    ids = [t for t in dict.fromkeys(ids) if not _DATE_WORD.fullmatch(t)]
    return [t for t in dict.fromkeys(ids + out) if not _DATE_WORD.fullmatch(t)], ids


def _places(pair: str, body: str) -> Iterator[int]:
    """Where ``pair`` starts in ``body``, overlapping places too ("哈哈" in "哈哈哈": 0 and 1)."""
    at = body.find(pair)
    while at >= 0:
        yield at
        at = body.find(pair, at + 1)


def _condition_spans(body: str, condition: str) -> list[bool]:
    """Which characters of ``body`` say the condition's own words: every place a CJK pair of the condition
    occurs. "王建国的工作是建筑师。" for "那位建筑师": 建筑师 is the condition's, 王建国 (sharing only the 建) is a bridge."""
    said = [False] * len(body)
    pairs = {condition[k:k + 2] for k in range(len(condition) - 1)
             if is_cjk(condition[k]) and is_cjk(condition[k + 1])}
    for pair in pairs:
        for at in _places(pair, body):
            said[at] = said[at + 1] = True
    return said


def _unsaid(term: str, body: str, said: list[bool]) -> bool:
    """``term`` occurs in ``body`` somewhere the condition does not (see _condition_spans); with HALF_SAID, somewhere
    it says one of its characters at most ("方医" of "方医生是…全科医生" for "那位全科医生")."""
    if HALF_SAID:
        return any(not (said[at] and said[at + 1]) for at in _places(term, body))
    return any(not said[at] and not said[at + 1] for at in _places(term, body))


# "我的" / "我那台" …: what the asker owns follows.
_MINE_ZH = r"我(?:的|用的|那个|那台|那部|那副|那辆|这个|这台|新买的|买的|家的)"
_OWN_ZH = re.compile(rf"{_MINE_ZH}|家里(?:的|那)|我们家|我[^，,？?。]{{0,8}}[那这](?:台|部|支|副|辆|款|件|只|块|双|套|对)")
_OWN_EN = re.compile(r"\b(?:my|our)\s+(?:new\s+|old\s+)?[a-z][a-z-]*\b(?!['’]s)", re.IGNORECASE)
_NAMED = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+|(?<![Hh]ow)(?<![Ww]hat)(?<![Ii]t)(?<![Tt]hat)(?<![Ww]ho)(?<![Ww]here)['’]s\b")


def asks_of_own_thing(text: str) -> bool:
    """The question asks about the asker's own thing ("我的耳机怎么样？", "How is my phone?"), not someone else's
    ("我同事李娜的手机", "my coworker Omar's phone")."""
    if _chinese(text):
        return _OWN_ZH.search(text) is not None
    return _OWN_EN.search(text) is not None and _NAMED.search(text.strip()) is None


def _chinese(text: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" for c in text)


# What the asker's own thing is called: the words after "我的" / "我那台" up to a verb, a particle or a question word
# ("我的车" of "我的车开起来怎么样？", "我的耳机" of "我的耳机怎么样？"), or "my" and the word after it (_OWN_EN: "my headphones").
_OWN_THING_ZH = re.compile(rf"(?:{_MINE_ZH}|家里的|我们家的?)"
                           r"[\u4e00-\u9fffA-Za-z0-9]{1,6}?(?=[是有在怎什哪多几的了吗呢叫还最又都就也用开坏买现平好，,？?。]|$)")


def own_thing(text: str) -> str:
    """The name of the asker's own thing a question asks about ("我的车" of "我的车开起来怎么样？"), "" when it asks about
    none (see asks_of_own_thing)."""
    if not asks_of_own_thing(text):
        return ""
    m = (_OWN_THING_ZH if _chinese(text) else _OWN_EN).search(text)
    return m.group(0) if m else ""


def asked_terms(clause: Clause, anchor_terms: set[str]) -> dict[str, float]:
    """The words of what the clause asks that the anchor does not hold, with the other ways to say its
    attribute at half weight."""
    text = clause.asked or clause.text
    out = {t: 1.0 for t in terms_of_query(text) if t not in anchor_terms and is_content_term(t)}
    for group in attribute_groups(text):
        for t in group:
            out.setdefault(t, 0.5)
    return out


def bridge_hop(clause: Clause, rels: list[float], texts: Sequence[str], history: int,
               anchors_by: Sequence[float] | None = None) -> None:
    """Lend the turns across a bridge a share of their anchor's relevance (in place; see the module).
    ``rels``: the clause's relevance of each text; the first ``history`` texts are the history.
    ``anchors_by``: the relevance the anchors are picked by (the clause's condition part: "那个老家在四川成都的人"
    of "…，他平时喜欢干什么？", whose best turns are the person's, where the whole clause's may be anyone's
    "平时喜欢"), ``rels`` when not given."""
    if history < MIN_HISTORY:
        return
    head = list(anchors_by[:history]) if anchors_by is not None else rels[:history]
    top = max(head, default=0.0)
    if top <= 0:
        return
    anchors = sorted((i for i in range(history) if head[i] >= ANCHOR_SHARE * top), key=lambda i: -head[i])[:ANCHORS]
    scorer = scorer_for(texts, history)
    most = max(3, int(LINK_SHARE * scorer.n))
    best_idf = math.log(1 + scorer.n) or 1.0
    lent: dict[int, float] = {}
    own_item = asks_of_own_thing(clause.text)
    shape = asked_shape(clause.asked or clause.text) if SHAPE_WEIGHT else ""
    for a in anchors:
        links, ids = bridges(texts[a], clause.text, clause.condition)
        if not links:
            continue
        anchor_terms = set(scorer._tf(a))
        wanted = asked_terms(clause, anchor_terms)
        if not clause.condition:
            # A question that picks no one out by a fact ("我朋友爱喝什么？") is answered by its own words: its
            # anchors' other turns only crowd its answer out (zh-memlog-hard dev 1k 0.911 -> 0.865). Only the
            # asker's own item's follow-ups, which hold none of its words but the item's name, are reached
            # ("我的耳机怎么样？"); another person's phone model is everyone's who has one (en-daily dev).
            if not own_item:
                if INTRO_WEIGHT:
                    _lend_introductions(a, links, wanted, head, texts, history, scorer, most, best_idf, lent)
                continue
            wanted = {}
        per_term = {t: got for t, w in wanted.items() if (got := scorer.term_scores(t, w))}
        id_set = set(ids)
        for t in links:
            if not _linkable(scorer, t, most) or not (per_term or t in id_set):
                continue
            rarity = _rarity(scorer, t, best_idf)
            holders = [d for d, _tf in scorer.postings(t) if d < history and d != a]
            if SUBJECT_FLOOR < 1.0 and is_cjk(t[0]):
                # A person or a thing is what statements are about: its name opens them ("龚磊这个人最爱唱K"); a
                # piece of a sentence ("每次", "他在") stands anywhere.
                rarity *= SUBJECT_FLOOR + (1.0 - SUBJECT_FLOOR) * _subject_share(t, texts, [a, *holders])
            if per_term:
                scores, best = _asked_scores(holders, per_term, shape, texts)
                bare = [d for d in holders if scores[d] <= 0]
                spec = specificity(clause.text, texts, bare, growing=history) if LINK_ONLY_WEIGHT else {}
                # A holder of none of the asked words that holds a thing of the asked shape ("方医生是河南信阳人" for
                # "…，老家是哪里的？") says the attribute another way: as specific as a fact gets.
                shaped = holds_shape(shape, texts, bare) if LINK_SHAPE_WEIGHT else set()
                for d, s in scores.items():
                    if s > 0:
                        gain = head[a] * BRIDGE_WEIGHT * rarity * s / best
                    else:
                        gain = head[a] * rarity * max(LINK_ONLY_WEIGHT * spec.get(d, 0.0),
                                                      LINK_SHAPE_WEIGHT if d in shaped else 0.0)
                        if SECOND_HOP_WEIGHT and is_cjk(t[0]):
                            gain = max(gain, _second_hop(t, d, [a, d], head[a] * rarity, per_term, shape, texts,
                                                         history, scorer, most, lent))
                    if gain > lent.get(d, 0.0):
                        lent[d] = gain
            elif t in id_set:
                gain = head[a] * ITEM_WEIGHT * rarity
                # The anchor that names the item by its model ("我的车是比亚迪秦PLUS") is its introduction: evidence too.
                for d in [*holders, a]:
                    if gain > lent.get(d, 0.0):
                        lent[d] = gain
    for d, gain in lent.items():
        # Either is evidence: what the turn holds of the question, and the bridge to it (a noisy-or, so a
        # turn with both comes before a turn with one).
        rels[d] = 1.0 - (1.0 - min(1.0, rels[d])) * (1.0 - gain)


def _linkable(scorer: LexicalScorer, term: str, most: int) -> bool:
    """A bridge is held by at least 2 turns and at most ``most`` (LINK_SHARE of them)."""
    return 2 <= scorer.df(term) <= most


def _rarity(scorer: LexicalScorer, term: str, best_idf: float) -> float:
    """0..1: a bridge's IDF against a term held once, saturating at two thirds of it."""
    return min(1.0, scorer.idf(term) / best_idf * 1.5)


def _subject_share(term: str, texts: Sequence[str], holders: Sequence[int]) -> float:
    """The share of ``holders`` whose statement names ``term`` within SUBJECT_CHARS characters of a clause's start."""
    return sum(_opens(term, body_of(texts[d])) for d in holders) / max(1, len(holders))


_CLAUSE_START = re.compile(r"^|[，,。：:；;！!？?…]\s*")


def _opens(term: str, body: str) -> bool:
    for at in _places(term, body):
        start = max((m.end() for m in _CLAUSE_START.finditer(body, 0, at + 1)), default=0)
        if at - start < SUBJECT_CHARS:
            return True
    return False


# "我老婆的名字叫…", "表哥的全名叫…": what may stand between who someone is and 叫.
_NAME_OF = r"(?:的名字|的全名)?"


def _introduces(body: str, name: str, word: str) -> bool:
    """``body`` says that ``name`` is the question's ``word`` ("我老婆叫沈悦", "沈悦是我老婆", "my wife Sarah",
    "Sarah is my wife")."""
    if word not in (body if is_cjk(word[0]) else body.lower()):
        return False
    return _introduction(name, word).search(body) is not None


@lru_cache(maxsize=4096)
def _introduction(name: str, word: str) -> re.Pattern[str]:
    n, w = re.escape(name), re.escape(word)
    if is_cjk(name[0]):
        return re.compile(rf"{w}{_NAME_OF}(?:叫|名叫|是){n}|{n}(?:是|就是)我(?:的)?[^，。,]{{0,4}}{w}")
    return re.compile(rf"\b{w}\w*(?:'s\s+name\s+is|\s+is\s+called|,)?\s+{n}|\b{n}\w*,?\s+(?:is\s+)?my\s+{w}",
                      re.IGNORECASE)


def _lend_introductions(a: int, links: Sequence[str], wanted: dict[str, float], head: Sequence[float],
                        texts: Sequence[str], history: int, scorer: LexicalScorer, most: int, best_idf: float,
                        lent: dict[int, float]) -> None:
    """Lend INTRO_WEIGHT of anchor ``a``'s relevance to the turns that introduce a name it holds as one of the
    question's words it lacks (see INTRO_WEIGHT)."""
    words = [w for w, weight in wanted.items() if weight >= 1.0]
    if not words:
        return
    for t in links:
        if not _linkable(scorer, t, most):
            continue
        gain = head[a] * INTRO_WEIGHT * _rarity(scorer, t, best_idf)
        for d, _tf in scorer.postings(t):
            if d < history and d != a and gain > lent.get(d, 0.0):
                body = body_of(texts[d])
                if any(_introduces(body, t, w) for w in words):
                    lent[d] = gain


def _asked_scores(holders: Sequence[int], per_term: dict[str, dict[int, float]], shape: str,
                  texts: Sequence[str]) -> tuple[dict[int, float], float]:
    """Each holder's score by the asked words, a thing of the asked shape (a date for "什么时候过生日") counting one
    best score more than the asked word alone ("…说生日那天不想大办"); and the best score."""
    scores = {d: sum(got.get(d, 0.0) for got in per_term.values()) for d in holders}
    best = max(scores.values(), default=0.0)
    if best > 0 and shape:
        for d in holds_shape(shape, texts, [d for d in holders if scores[d] > 0]):
            scores[d] += SHAPE_WEIGHT * best
        best = max(scores.values())
    return scores, best


# "我表哥叫陈志远", "部门经理叫彭伟": who someone is (the two characters before 叫) and their name (two or three after).
_INTRODUCED = re.compile(rf"([\u4e00-\u9fff]{{2}}){_NAME_OF}(?:叫|名叫)([\u4e00-\u9fff]{{2,3}})")


def _other_names(body: str, term: str) -> list[str]:
    """The other name ``body`` gives whoever ``term`` names: the name of a relation word, the relation word of a name."""
    out: list[str] = []
    for m in _INTRODUCED.finditer(body):
        who, name = m.group(1), m.group(2)
        if term in who:
            out += [name[k:k + 2] for k in range(len(name) - 1)]
        elif term in name:
            out.append(who)
    return out


def _second_hop(term: str, d: int, seen: list[int], share: float, per_term: dict[str, dict[int, float]], shape: str,
                texts: Sequence[str], history: int, scorer: LexicalScorer, most: int, lent: dict[int, float]) -> float:
    """When turn ``d`` gives ``term``'s other name, lend the turns holding it and the asked words (see
    SECOND_HOP_WEIGHT; ``share``: the anchor's relevance times the bridge's rarity) and return what ``d`` is lent
    for saying it (0 when it says none)."""
    names = [n for n in dict.fromkeys(_other_names(body_of(texts[d]), term)) if _linkable(scorer, n, most)]
    for name in names:
        holders = [x for x, _tf in scorer.postings(name) if x < history and x not in seen]
        scores, best = _asked_scores(holders, per_term, shape, texts)
        for x, s in scores.items():
            gain = share * SECOND_HOP_WEIGHT * s / best if s > 0 else 0.0
            if gain > lent.get(x, 0.0):
                lent[x] = gain
    return share * INTRO_WEIGHT if names else 0.0
