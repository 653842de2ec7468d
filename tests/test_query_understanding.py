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


def test_an_items_follow_up_and_a_named_thing_keep_their_subject() -> None:
    assert [c.text for c in understand("我老婆用什么手机？用着顺手吗？").asking] == ["我老婆用什么手机？", "我老婆用着顺手吗？"]
    assert [c.text for c in understand("那台富士相机多少钱买的？以及在厦门用它拍了哪儿？").asking] == [
        "那台富士相机多少钱买的？", "那台富士相机在厦门用它拍了哪儿？"]
    assert understand("老张的全名叫什么？还有他儿子今年是不是要高考？").asking[1].text == "老张他儿子今年是不是要高考？"
    # A description's follow-up asks of its person, not of what the description's question asked of them.
    second = understand("那个在宜昌当交警的同学，平时有什么爱好？另外他生日是哪天？").asking[1]
    assert second.condition == "那个在宜昌当交警的同学" and "爱好" not in second.text


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


def test_a_description_without_a_pronoun_is_the_condition() -> None:
    for q, condition, asked in (("那个在宜昌当交警的同学，平时有什么爱好？", "那个在宜昌当交警的同学", "平时有什么爱好"),
                                ("手机号是13871246690的那个人，老家是哪里的？", "手机号是13871246690的那个人", "老家是哪里的"),
                                ("The coworker who lives in Denver, when is the birthday?",
                                 "The coworker who lives in Denver", "when is the birthday")):
        clause = understand(q).clauses[0]
        assert (clause.condition, clause.asked) == (condition, asked), q
    # With no comma between: the description that opens the question.
    for q, condition, asked in (("在阿里上班的那个邻居养了什么宠物？", "在阿里上班的那个邻居", "养了什么宠物"),
                                ("做鸡翅很快的那个炸锅是什么牌子？", "做鸡翅很快的那个炸锅", "是什么牌子"),
                                ("那个喜欢下象棋的人叫什么名字？", "那个喜欢下象棋的人", "叫什么名字")):
        clause = understand(q).clauses[0]
        assert (clause.condition, clause.asked) == (condition, asked), q
    # Small talk before a question, or a question before a comma, picks no one out.
    for q in ("今天下大雨，我表哥的生日是哪天？", "表哥住在哪里，生日是哪天？", "早上排队的时候，我表哥养的是什么宠物？"):
        assert understand(q).clauses[-1].asked == "", q


def test_a_follow_up_without_a_subject_asks_of_the_clause_before() -> None:
    plan = understand("华中零售峰会是在哪里开的？另外，是哪一天？")
    assert [c.text for c in plan.asking] == ["华中零售峰会是在哪里开的？", "华中零售峰会是哪一天？"]
    # A pronoun asks of the question before's subject, not of what that question asks.
    plan = understand("我小姨叫什么名字？另外，她平时喜欢做什么？")
    assert [c.text for c in plan.asking] == ["我小姨叫什么名字？", "我小姨她平时喜欢做什么？"]
    # Down a chain of pronouns the subject stays the first question's; an item's owner stays with the item.
    plan = understand("林晓老家是哪里？她家的猫叫什么？还有她生日是哪天？")
    assert [c.text for c in plan.asking] == ["林晓老家是哪里？", "林晓她家的猫叫什么？", "林晓她生日是哪天？"]
    plan = understand("家里新换的电饭煲是什么牌子？后来出了什么毛病？")
    assert plan.asking[1].text == "家里新换的电饭煲后来出了什么毛病？"
    # A follow-up with no word of its own is part of the question before.
    assert [c.text for c in understand("楼上的邻居有宠物吗？是什么？").asking] == ["楼上的邻居有宠物吗，是什么？"]


def test_a_few_days_is_not_a_question() -> None:
    # 那几天 / 好几个 / 十几 / 几乎 ask nothing: the small talk stays small talk.
    plan = understand("上海那几天挺累的，好几个人都感冒了，几乎没睡。子豪娶的那个新娘叫什么名字？")
    assert [c.text for c in plan.asking] == ["子豪娶的那个新娘叫什么名字？"]


def test_a_rhetorical_aside_asks_nothing() -> None:
    plan = understand("公司发的月饼，五仁的我全送人了，真不知道谁爱吃五仁。话说，邮箱是chgu@whu.edu.cn的那个人，生日是几月几号？")
    assert [c.text for c in plan.asking] == ["邮箱是chgu@whu.edu.cn的那个人，生日是几月几号？"]
    assert plan.asking[0].asked == "生日是几月几号"


def test_counting_questions() -> None:
    for q in ("有几个活动是在浙江杭州举办的？", "有几个人是六月份过生日的？", "哪些人的老家在四川？", "How many people have birthdays in June?",
              "Which events are happening in Boston?", "这段时间晚辈给我们买了几样电器？", "这两个月我去了几趟上海？"):
        assert understand(q).clauses[0].counting, q
    for q in ("How many letters are in his first name?", "我姑父的爱好是什么？", "What is my boss's name?"):
        assert not understand(q).clauses[0].counting, q


def test_long_material_is_one_clause() -> None:
    text = "Fix the build. " * 100 + "What failed?"
    plan = understand(text)
    assert len(plan.clauses) == 1 and not plan.split
