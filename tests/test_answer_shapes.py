"""context.select.signals.shapes: the shape an answer takes (a date, a phone number, an e-mail, an age), read
from the question, and the turns whose statement holds one."""

from __future__ import annotations

import pytest

from context.select.signals.shapes import asked_shape, holds_shape


@pytest.mark.parametrize("question, shape", [
    ("同事熊伟的生日是几号？", "date"), ("那位建筑师，他什么时候过生日？", "date"), ("When is her birthday?", "date"),
    ("怎么给他打电话？他的电话是多少？", "phone"), ("What is Omar's phone number?", "phone"),
    ("How many of my friends have a Samsung phone?", ""), ("What phone does Omar use?", ""),
    ("他的邮箱是什么？", "email"), ("My aunt's e-mail?", "email"),
    ("我表哥今年几岁了？", "age"), ("How old is my uncle?", "age"), ("常一起跳舞的几个老姐妹里，有几个岁数比我大？", "age"),
    ("他的名字有几个字？", ""), ("What does she do for a living?", ""),
    ("他的电话和邮箱是什么？", ""),  # two shapes: neither is the answer's
    ("那位全科医生，老家是哪里的？", "origin"), ("我同事是哪里人？", "origin"), ("Where is she from?", ""),
])
def test_the_asked_shape(question: str, shape: str) -> None:
    assert asked_shape(question) == shape


def test_a_statement_holds_a_shape_its_stamp_does_not_count() -> None:
    texts = ["[2024年01月16日 周二 11:23 上海] 王建国是3月8号出生的。",
             "[2024年01月16日 周二 11:30 上海] 王建国说生日那天不想大办。",   # the stamp's date is no answer
             "熊伟过生日是在六月二十一日。", "Her birthday is June 21.", "She was born on the 3rd of May.",
             "记一下他的电话，138-1234-5678。", "Call him at (512) 555-0199.", "邮箱是wang88@163.com。",
             "我表哥今年三十二岁了。", "He turned 41 last week.", "We met at 10:30 on the 5th floor."]
    assert holds_shape("date", texts, range(len(texts))) == {0, 2, 3, 4}
    assert holds_shape("phone", texts, range(len(texts))) == {5, 6}
    assert holds_shape("email", texts, range(len(texts))) == {7}
    assert holds_shape("age", texts, range(len(texts))) == {8, 9}
    # "今年68了" says an age without 岁; "今年2024年" and "今年第三次" do not.
    assert holds_shape("age", ["玉兰姐今年68了。", "美华姐今年六十六了。", "今年2024年了。", "今年三月去了趟北京。", "今年十二月去。"],
                       range(5)) == {0, 1}
    assert holds_shape("", texts, range(len(texts))) == set()



def test_where_someone_is_from() -> None:
    # A province, a place named with its level, or "是…人"; never a person described as "是个好人", and never the stamp.
    texts = ["方医生是河南信阳人，说话还带着一点豫南口音。", "她老家在景德镇市。", "小吴是湖南常德人。", "王师傅是个热心人。",
             "[2024年09月19日 周四 10:00 湖北武汉] 今天去菜场买了点排骨。", "老周说他是好人。"]
    assert holds_shape("origin", texts, range(len(texts))) == {0, 1, 2}
