"""context.select.signals.bridge: one hop from a question's condition to what it asks, across a relation
word, a name or an item's name."""

from __future__ import annotations

from context.select.query import understand
from context.select.relevance import lexical_relevance
from context.select.signals.bridge import bridge_hop, bridges


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
    # The condition ("那个爱好是钓鱼的人") picks the anchor: the 姑父 turn about fishing.
    bridge_hop(clause, rels, texts, len(texts), anchors_by=lexical_relevance(clause.condition, texts))
    assert rels[name] > before and rels[name] > rels[other]


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
