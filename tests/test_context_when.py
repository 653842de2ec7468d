"""Questions that ask when prefer the turns that say when (context.select.signals.when)."""

from __future__ import annotations

from context import packets as P
from context.packets import Packet
from context.select.profiles import PROFILES
from context.select.scoring import score_packets
from context.select.signals.when import asks_when, says_when, untimed_turns


def test_a_question_asks_when_only_where_a_clause_opens_with_it() -> None:
    for q in ("When did Melanie go camping?", "So when did she move?", "Quick one, when did Tom go?",
              "How long has Caroline had her friends?", "In which month is the wedding?",
              "How many years has she lived there?", "我叔叔什么时候搬的家？", "建国哪天过生日？", "她学钢琴多久了？"):
        assert asks_when(q), q
    for q in ("What year did Tom retire?", "On what date?", "Do you remember when Mel moved?", "Mel moved when?",
              "When did you move, and why?", "啥时候搬的家？"):
        assert asks_when(q), q
    for q in ("What did Maureen do when Morwenna went back in the water?", "How many years old is my classmate?",
              "What did Melanie paint?", "我叔叔是做什么工作的？", "How long is the bridge?",
              "When I was a kid, what did I collect?", "What time zone is Tom in?", "What year of school is Lily in?",
              "Which day trip did they take?", "我住几号楼？", "她上哪年级？"):
        assert not asks_when(q), q


def test_a_turn_says_when_by_its_own_words_not_by_its_log_stamp() -> None:
    for t in ("Melanie: Last Fri I finally took my kids to a pottery workshop.", "Seven years now, and counting.",
              "We got back on Saturday.", "in May I went to Lisbon", "2024年6月12日 周三 12:29，朋友家：我叔叔上周换了工作。",
              "建国的生日是10月13日。", "三天前去了趟医院。", "小姨8.15过五十岁生日。"):
        assert says_when(t), t
    for t in ("5/12 works for me.", "We met at 10:30.", "Around noon, I think.", "前两天去了。", "半年前搬的。", "in March 2023",
              "since 2016", "back in 2019"):
        assert says_when(t), t
    for t in ("Since Tom likes dogs, we went.", "Add a second layer.", "I march on.", "I paid 2000 dollars.",
              "Room 2019 is free.", "The kittens are a few years old.", "住在3号楼。", "买了2号电池。", "穿38号鞋。", "5日元一个。",
              "读3年级。", "早上血糖6.8。"):
        assert not says_when(t), t
    for t in ("I sat down in the sun.", "You may be right.", "Melanie: The pots came out great!",
              "2024年6月12日 周三 12:29，朋友家：我叔叔是厨师长。", "[6月10日 周六 12:29｜朋友家] 小姨养了一只英短猫。"):
        assert not says_when(t), t


def test_a_turn_linked_to_one_that_says_when_is_timed_through_it() -> None:
    texts = ["Caro: When did you get back from the retreat?", "Mel: Yesterday morning.", "Caro: Get back soon!"]
    rels = [1.0, 0.2, 1.0]
    assert untimed_turns("When did Mel get back from the retreat?", texts, rels, links=[1.0, 0.0]) == [2]
    assert untimed_turns("When did Mel get back from the retreat?", texts, rels) == [0, 2]
    assert untimed_turns("What did Mel do at the retreat?", texts, rels, links=[1.0, 0.0]) == []


def _scored(query: str, contents: list[str]) -> list[Packet]:
    hist = [Packet(P.HISTORY, str(i), c, position=i, role="user" if c.startswith("Mel") else "assistant")
            for i, c in enumerate(contents)]
    score_packets(hist, query, PROFILES["knowledge"])
    return hist


def test_the_turn_that_tells_the_event_with_its_time_outranks_the_chatter_about_it(monkeypatch) -> None:
    contents: list[str] = []
    for k in range(40):
        contents += [f"Mel: Work was busy, ticket {k} again.", f"Caro: Same here, meeting {k} ran long."]
    # Not "went": it meets the question's "go" (english_forms), and the turn would win without the signal.
    contents[21] = "Mel: I finally made it to a pottery workshop last Friday with the kids."
    chatter = [31, 45, 59, 73]
    for k in chatter:
        contents[k] = "Mel: The pottery workshop teacher says my pottery is getting better, the workshop is fun."
    query = "When did Mel go to the pottery workshop?"
    hist = _scored(query, contents)
    assert hist[21].relevance > max(hist[k].relevance for k in chatter)
    monkeypatch.setattr("context.select.scoring.UNTIMED_WEIGHT", 1.0)
    hist = _scored(query, contents)
    assert hist[21].relevance <= max(hist[k].relevance for k in chatter)
