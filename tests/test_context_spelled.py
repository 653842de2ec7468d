"""Words of the question that only spell out who its person is count less (context.select.signals.spelled)."""

from __future__ import annotations

from context import build_context
from context.select import scoring as select
from context.select.signals.spelled import implied_terms

FILLER = ["今天下雨了，没出门。", "刚交了这个月的房租。", "电梯坏了，只好爬楼梯。", "在书店待了一下午。",
          "晚饭吃了饺子。", "地铁上人很多。", "买了一箱苹果。", "新买的台灯很好用。"] * 2
# Several friends, one of them (林悦) with many chatty turns that spell out "我朋友林悦" and one fact turn
# that names her alone.
FRIENDS = ["徐浩", "冯佳", "郭晶", "唐亮", "萧然", "梁宇"]
LIN_CHAT = ["我朋友林悦说周末要来我家玩。", "我朋友林悦给我转发了一篇文章。", "我朋友林悦最近好像心情不太好。",
            "我朋友林悦夸我做的菜好吃。", "和我朋友林悦视频聊了半个小时。", "我朋友林悦约我下周一起吃饭。"]
LIN_FACT = "林悦身高184厘米。"
QUESTION = "我朋友林悦个子多高？"


def _friends_log() -> list[dict[str, str]]:
    # The chatty templates are everyone's: their words are common, the fact's age is not.
    texts = [c.replace("林悦", n) for k, n in enumerate(FRIENDS) for c in LIN_CHAT[k % 2::2]]
    texts += LIN_CHAT[:3] + [LIN_FACT] + LIN_CHAT[3:] + FILLER
    return [{"role": "user", "content": f"2024年5月{1 + k // 10}日 10:{k % 60:02d}，上海市，家里：{t}"}
            for k, t in enumerate(texts)]


def test_a_relation_the_name_implies_only_spells_it_out():
    texts = [t["content"] for t in _friends_log()]
    assert {"朋友"} <= implied_terms("我朋友林悦多大了？", texts, len(texts))
    # An owner is not spelled out: the tail is theirs ("林悦的女儿" is not 林悦).
    assert "林悦" not in implied_terms("我朋友林悦的女儿多大了？", texts, len(texts))


def test_the_fact_turn_that_names_the_entity_alone_gets_in(monkeypatch):
    def packed(budget: int) -> str:
        res = build_context(QUESTION, history=_friends_log(), max_tokens=budget, reserve_ratio=0,
                            include_notes=False, include_memory=False)
        assert res.tokens <= budget
        return res.context or ""
    assert LIN_FACT in packed(80) and LIN_FACT in packed(200)
    monkeypatch.setattr(select, "IMPLIED_WEIGHT", 1.0)
    assert LIN_FACT not in packed(80) and LIN_FACT not in packed(200)
