"""Chinese question terms counted by what they say, not by how many bigrams spell them: a run of
overlapping bigrams ("的生日是") is one unit (relevance.RUN_REST), and a character that is a word
alone ("车") breaks ties among the turns about the same person (relevance.CJK_UNIGRAM_WEIGHT)."""

from __future__ import annotations

import pytest

from context.select import relevance
from context.select.relevance import lexical_relevance

# Other people's birthdays, worded like the question; the cousin's turn names him, not the word.
BIRTHDAYS = ["3月4日是我舅舅的生日。", "我同事的生日是5月2日。", "6月9日是我房东的生日。",
             "我朋友李娜的生日是1月6日。", "奶奶的生日是10月1日。", "邻居的生日是8月8日。"]
COUSIN = ["表哥是2月10日出生的。", "表哥最近在学游泳。", "周末和表哥去爬山了。", "表哥给我带了特产。", "表哥换了份工作。",
          "表哥说想养猫。", "表哥来我家吃饭。", "表哥感冒了。"]
FILLER = ["今天下雨了，没出门。", "刚交了这个月的房租。", "电梯坏了，只好爬楼梯。", "在书店待了一下午。",
          "晚饭吃了饺子。", "地铁上人很多。", "买了一箱苹果。", "新买的台灯很好用。"] * 3


def _rank(query: str, texts: list[str], target: str) -> int:
    rel = lexical_relevance(query, texts)
    order = sorted(range(len(texts)), key=lambda i: -rel[i])
    return order.index(texts.index(target))


def test_a_run_of_question_bigrams_does_not_outvote_the_person(monkeypatch):
    texts = BIRTHDAYS + COUSIN + FILLER
    query = "表哥的生日是哪天？"
    target = "表哥是2月10日出生的。"
    assert _rank(query, texts, target) == 0
    # Every bigram on its own: the birthdays win (with "出生" not searched for as "生日"'s other word,
    # which alone also finds the target since attribute cues).
    monkeypatch.setattr(relevance, "ATTRIBUTE_WEIGHT", 0.0)
    assert _rank(query, texts, target) == 0
    monkeypatch.setattr(relevance, "RUN_REST", 1.0)
    assert _rank(query, texts, target) > 0


def test_runs_change_nothing_without_overlapping_bigrams():
    texts = ["the staging deploy failed", "deploy went fine", "lunch at noon"] * 10
    scorer = relevance.scorer_for(texts)
    weights = relevance.weighted_query_terms("why did the staging deploy fail?")
    order = relevance.query_terms("why did the staging deploy fail?")
    assert scorer.bm25_runs(weights, order, 0.2) == pytest.approx(scorer.bm25(weights))


def test_a_single_character_word_breaks_ties_among_one_persons_turns(monkeypatch):
    yu = ["大学同学于洋来我家吃了顿饭。", "大学同学于洋把旧车卖了，换成了奥迪A6。", "大学同学于洋给我发了个红包。",
          "大学同学于洋最近在学做饭。", "周末约了大学同学于洋去唱歌。"]
    texts = yu + ["我同事的车坏了。", "邻居买了辆新车。"] + FILLER
    query = "我大学同学于洋开的是什么车？"
    target = yu[1]
    assert _rank(query, texts, target) == 0
    monkeypatch.setattr(relevance, "CJK_UNIGRAM_WEIGHT", 0.0)
    assert _rank(query, texts, target) > 0


def test_a_question_followed_by_an_aside_is_a_question():
    # "..., what is X? Thanks!" asks about the material: knowledge, not chat (no newest-turn bonus).
    from context.select.profiles import decide_query_type
    query = "Random thought from the bus: what is my coworker Hugo's favorite food? Thanks!"
    assert decide_query_type(query, has_task_state=False, has_tool_results=False, has_sources=True) == "knowledge"
    assert decide_query_type("Thanks, that was all.", has_task_state=False, has_tool_results=False,
                             has_sources=True) == "chat"
