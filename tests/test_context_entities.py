"""A comparison of two people the question names: each gets its own fact turn (context.select.signals.entities)."""

from __future__ import annotations

from context import build_context
from context.select.signals import stretches
from context.select import scoring as select
from context.select.signals.entities import lift_entity_facts
from context.select.signals.stretches import entity_spans

CHEN = ["我大学同学陈静在腾讯干了好几年了。", "我大学同学陈静推荐我看了一部电影。", "我大学同学陈静的车送去保养了。",
        "周末和我大学同学陈静去爬山了。", "我大学同学陈静说周末要来我家玩。", "我大学同学陈静养了一只猫。",
        "我大学同学陈静给我转发了一篇文章。", "我大学同学陈静最近好像心情不太好。"]
COUSIN = ["我表哥换了份工作。", "我表哥来我家吃饭。", "我表哥感冒了。", "我表哥说想养猫。"]
FACTS = ["陈静今年38岁了。", "表哥已经26岁了，看着还挺年轻。"]
FILLER = ["今天下雨了，没出门。", "刚交了这个月的房租。", "电梯坏了，只好爬楼梯。", "在书店待了一下午。",
          "晚饭吃了饺子。", "地铁上人很多。", "买了一箱苹果。", "新买的台灯很好用。"] * 2
QUESTION = "我大学同学陈静和我表哥谁岁数大？"


def _history() -> list[dict[str, str]]:
    texts = CHEN[:4] + [FACTS[0]] + COUSIN[:2] + FILLER + CHEN[4:] + [FACTS[1]] + COUSIN[2:]
    return [{"role": "user", "content": f"2024年5月{1 + k // 10}日 10:{k % 60:02d}，上海市，家里：{t}"}
            for k, t in enumerate(texts)]


def test_the_question_names_two_entities():
    bodies = [t["content"].split("：", 1)[1].lower() for t in _history()]
    assert len(entity_spans(QUESTION, bodies)) == 2


def test_each_entity_gets_its_fact_turn_lifted():
    texts = [t["content"] for t in _history()]
    rels = [0.5] * len(texts)
    lifted = lift_entity_facts(QUESTION, rels, texts, len(texts))
    assert sorted(texts[i].split("：", 1)[1] for i in lifted) == sorted(FACTS)


def _packed(budget: int) -> str:
    res = build_context(QUESTION, history=_history(), max_tokens=budget, reserve_ratio=0,
                        include_notes=False, include_memory=False)
    return res.context or ""


def test_both_facts_are_packed_only_with_the_signal(monkeypatch):
    budget = 160
    assert all(f in _packed(budget) for f in FACTS)
    monkeypatch.setattr(select, "ENTITY_FACTS", False)
    assert not all(f in _packed(budget) for f in FACTS)


BEN = ["My friend Ben wants to grab dinner next week.", "My friend Ben has a golden retriever.",
       "Had lunch with my friend Ben today.", "My friend Ben joked about getting old.",
       "Video-called my friend Ben for half an hour.", "Ben asked me to pass something along to my older brother."]
MARCUS = ["My friend Marcus got hired by Delta.", "My friend Marcus borrowed two of my books.",
          "Called my friend Marcus in the evening.", "My friend Marcus treated me to dinner."]
EN_FACTS = ["Ben is 41 years old.", "Marcus is 47 years old."]
EN_FILLER = ["It rained all day.", "Paid the rent.", "The elevator was broken again.", "Spent the afternoon at a bookstore.",
             "Made dumplings for dinner.", "The subway was packed.", "Bought a box of apples.", "The new lamp works well."] * 2


def _en_texts() -> list[str]:
    texts = BEN[:3] + [EN_FACTS[0]] + MARCUS[:2] + EN_FILLER + BEN[3:] + [EN_FACTS[1]] + MARCUS[2:]
    return [f"Aug {1 + k // 10}, 2024, 9:{k % 60:02d} AM, Pearl District, Portland, at home: {t}"
            for k, t in enumerate(texts)]


def test_names_and_the_base_of_a_comparative_find_each_fact_in_english():
    texts = _en_texts()
    rels = [0.5] * len(texts)
    lifted = lift_entity_facts("Who is older, my friend Ben or my friend Marcus?", rels, texts, len(texts))
    assert sorted(texts[i].split(": ", 1)[1] for i in lifted) == sorted(EN_FACTS)
    assert all(rels[i] == 0.5 for i in range(len(texts)) if i not in lifted)


def test_a_question_about_one_entity_lifts_nothing():
    texts = _en_texts()
    rels = [0.5] * len(texts)
    assert lift_entity_facts("How old is my friend Ben?", rels, texts, len(texts)) == []
    texts = [t["content"] for t in _history()]
    assert lift_entity_facts("我大学同学陈静多大了？", [0.5] * len(texts), texts, len(texts)) == []


def test_gen_joins_two_entities_as_he_does(monkeypatch):
    texts = [t["content"] for t in _history()]
    question = QUESTION.replace("和", "跟")
    lifted = lift_entity_facts(question, [0.5] * len(texts), texts, len(texts))
    assert sorted(texts[i].split("：", 1)[1] for i in lifted) == sorted(FACTS)
    monkeypatch.setattr(stretches, "CONNECTORS", frozenset())
    assert lift_entity_facts(question, [0.5] * len(texts), texts, len(texts)) == []


def test_a_long_query_costs_a_bounded_number_of_passes_over_the_history():
    """Each span of the question is a pass over the history: a pasted page must not be one pass per word."""
    from context.select.signals.stretches import MAX_QUESTION_TOKENS, entity_spans, question_tokens as _tokens
    page = "我大学同学陈静个子多高？" + "我表妹的爸爸请我吃了顿饭。" * 200
    bodies = ["我表妹的爸爸请我吃了顿饭。"] * 5 + ["我大学同学陈静个子很高。"] * 5
    assert len(_tokens(page)) == MAX_QUESTION_TOKENS
    assert all(b <= MAX_QUESTION_TOKENS for _a, b in entity_spans(page, bodies))
    assert entity_spans(page, bodies)[0] == entity_spans("我大学同学陈静个子多高？", bodies)[0]
