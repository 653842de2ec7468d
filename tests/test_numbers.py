"""notes_store.analysis.numbers: the spellings of a number or a date meet in one form."""

from __future__ import annotations

import pytest

from notes_store.analysis.numbers import cn_number, date_terms, normalize, number_terms


@pytest.mark.parametrize("text, n", [("六", 6), ("十", 10), ("十二", 12), ("二十一", 21), ("一百零五", 105),
                                     ("三千", 3000), ("两万五千", 25000), ("二〇二四", 2024), ("一千零一", 1001)])
def test_cn_number(text: str, n: int) -> None:
    assert cn_number(text) == n


def test_cn_number_refuses_other_text() -> None:
    assert cn_number("") is None
    assert cn_number("六月") is None


@pytest.mark.parametrize("text", ["其生日是06月21日", "生日是6月21号", "六月二十一日出生", "６月２１日", "June 21", "Jun. 21st",
                                  "21 June", "the 21st of June", "6/21", "06/21", "born on 6/21/1990",
                                  "表妹6.21过生日", "生日是06.21"])
def test_one_day_of_the_year_in_every_spelling(text: str) -> None:
    terms = date_terms(text)
    assert "month6" in terms and "date6x21" in terms


@pytest.mark.parametrize("text", ["有几个人是六月份过生日的？", "6月过生日的有几个人？", "06月出生的", "born in June", "in Jun."])
def test_a_month_alone(text: str) -> None:
    assert date_terms(text) == ("month6",)


@pytest.mark.parametrize("text", ["14:06 在家", "you may go", "我们一起去", "3.14", "version 1/2/3", "十分好",
                                  "早上血糖6.8，还行", "打了9.9折", "价格是8.15元"])
def test_no_date_where_there_is_none(text: str) -> None:
    assert date_terms(text) == ()


def test_normalize_keeps_words_and_writes_numbers_in_digits() -> None:
    assert normalize("其生日是06月21日") == "其生日是6月21日"
    assert normalize("花了三千块，十二号见") == "花了3000块,12号见"  # full-width forms folded
    assert normalize("我们一起去一直走十分好") == "我们一起去一直走十分好"
    assert normalize("ｄｅｐｌｏｙ　３") == "deploy 3"
    assert normalize("See you Jun. 3, or in Sept") == "See you June 3, or in September"
    assert normalize("14:06") == "14:06"


def test_number_terms() -> None:
    assert number_terms("花了三千块") == ("3000",)
    assert number_terms("我十二岁") == ("12",)
    assert number_terms("十二岁即12岁") == ()
    assert number_terms("plain text 3000") == ()


def test_with_date_words_writes_each_day_as_its_words() -> None:
    from notes_store.analysis.numbers import with_date_words
    assert with_date_words("丁宁过生日是在一月四日。").split() == ["丁宁过生日是在1月4日", "month1", "date1x4", "。"]
    assert "date4x1" in with_date_words("我导师生于04月01日。").split()
    assert "date1x4" not in with_date_words("那个4月1日过生日的人").split()
    assert with_date_words("born on the 21st of June, or 6/21").split().count("date6x21") == 2
    assert with_date_words("no dates here") == "no dates here"
    assert "date8x15" in with_date_words("小姨8.15过五十岁生日").split()
    assert with_date_words("血糖6.8，还行") == "血糖6.8,还行"
