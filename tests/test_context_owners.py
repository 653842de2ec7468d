"""Turns naming the question's person only as the owner of someone else count less (context.select.signals.owners)."""

from __future__ import annotations

from context import build_context
from context.select import scoring as select
from context.select.signals.owners import owned_turns

DAD = ["我表妹的爸爸请我吃了顿饭。", "我表妹的爸爸在字节跳动干了好几年了。", "收到了我表妹的爸爸寄来的快递。",
       "我表妹的爸爸的车送去保养了。", "我表妹的爸爸说周末要来我家玩。", "我表妹的爸爸最近好像心情不太好。"]
OWN = ["我表妹说想换个行业试试。", "6月22日是我表妹的生日。"]
FACT = "表妹一有空就去打乒乓球。"
FILLER = ["今天下雨了，没出门。", "刚交了这个月的房租。", "电梯坏了，只好爬楼梯。", "在书店待了一下午。",
          "晚饭吃了饺子。", "地铁上人很多。", "买了一箱苹果。", "新买的台灯很好用。"] * 2
QUESTION = "我表妹闲下来都做些什么？"

DAD_EN = ["Had lunch with my niece's dad today.", "My niece's dad borrowed two of my books.",
          "My niece's dad forwarded me an article.", "My niece's dad posted vacation photos again.",
          "My niece's dad says staying up late is harder with age.", "Got a package from my niece's dad."]
OWN_EN = ["My niece wants to switch careers.", "My niece's birthday is June 22."]
FACT_EN = "Whenever she has a free hour, my niece plays table tennis."
FILLER_EN = ["It rained all day, stayed in.", "Paid this month's rent.", "Elevator's broken, took the stairs.",
             "Spent the afternoon at the bookstore.", "Had dumplings for dinner.", "The subway was packed.",
             "Bought a box of apples.", "The new desk lamp works great."] * 2
QUESTION_EN = "What does my niece do in her spare time?"


def _history(dad: list[str], own: list[str], fact: str, filler: list[str], zh: bool) -> list[dict[str, str]]:
    texts = dad[:3] + own[:1] + filler[:8] + [fact] + dad[3:] + filler[8:] + own[1:]
    head = (lambda k: f"2024年5月{1 + k // 10}日 10:{k % 60:02d}，上海市，家里：") if zh else \
        (lambda k: f"May {1 + k // 10}, 2024, 10:{k % 60:02d} AM, Alberta, Portland, at home: ")
    return [{"role": "user", "content": head(k) + t} for k, t in enumerate(texts)]


def test_the_owner_turns_are_found():
    for hist, dad, q in ((_history(DAD, OWN, FACT, FILLER, True), DAD, QUESTION),
                         (_history(DAD_EN, OWN_EN, FACT_EN, FILLER_EN, False), DAD_EN, QUESTION_EN)):
        texts = [t["content"] for t in hist]
        found = {texts[i] for i in owned_turns(q, texts, len(texts))}
        assert {t for t in texts if any(d in t for d in dad)} == found
    # A question about the owned person itself leaves them alone.
    texts = [t["content"] for t in _history(DAD, OWN, FACT, FILLER, True)]
    assert owned_turns("我表妹的爸爸在哪里上班？", texts, len(texts)) == []


def _packed(hist: list[dict[str, str]], q: str, budget: int) -> str:
    res = build_context(q, history=hist, max_tokens=budget, reserve_ratio=0, include_notes=False,
                        include_memory=False)
    assert res.tokens <= budget
    return res.context or ""


def test_the_persons_own_fact_turn_gets_in(monkeypatch):
    cases = ((_history(DAD, OWN, FACT, FILLER, True), QUESTION, FACT),
             (_history(DAD_EN, OWN_EN, FACT_EN, FILLER_EN, False), QUESTION_EN, FACT_EN))
    assert all(f in _packed(h, q, 160) for h, q, f in cases)
    monkeypatch.setattr(select, "OWNED_WEIGHT", 1.0)
    assert not any(f in _packed(h, q, 160) for h, q, f in cases)
