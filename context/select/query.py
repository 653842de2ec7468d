"""Query understanding before selection: which parts of a query ask, and what each asks.

People ask as they talk: "哎呀，今天地铁挤死了……对了，我真正想问的是：那个职业是律师的人，他的生日是哪天？另外，周末
好像又要下雨……" holds one question in small talk; "我姑父的爱好是什么？另外，我同事李娜的生日是哪天？" holds two, each
with its own evidence. One ranking of the whole query lets the small talk's words pick turns, and lets one
question's turns crowd out the other's. From the text alone:

- clauses: the query cut at the ends of sentences (。！？!?；; and an ellipsis), after a colon, and before
  the words that join a second question (另外 / 还有 / 顺便问一下 / also / by the way / and another thing); a
  comma inside a question ("那个爱好是钓鱼的人，他的名字有几个字？") does not cut it;
- a clause asks when it ends with a question mark or holds a question word (什么 / 哪 / 几 / 多少 / 谁 / 吗 / 呢,
  what / which / who / how many …); a turn of phrase that announces the real question ("我真正想问的是",
  "说正事", "what I really want to ask", "my actual question") makes the clauses after it the question and
  the ones before it small talk, asking or not;
- weights: an asking clause 1; in a query of several clauses, one that asks nothing weighs NOISE_WEIGHT
  (small talk), and so does an asking clause before an announced question;
- counting: a clause that asks how many or which ones (有几个 / 多少个 / 哪些 / how many / which … are) wants
  every turn that states the asked attribute, not the best few;
- the asked part: in "那个爱好是钓鱼的人，他的名字有几个字？" the part after the last comma that refers back with a
  pronoun ("他的名字有几个字") is what is asked of the person the first part picks out (see signals.bridge).

A query of one clause that asks (most queries) is one Clause of weight 1: the selection is unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from notes_store.analysis.analyzer import is_content_term, query_terms
from notes_store.bounded_cache import QUERY_CACHE_CHARS, cached_by_size

# An asking clause weighs 1; small talk around it this much.
NOISE_WEIGHT = 0.15
# At most this many clauses are read as separate questions (the rest join the last): each costs a scoring.
MAX_CLAUSES = 4
# Longer queries (a pasted page, a task description) are one clause: they are material, not questions.
MAX_QUERY_CHARS = 600


@dataclass(frozen=True)
class Clause:
    text: str            # the clause as written (its joiner word left out)
    weight: float        # 1 for a clause that asks; NOISE_WEIGHT for small talk
    asks: bool
    counting: bool       # asks how many / which ones: every turn stating the attribute is evidence
    asked: str           # the part asked of someone the clause picks out ("他的名字有几个字"); "" when none

    @property
    def condition(self) -> str:
        """The part that picks someone out ("那个爱好是钓鱼的人" of "…，他的名字有几个字？"); "" when the clause has no
        asked part of its own."""
        if not self.asked:
            return ""
        k = self.text.rfind(self.asked)
        return self.text[:k].rstrip(" ，,") if k > 0 else ""


@dataclass(frozen=True)
class QueryPlan:
    query: str
    clauses: tuple[Clause, ...]

    @property
    def asking(self) -> tuple[Clause, ...]:
        """The clauses that ask (weight 1), in order."""
        return tuple(c for c in self.clauses if c.weight >= 1.0)

    @property
    def focused(self) -> str:
        """The query without its small talk: the asking clauses joined (the query itself when nothing is left
        out)."""
        asking = self.asking
        if len(asking) == len(self.clauses):
            return self.query
        return " ".join(c.text for c in asking) or self.query

    @property
    def split(self) -> bool:
        """More than one clause asks, or small talk surrounds the question: select per clause."""
        return len(self.clauses) > 1 and (len(self.asking) > 1 or len(self.asking) < len(self.clauses))


_QUESTION_WORDS = re.compile(
    r"什么|啥|哪|(?<![那这好没十])几(?!乎)|多少|谁|吗|呢|怎么|怎样|如何|是否|有没有|是不是|"
    r"\b(?:what|which|who|whom|whose|when|where|why|how)\b|^\s*(?:is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have|had)\b",
    re.IGNORECASE)
_COUNTING = re.compile(
    r"有几[个位件次种家样台部只场所项回趟遍](?!字)|几[个位件次种家样台部只场所项回趟遍](?!字)|"
    r"多少[个位件次种家人样台部只场所项回趟遍](?!字)|哪些|有多少(?!字)|一共|总共|"
    r"\bhow\s+many\b(?!\s+(?:letters|characters|words|syllables|digits)\b)|\bwhich\s+(?:\w+\s+){0,2}(?:are|were|have|has)\b|\bwhich\s+\w+s\b|\bwho\s+(?:all\s+)?(?:has|have|were|are)\b|"
    r"\blist\s+(?:all|every)\b|\bcount\b",
    re.IGNORECASE)
# Turns of phrase that announce the real question: what follows them asks, what comes before is small talk.
_ANNOUNCE = re.compile(
    r"真正想问|想问的是|我想问|我想知道|想请教|问你个事|问你一下|问个问题|说正事|说正经的|言归正传|回到正题|正题是|"
    r"\b(?:what\s+i\s+(?:really\s+|actually\s+)?(?:want|wanted|need|meant)\s+to\s+(?:ask|know)|my\s+(?:actual|real)\s+question|"
    r"(?:the\s+)?real\s+question|quick\s+question|i\s+(?:was\s+)?wonder(?:ing)?|but\s+seriously|anyway)\b",
    re.IGNORECASE)
# Words that join a second question to the first (the clause starts at them).
_JOINER = re.compile(
    r"(?:另外还想问|另外|还有一个问题|还有|顺便问一下|顺便问问|顺便|再问一下|再问一个|以及|此外)[，,:：]?\s*|"
    r"\b(?:also|and\s+another\s+thing|by\s+the\s+way|oh,?\s+and|one\s+more(?:\s+thing)?|plus|besides)\b[,:]?\s*",
    re.IGNORECASE)
# Ends of sentences: a question mark or a full stop ends a clause; so do an ellipsis, a semicolon and a colon.
_END = re.compile(r"[?？!！。；;]+|…+|\.{3,}|\.(?=\s)|[:：](?!\d)")
_PRONOUN_ASK = re.compile(r"[，,]\s*((?:他|她|它|其|(?:what|when|where|how|which|who)\b[^，,]*\b(?:he|she|they|his|her|their|him|them)\b)[^，,]*)$",
                          re.IGNORECASE)
_PRONOUN_EN = re.compile(r"\b(?:he|she|they|his|her|their|him|them)\b", re.IGNORECASE)


def _pieces(query: str) -> list[tuple[str, bool]]:
    """(text, opens with a joiner) of each piece the query is cut into (ends of sentences, joiners)."""
    out: list[tuple[str, bool]] = []
    start = 0
    for m in _END.finditer(query):
        out.append((query[start:m.end()], False))
        start = m.end()
    out.append((query[start:], False))
    cut: list[tuple[str, bool]] = []
    for text, _ in out:
        pos = 0
        joined = False
        for m in _JOINER.finditer(text):
            # A joiner opens a new clause where it stands at a clause start or after a comma.
            before = text[:m.start()].rstrip()
            if m.start() == 0 or before.endswith((",", "，", "、")) or not before.strip():
                if before[pos:].strip() if m.start() else False:
                    cut.append((text[pos:m.start()], joined))
                pos = m.end()
                joined = True
        cut.append((text[pos:], joined))
    return [(t.strip(), j) for t, j in cut if t.strip(" ，,、\t\n") and _has_word(t)]


# A description that opens a question with no comma after it: "住我家对门的那个邻居" of "…在哪家公司上班？", "做鸡翅很快的
# 那个炸锅" of "…是什么牌子？", "喜欢下象棋的人" of "…叫什么名字？".
_DESCRIBED_HEAD = re.compile(r"^[^，,？?]{2,30}?的(?:那(?:个|位|台|部|支|副|辆|款|件|只|场|次|家|条|本)[\u4e00-\u9fff]{0,3}?|人)"
                             r"(?=在|是|叫|有|养|住|喜欢|爱|多|几|哪|什么|怎么|用|开|姓|平时|现在|今年|最近|的)")


def _has_word(text: str) -> bool:
    return any(c.isalnum() for c in text)


def _asked_part(text: str) -> str:
    t = text.rstrip("?？。.!！ ")
    m = _PRONOUN_ASK.search(t)
    if m is not None:
        part = m.group(1).strip()
        if part and (not part.isascii() or _PRONOUN_EN.search(part)):
            return part
    # No pronoun: a description that asks nothing, then the question ("那个在宜昌当交警的同学，平时有什么爱好？",
    # "邮箱是…的那个人，生日是几月几号？"), with no comma between too ("在阿里上班的那个邻居养了什么宠物？").
    m = _DESCRIBED_HEAD.match(t)
    if m and _QUESTION_WORDS.search(t[m.end():]) and not _QUESTION_WORDS.search(m.group(0)):
        return t[m.end():].strip()
    k = max(t.rfind("，"), t.rfind(","))
    if k > 0:
        before, after = t[:k].strip(), t[k + 1:].strip()
        asks = _QUESTION_WORDS.search(after) or text.rstrip().endswith(("?", "？"))
        if after and asks and _DESCRIBED.search(before) \
                and not _QUESTION_WORDS.search(_DESCRIBED.sub(" ", before)):
            return after
    return ""


# Someone or something picked out by a description: "那个…" / "那位…", "…的人" / "…的那个人" / "…的同学", "the one
# who …" ("…的时候" sets a scene).
_DESCRIBED = re.compile(r"那(?:个|位|台|部|支|副|辆|款|件|只|场|次|家|条|本|对)|的(?:人|亲戚|朋友|同学|同事|家人|长辈|邻居)$|"
                        r"^\s*(?:the|that)\s+(?:\w+\s+){0,2}?(?:who|whose|that|with)\b", re.IGNORECASE)


@cached_by_size(QUERY_CACHE_CHARS, 1024)
def understand(query: str) -> QueryPlan:
    """The query's clauses, which ask and what (see the module)."""
    q = query.strip()
    if len(q) > MAX_QUERY_CHARS or not q:
        return QueryPlan(query, (_clause(q, 1.0),))
    pieces = _pieces(q)
    if len(pieces) <= 1:
        return QueryPlan(query, (_clause(q, 1.0),))
    # The last announcement: what follows it is the question.
    announced = max((k for k, (t, _j) in enumerate(pieces) if _ANNOUNCE.search(t)), default=-1)
    asks = [bool(_QUESTION_WORDS.search(t)) or t.rstrip().endswith(("?", "？")) for t, _j in pieces]
    if announced >= 0:
        # The announcing piece itself may hold the question ("对了，我真正想问的是：" is cut at its colon).
        rest = [k for k in range(announced, len(pieces)) if asks[k]]
        first = rest[0] if rest else announced
        for k in range(first):
            asks[k] = False
        # After the question, what does not join a question with a question word is small talk again.
    for k, (t, _j) in enumerate(pieces):
        # The announcing words alone ("Anyway, what I really want to ask is:") ask nothing themselves.
        if asks[k] and _ANNOUNCE.search(t) and not _has_word(_strip_lead(t)):
            asks[k] = False
    if sum(asks) > 1:
        # A clause about remembering or confirming ("你还记得吗？", "我怎么突然想不起来了", "对吧？", "remember?") beside
        # a question about something asks nothing of the history.
        meta = [k for k, (t, _j) in enumerate(pieces) if asks[k] and _META.search(t)]
        if len(meta) < sum(asks):
            for k in meta:
                asks[k] = False
    if sum(asks) > 1:
        # An opinion asked of the listener ("你说周末会不会下雨呢？", "Do you think it'll rain?") beside a question
        # about something is small talk.
        opinion = [k for k, (t, _j) in enumerate(pieces) if asks[k] and _OPINION.search(t)]
        if len(opinion) < sum(asks):
            for k in opinion:
                asks[k] = False
    if not any(asks):
        return QueryPlan(query, (_clause(q, 1.0),))
    clauses = _follow_ups([_clause(t, 1.0 if a else NOISE_WEIGHT) for (t, _j), a in zip(pieces, asks)])
    # Asking clauses beyond MAX_CLAUSES join the last kept one.
    asking = [k for k, c in enumerate(clauses) if c.asks and c.weight >= 1.0]
    if len(asking) > MAX_CLAUSES:
        keep = asking[:MAX_CLAUSES - 1]
        tail = " ".join(clauses[k].text for k in asking[MAX_CLAUSES - 1:])
        clauses = [clauses[k] for k in keep] + [_clause(tail, 1.0)] + \
                  [c for c in clauses if c.weight < 1.0]
    return QueryPlan(query, tuple(clauses))


_LEADING_PRONOUN = re.compile(r"^\s*(?:他|她|它|其|(?:and\s+)?(?:he|she|they|his|her|their|him|them)\b)", re.IGNORECASE)
# A Chinese clause with no subject of its own ("是哪一天？", "在哪儿办的？" after "华中零售峰会是在哪里开的？") asks of the
# clause before's.
_SUBJECTLESS = re.compile(r"^\s*(?:是|在|叫|住|有没有|多大|几|哪|什么|啥|怎么|为什么|为啥|又是|多少|谁|后来|最后|当时|一共|总共|"
                          r"用着|用起来|用得|好用|好不好|出过|出了|坏过|续航|效果|质量|性价比|值不值)")


def _follow_ups(clauses: list[Clause]) -> list[Clause]:
    """An asking clause that refers back to the one before ("他平时喝什么？" after "楼上的邻居有宠物吗？") asks of that
    clause's person: it is read joined to it ("楼上的邻居有宠物吗，他平时喝什么？": the earlier words pick the person
    out, see Clause.condition); one with no word of its own ("是什么？" after "…有宠物吗？") is part of the one
    before."""
    out: list[Clause] = []
    for c in clauses:
        prev = next((k for k in range(len(out) - 1, -1, -1) if out[k].weight >= 1.0), None)
        if c.weight >= 1.0 and prev is not None:
            head = out[prev].text.rstrip(" ?？。.!！")
            # Of a question before ("岳母有什么爱好？"), its subject only, which names the person (what it asks is its
            # own); of a description ("那个爱好是钓鱼的人叫什么？"), the description, which picks them out.
            subject = _subject(head) if not out[prev].asked else ""
            pronoun, subjectless = _LEADING_PRONOUN.match(c.text), _SUBJECTLESS.match(c.text)
            own_words = any(is_content_term(t) for t in query_terms(c.text))
            if subject and (pronoun or (subjectless and own_words)):
                c = _clause(f"{subject}{c.text}", 1.0)
            elif not own_words:
                # No word of its own ("是什么？" after "…有宠物吗？"): part of the question before.
                out[prev] = _clause(f"{head}，{c.text}", 1.0)
                continue
            elif pronoun or subjectless:
                # Of a description's person: its condition when it has one ("那个在宜昌当交警的同学" of "…，平时有什么爱好？"),
                # not what it asked of them.
                c = _clause(f"{out[prev].condition or head}，{c.text}", 1.0)
        out.append(c)
    return out


# What a Chinese question is about: the words before its first verb, question word, pronoun or attribute ("岳母" of
# "岳母有什么爱好", "我小姨" of "我小姨叫什么名字", "林晓" of "林晓老家是哪里" and of "林晓她家的猫叫什么", "我表哥" of "我表哥的
# 生日是哪天", "家里新换的电饭煲" of "家里新换的电饭煲是什么牌子").
_SUBJECT = re.compile(r"^([\u4e00-\u9fffA-Za-z0-9]{2,12}?)的?(?=叫|是|有|在|住|用|喜欢|平时|最近|现在|今年|什么|哪|几|多少|怎么|"
                      r"他|她|它|老家|家乡|生日|名字|全名|姓名|工作|爱好|年龄|电话|手机号|邮箱|老婆|老公|孩子|宠物)")


def _subject(question: str) -> str:
    """The subject of a question (see _SUBJECT); "" for a description ("那个爱好是钓鱼的人…": it is its own condition), not
    for a thing picked out by its name ("那台富士相机")."""
    q = _strip_lead(question)
    m = _SUBJECT.match(q)
    if m is None:
        return ""
    # "那台富士相机" of "那台富士相机多少钱买的" names the thing; "那个爱好" of "那个爱好是钓鱼的人…" is half a description.
    return "" if m.group(1).startswith("那") and q[m.end():m.end() + 1] in "是叫在有" else m.group(1)


def _clause(text: str, weight: float) -> Clause:
    t = _strip_lead(text) or text
    asks = bool(_QUESTION_WORDS.search(t)) or t.rstrip().endswith(("?", "？"))
    return Clause(t, weight, asks, bool(_COUNTING.search(t)), _asked_part(t))


_META = re.compile(r"记得|想不起|忘了|记不清|回忆|提醒我|真不知道|也不知道|都不知道|天知道|^\s*(?:对吧|是吧|没错吧|对不对|是不是)|你知道吗|"
                   r"\b(?:remember|recall|forgot|forget|remind\s+me)\b|^\s*(?:right|correct|yes)\s*\?",
                   re.IGNORECASE)
_OPINION = re.compile(r"^\s*(?:你说|你觉得|你猜|\bdo\s+you\s+think\b|\bwhat\s+do\s+you\s+think\b|\bdon't\s+you\s+think\b)",
                      re.IGNORECASE)
# The announcing words themselves are not part of what is asked ("我真正想问的是：" adds 问 and 真正).
_ANNOUNCE_LEAD = re.compile(r"^[^，,:：]{0,12}(?:真正想问的是|想问的是|我想知道|问你个事儿?|说正事|言归正传|"
                            r"my\s+actual\s+question|what\s+i\s+really\s+want\s+to\s+ask\s+is|quick\s+question)[，,:：]?\s*"
                            r"|^\s*(?:anyway|but\s+seriously|so|oh\s+right|对了|哦对了|话说)[，,:：]?\s*",
                            re.IGNORECASE)


def _strip_lead(text: str) -> str:
    """``text`` without the words that announce it ("Anyway, what I really want to ask is: ")."""
    for _ in range(3):
        shorter = _ANNOUNCE_LEAD.sub("", text, count=1).strip()
        if shorter == text:
            break
        text = shorter
    return text
