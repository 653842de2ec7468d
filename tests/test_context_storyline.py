"""The storyline hop in dialogues (context.select.signals.storyline): from the turns the question points at to the
same speaker's later turns that share the story's rare words."""

from __future__ import annotations

from context import packets as P
from context.packets import Packet
from context.select.profiles import PROFILES
from context.select.scoring import score_packets


def _kitty_chat() -> tuple[list[str], list[str], str]:
    contents, roles = [], []
    for k in range(100):
        contents += [f"Mateo: Grey day {k}, stayed in.",
                     f"Lucia: Same here, I read a chapter of book {k}."]
        roles += ["user", "assistant"]
    contents[10] = "Mateo: We brought home a kitty from the shelter. We named her Rocket, a tabby."
    contents[40] = "Mateo: I spent all weekend teaching Rocket to play dead and she finally did it, we were both so proud!"
    contents[41] = "Lucia: Rocket sounds like a genius."
    return contents, roles, "What do we know about Mateo's kitty?"


def _scored(query: str, contents: list[str], roles: list[str]) -> list[Packet]:
    hist = [Packet(P.HISTORY, str(i), c, position=i, role=r) for i, (c, r) in enumerate(zip(contents, roles))]
    score_packets(hist, query, PROFILES["knowledge"])
    return hist


def test_a_later_beat_of_the_story_is_found_through_the_anchors_rare_word(monkeypatch):
    contents, roles, query = _kitty_chat()
    hist = _scored(query, contents, roles)
    others = [p.relevance for i, p in enumerate(hist) if i not in (10, 40, 41)]
    assert hist[40].relevance > max(others)
    monkeypatch.setattr("context.select.scoring.STORYLINE", False)
    hist = _scored(query, contents, roles)
    others = [p.relevance for i, p in enumerate(hist) if i not in (10, 40, 41)]
    assert hist[40].relevance <= max(others)


def test_the_hop_follows_the_anchors_speaker_and_leaves_query_words_and_common_words_alone():
    from context.select.signals.storyline import storyline_hop
    texts, roles, query = _kitty_chat()
    speakers = [t.split(":")[0] for t in texts]
    rels = [0.0] * len(texts)
    rels[10] = 1.0
    storyline_hop(query, rels, texts, len(texts), speakers, speakers)
    assert rels[40] > 0            # Mateo's turn holding "Rocket"
    assert rels[41] == 0           # Lucia's turn holding it: another speaker
    assert rels[0] == 0            # "Mateo", the question's own word and a speaker's name, links nothing
