"""context.select.signals.bridge: one hop from a question's condition to what it asks, across a relation
word, a name or an item's name."""

from __future__ import annotations

from context.select.query import understand
from context.select.relevance import lexical_relevance
from context.select.signals.bridge import bridge_hop, bridges, own_thing


def _log(facts: list[str]) -> list[str]:
    filler = [f"今天天气不错，第{k}天出门散步。" for k in range(40)]
    out: list[str] = []
    for k, f in enumerate(facts):
        out += filler[k * 8:(k + 1) * 8] + [f]
    return out + filler[len(facts) * 8:]


def test_bridges_of_an_anchor() -> None:
    links, ids = bridges("我姑父特别喜欢钓鱼。", "那个爱好是钓鱼的人，他的名字有几个字？")
    assert "姑父" in links and not ids
    links, ids = bridges("我用的耳机是索尼WH-1000XM5。", "我的耳机怎么样？")
    assert "1000xm5" in ids and "索尼" in links
    links, _ids = bridges("My uncle really loves fishing.", "The one who loves fishing, what is his name?")
    assert "uncl" in links


def test_relation_word_bridges_to_the_asked_fact() -> None:
    texts = _log(["我姑父特别喜欢钓鱼。", "我姑父的名字叫王建国。", "我表哥的名字叫李强。", "我姑父最近心情不太好。"])
    clause = understand("那个爱好是钓鱼的人，他的名字是什么？").clauses[0]
    rels = lexical_relevance(clause.text, texts)
    name = texts.index("我姑父的名字叫王建国。")
    other = texts.index("我表哥的名字叫李强。")
    before = rels[name]
    assert before <= rels[other] + 1e-9   # alone, the question cannot tell the two name turns apart
    # The condition ("那个爱好是钓鱼的人") picks the anchor: the 姑父 turn about fishing; the bridge lends to 姑父's name.
    lent = [0.0] * len(texts)
    bridge_hop(clause, lent, texts, len(texts), anchors_by=lexical_relevance(clause.condition, texts))
    assert lent[name] > 0.5 and lent[other] == 0


def test_an_item_name_bridges_to_its_follow_ups() -> None:
    texts = _log(["我用的耳机是索尼WH-1000XM5。", "WH-1000XM5降噪真不错，就是戴久了有点夹头。", "地铁上好多人戴着耳机。"])
    clause = understand("我的耳机怎么样？").clauses[0]
    rels = lexical_relevance(clause.text, texts)
    follow = texts.index("WH-1000XM5降噪真不错，就是戴久了有点夹头。")
    assert rels[follow] == 0
    bridge_hop(clause, rels, texts, len(texts))
    assert rels[follow] > 0.5


def test_no_hop_in_a_short_history() -> None:
    texts = ["我姑父特别喜欢钓鱼。", "我姑父的名字叫王建国。"]
    clause = understand("那个爱好是钓鱼的人，他的名字是什么？").clauses[0]
    rels = lexical_relevance(clause.text, texts)
    before = list(rels)
    bridge_hop(clause, rels, texts, len(texts))
    assert rels == before


def test_a_counting_clause_reaches_every_turn_stating_its_attribute() -> None:
    from context.select.signals.breadth import breadth
    # The two Boston turns state a place the same way ("They picked … for"): the other turns stating it so are
    # lent; the turns about something else are not.
    events = ["They picked Boston for the class reunion.", "They picked Boston for the trade show.",
              "They picked Denver for the book club.", "They picked Austin for the music festival."]
    texts = _log(events)
    clause = understand("How many events are held in Boston?").clauses[0]
    assert clause.counting
    rels = lexical_relevance(clause.text, texts)
    others = [texts.index(e) for e in events[2:]]
    before = [rels[i] for i in others]
    breadth(clause, rels, texts, len(texts))
    assert all(rels[i] > b for i, b in zip(others, before))
    assert rels[texts.index("They picked Austin for the music festival.")] > 0.2


def test_a_name_sharing_a_character_with_the_condition_is_still_a_bridge() -> None:
    # 王建国 shares 建 with the condition's 建筑师: only where the anchor says the condition (建筑师) is its own word.
    links, _ids = bridges("王建国的工作是建筑师。", "那位建筑师，他什么时候过生日？", "那位建筑师")
    assert "建国" in links and "王建" in links
    assert "建筑" not in links and "筑师" not in links


def test_the_asked_shape_puts_the_dated_turn_before_the_word_alone() -> None:
    # "什么时候过生日" is answered by a date: the turn across the bridge holding one ("王建国是3月8号出生的。", no 生日 in
    # it) comes before the one holding the word alone ("王建国说生日那天不想大办。").
    texts = _log(["王建国的工作是建筑师。", "王建国说生日那天不想大办。", "王建国是3月8号出生的。"])
    clause = understand("那位建筑师，他什么时候过生日？").clauses[0]
    anchors = lexical_relevance(clause.condition, texts)
    lent = [0.0] * len(texts)   # what the bridge lends alone
    bridge_hop(clause, lent, texts, len(texts), anchors_by=anchors)
    dated, worded = texts.index("王建国是3月8号出生的。"), texts.index("王建国说生日那天不想大办。")
    assert lent[dated] > lent[worded] > 0


def test_a_model_number_after_its_brand_bridges_to_its_follow_ups() -> None:
    # "红管405", "Forerunner 265", "小米14 Ultra": the follow-ups name the number or the word after it only.
    assert bridges("老婆最常用的那支口红是阿玛尼红管405，烂番茄色。", "我老婆那支口红是什么色号？")[1] == ["405"]
    assert "ultra" in bridges("我现在用的手机是小米14 Ultra，拍照确实顶。", "我的手机用着怎么样？")[1]
    # A nickname in quotes: the follow-ups say "大肚子" alone.
    assert {"大肚", "肚子"} <= set(bridges("工作室那台电窑用了五年，阿杰给它起了个外号叫“大肚子”。", "工作室的电窑出过什么故障？")[1])
    # An age, a price, a date or a clock names nothing.
    assert bridges("岳父今年62岁了，花了3000元买了块表，9月12日12:30到。", "我的表怎么样？")[1] == []
    texts = _log(["老婆最常用的那支口红是阿玛尼红管405。", "405是去年在免税店买的，便宜了不少。", "405那支备用的今天也拆封了。"])
    for q in ("我老婆那支口红是什么色号？", "家里那支口红好用吗？"):
        clause = understand(q).clauses[0]
        rels = lexical_relevance(clause.text, texts)
        follow = texts.index("405是去年在免税店买的，便宜了不少。")
        assert rels[follow] == 0
        bridge_hop(clause, rels, texts, len(texts))
        assert rels[follow] > 0.5, q


def test_a_name_that_opens_its_statements_bridges_before_a_piece_of_a_sentence() -> None:
    # Both 龚磊 and 每次 are held by the anchor and by a hobby turn; 龚磊 opens the statements that hold it, 每次 stands
    # inside a clause, so 龚磊's hobby comes before the hobby of whoever's turn shares 每次 with the anchor.
    texts = _log(["龚磊现在在宜昌当交警，夏天站岗的时候每次都晒得很黑。", "龚磊最爱唱K。", "表姐说她放假的时候每次都去爬山，平时的爱好就是爬山。",
                  "龚磊上周请我吃了顿饭。"])
    clause = understand("那个在宜昌当交警的同学，平时有什么爱好？").clauses[0]
    assert clause.condition == "那个在宜昌当交警的同学"
    lent = [0.0] * len(texts)
    bridge_hop(clause, lent, texts, len(texts), anchors_by=lexical_relevance(clause.condition, texts))
    assert lent[texts.index("龚磊最爱唱K。")] > lent[texts.index("表姐说她放假的时候每次都去爬山，平时的爱好就是爬山。")]


def test_a_second_hop_through_the_turn_that_says_who_the_bridge_is() -> None:
    # 表哥 is the bridge; "我表哥叫陈志远。" gives his name, and the birthday is said of the name only.
    texts = _log(["表哥在襄阳当消防员，已经干了八年了。", "我表哥叫陈志远，比我大三岁。", "陈志远的生日是11月3日。",
                  "李明的生日是5月1日。", "陈志远周末来家里吃饭。"])
    clause = understand("那个在襄阳当消防员的亲戚，他的生日是哪天？").clauses[0]
    lent = [0.0] * len(texts)
    bridge_hop(clause, lent, texts, len(texts), anchors_by=lexical_relevance(clause.condition, texts))
    birthday, other = texts.index("陈志远的生日是11月3日。"), texts.index("李明的生日是5月1日。")
    assert lent[birthday] > 0.5 and lent[other] == 0
    assert lent[texts.index("我表哥叫陈志远，比我大三岁。")] > 0.5
    assert lent[texts.index("陈志远周末来家里吃饭。")] == 0   # the name without the asked words is not lent


def test_the_turn_that_names_the_asked_person_another_way_is_lent() -> None:
    # "我老婆的生日" is answered by "沈悦的生日…": the turn that says who 沈悦 is comes before the other turns about 老婆.
    texts = _log(["我老婆最近在学做饭。", "我老婆叫沈悦，是中学老师。", "沈悦的生日是3月14日。", "我老婆喜欢看电影。"])
    clause = understand("我老婆的生日是几月几号？").clauses[0]
    rels = lexical_relevance(clause.text, texts)
    intro, other = texts.index("我老婆叫沈悦，是中学老师。"), texts.index("我老婆喜欢看电影。")
    assert rels[intro] <= rels[other] + 0.05
    bridge_hop(clause, rels, texts, len(texts))
    assert rels[intro] > rels[other] + 0.2


def test_a_name_straddling_the_condition_word_is_a_bridge() -> None:
    # "方医生" shares 医生 with the condition's 全科医生: "方医" still names him (one of its characters is the condition's).
    links, _ids = bridges("方医生叫方建华，是社区卫生服务中心的全科医生。", "社区卫生服务中心那位全科医生，老家是哪里的？",
                          "社区卫生服务中心那位全科医生")
    assert "方医" in links and "医生" not in links


def test_a_holder_of_the_asked_shape_is_lent_as_a_fact() -> None:
    # "老家是哪里" is answered by "方医生是河南信阳人": none of the asked words, but where someone is from.
    texts = _log(["方医生叫方建华，是社区卫生服务中心的全科医生。", "方医生说我血压偏高了。", "方医生是河南信阳人，说话带点口音。",
                  "老周的老家在宜昌。"])
    clause = understand("社区卫生服务中心那位全科医生，老家是哪里的？").clauses[0]
    lent = [0.0] * len(texts)
    bridge_hop(clause, lent, texts, len(texts), anchors_by=lexical_relevance(clause.condition, texts))
    origin = texts.index("方医生是河南信阳人，说话带点口音。")
    assert lent[origin] > 0.5
    assert lent[origin] > lent[texts.index("方医生说我血压偏高了。")]


def test_the_askers_own_thing() -> None:
    assert own_thing("我的车开起来怎么样？") == "我的车"
    assert own_thing("我那台Kindle好用吗？") == "我那台Kindle"
    assert own_thing("How are my headphones holding up?") == "my headphones"
    assert own_thing("我同事李娜的手机是什么牌子？") == "" and own_thing("What phone does Omar use?") == ""
