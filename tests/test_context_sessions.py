"""The day lift in conversations (context.select.signals.days): the turns of a day whose talk speaks of the question
come before the turns of other days that the question's words do not reach either."""

from __future__ import annotations

from context import packets as P
from context.packets import Packet
from context.select.profiles import PROFILES
from context.select.scoring import score_packets
from context.select.signals.days import SESSION_WEIGHT, lift_by_session

QUESTION = "What name did the garden group choose?"
MEETING, NAMED = 40, 47   # day 4; seven turns apart, so no neighbour spreads from one to the other


def _chat(speakers: tuple[str, str] = ("Priya", "Tom")) -> tuple[list[str], list[str], list[str]]:
    contents, roles, days = [], [], []
    for day in range(10):
        for k in range(10):
            who = speakers[k % 2]
            contents.append(f"{who}: Quiet day {day}, note {k} about the weather and tea." if who else
                            f"Quiet day {day}, note {k} about the weather and tea.")
            roles.append("user" if k % 2 == 0 or not who else "assistant")
            days.append(f"Mon {day + 1} May 2023")
    head = f"{speakers[0]}: " if speakers[0] else ""
    contents[MEETING] = head + "The garden group met at Grace's house tonight, fourteen people came."
    contents[NAMED] = head + "We voted to call ourselves the Kelso Patch."
    return contents, roles, days


def _scored(contents: list[str], roles: list[str], days: list[str]) -> list[Packet]:
    hist = [Packet(P.HISTORY, str(i), c, position=i, role=r, group=d)
            for i, (c, r, d) in enumerate(zip(contents, roles, days))]
    score_packets(hist, QUESTION, PROFILES["knowledge"])
    return hist


def test_a_turn_of_the_day_that_speaks_of_the_question_comes_before_other_days_turns(monkeypatch):
    hist = _scored(*_chat())
    other_days = [p.relevance for i, p in enumerate(hist) if not 40 <= i < 50]
    assert hist[NAMED].relevance > max(other_days)
    assert max(hist, key=lambda p: p.relevance) is hist[MEETING]   # the turn with the words stays first
    monkeypatch.setattr("context.select.signals.days.SESSION_WEIGHT", 0.0)
    hist = _scored(*_chat())
    other_days = [p.relevance for i, p in enumerate(hist) if not 40 <= i < 50]
    assert hist[NAMED].relevance <= max(other_days)


def test_the_lift_is_bounded_by_the_best_turn_and_needs_days():
    contents, _roles, days = _chat()
    rels = [0.0] * len(contents)
    rels[MEETING] = 1.0
    lifted = list(rels)
    lift_by_session(QUESTION, lifted, contents, days, len(contents))
    gains = [b - a for a, b in zip(rels, lifted)]
    assert 0 < gains[NAMED] <= SESSION_WEIGHT * 1.0 + 1e-12
    assert all(g == 0 for i, g in enumerate(gains) if not 40 <= i < 50)
    every_day = list(rels)   # words every day holds tell no day apart
    lift_by_session("What about the weather and the tea?", every_day, contents, days, len(contents))
    assert every_day == rels
    undated = list(rels)
    lift_by_session(QUESTION, undated, contents, [""] * len(contents), len(contents))
    assert undated == rels


def test_no_lift_in_a_log_of_one_voice():
    # A day of a log holds unrelated threads: its statements lend each other nothing.
    hist = _scored(*_chat(speakers=("", "")))
    assert hist[NAMED].relevance == 0
