"""context.select.query: which clauses of a query ask, and what each asks."""

from __future__ import annotations

from context.select.query import NOISE_WEIGHT, understand


def test_one_question_is_one_clause() -> None:
    plan = understand("What does Melanie do to destress?")
    assert not plan.split
    assert [c.text for c in plan.clauses] == ["What does Melanie do to destress?"]
    assert plan.focused == "What does Melanie do to destress?"


def test_small_talk_around_an_announced_question_weighs_little() -> None:
    q = "哎呀，今天地铁挤死了……晚上想去吃火锅……对了，我真正想问的是：那个职业是律师的人，他的生日是哪天？另外，周末好像又要下雨……"
    plan = understand(q)
    assert plan.split
    assert [c.text for c in plan.asking] == ["那个职业是律师的人，他的生日是哪天？"]
    assert all(c.weight == NOISE_WEIGHT for c in plan.clauses if c.text != plan.asking[0].text)
    assert plan.focused == "那个职业是律师的人，他的生日是哪天？"


def test_english_small_talk_and_an_opinion_question() -> None:
    plan = understand("Do you think it'll rain this weekend? Stocks dropped again, sigh. So, the person who is into "
                      "hiking, what is his full name?")
    assert [c.text for c in plan.asking] == ["the person who is into hiking, what is his full name?"]
    plan = understand("Ugh, the subway was so packed today... Anyway, what I really want to ask is: what does my "
                      "neighbor do for a living?")
    assert [c.text for c in plan.asking] == ["what does my neighbor do for a living?"]


def test_compound_questions_are_split_at_their_joiners() -> None:
    plan = understand("我姑父的爱好是什么？另外，我同事李娜的生日是哪天？顺便问一下，我表姐是几月几号出生的？")
    assert [c.text for c in plan.asking] == ["我姑父的爱好是什么？", "我同事李娜的生日是哪天？", "我表姐是几月几号出生的？"]
    plan = understand("同事廖凡的爱好是什么，顺便问一下，我表姐是几月几号出生的？")
    assert len(plan.asking) == 2
    plan = understand("What is Grace's email? Oh, and what is my boss's full name?")
    assert [c.text for c in plan.asking] == ["What is Grace's email?", "what is my boss's full name?"]


def test_a_comma_inside_a_question_does_not_cut_it() -> None:
    plan = understand("那个爱好是钓鱼的人，他的名字有几个字？")
    assert not plan.split
    (clause,) = plan.clauses
    assert clause.asked == "他的名字有几个字"
    assert clause.condition == "那个爱好是钓鱼的人"
    assert not clause.counting   # "有几个字" counts the name's characters, not turns
    clause = understand("The one who grew up in Duluth, Minnesota, what is his job?").clauses[0]
    assert clause.asked == "what is his job"
    assert clause.condition == "The one who grew up in Duluth, Minnesota"


def test_counting_questions() -> None:
    for q in ("有几个活动是在浙江杭州举办的？", "有几个人是六月份过生日的？", "哪些人的老家在四川？", "How many people have birthdays in June?",
              "Which events are happening in Boston?"):
        assert understand(q).clauses[0].counting, q
    for q in ("How many letters are in his first name?", "我姑父的爱好是什么？", "What is my boss's name?"):
        assert not understand(q).clauses[0].counting, q


def test_long_material_is_one_clause() -> None:
    text = "Fix the build. " * 100 + "What failed?"
    plan = understand(text)
    assert len(plan.clauses) == 1 and not plan.split
