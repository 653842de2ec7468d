"""The written sets (bench/devsets/written): ``en-written``'s conversations in LoCoMo's format, fed as conv-26
is, and ``zh-written``'s logs of one voice, fed as the issue's held-out logs are; evidence ids exact, and the
files the figures were measured on. Quick: no build_context."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets import (SET_NAMES, WRITTEN, WRITTEN_ASKED, WRITTEN_LATE, WRITTEN_LOG_SPLITS, WRITTEN_SPLITS,  # noqa: E402
                           load_locomo, load_written_log, written_asked_set, written_late_set, written_log_set, written_set)

FILES = sorted([name for names in WRITTEN_SPLITS.values() for name in names] + list(WRITTEN_LATE))
LOGS = sorted(name for names in WRITTEN_LOG_SPLITS.values() for name, _stamped in names)

# The figures in bench/devsets/README.md are for these exact texts: an edit must be deliberate (then update
# the digest and re-run `python -m bench.quality --sets en-written`).
DIGESTS = {
    "en_conv_1.json": "9a46178d4d1a4414",
    "en_conv_2.json": "2e143db965a0e752",
    "en_conv_3.json": "f1be50539aa917e4",
    "en_conv_4.json": "480c8aff612a162d",
    "en_conv_5.json": "581772b79e845ba2",
    "en_conv_6.json": "b7949757ce5698fa",
    "zh_log_1.json": "4fc48dbbde079b05",
    "zh_log_2.json": "188eaa46a9ed76ba",
    "zh_log_3.json": "f723cd9ef20f020a",
    "zh_asked_1.json": "74149c5363567650",
    "zh_asked_2.json": "728e5c8319f408c8",
    "zh_asked_3.json": "f2ceb3b61fb751d7",
    "zh_asked_4.json": "d96d62228483c5ef",
    "zh_asked_5.json": "bfc4a8e38cf43cc4",
    "zh_asked_6.json": "82a23c2f895b936d",
    "zh_asked_7.json": "aa455eacbc9ef661",
    "zh_asked_8.json": "352013ec6ac91a08",
    "zh_asked_9.json": "06eeebea68427618",
}


def test_the_splits_share_no_file_and_every_file_is_in_one() -> None:
    dev, held = WRITTEN_SPLITS["dev"], WRITTEN_SPLITS["held-out"]
    assert not set(dev) & set(held) and not set(WRITTEN_LATE) & set(dev + held)
    logs = [name for names in WRITTEN_LOG_SPLITS.values() for name, _stamped in names]
    assert len(set(logs)) == len(logs)
    assert sorted(p.name for p in WRITTEN.glob("*.json")) == sorted(FILES + LOGS + list(WRITTEN_ASKED.values()))


@pytest.mark.parametrize("name", FILES)
def test_a_written_conversation_is_locomo_shaped(name: str) -> None:
    data = json.loads((WRITTEN / name).read_text(encoding="utf-8"))
    conv = data["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
    sessions = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1)
    assert sessions == list(range(1, len(sessions) + 1)) and len(sessions) >= 20
    dates = [datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y") for n in sessions]
    assert dates == sorted(dates)
    for n in sessions:
        turns = conv[f"session_{n}"]
        assert [t["dia_id"] for t in turns] == [f"D{n}:{k}" for k in range(1, len(turns) + 1)]
        assert {t["speaker"] for t in turns} == {a, b}
        assert all(t["text"].strip() for t in turns)
    assert conv["session_1"][0]["speaker"] == a
    cats = Counter(q["category"] for q in data["qa"])
    assert set(cats) == {1, 2, 3, 4} and min(cats.values()) >= 7, cats  # conv-26: 13 of 152 in category 3


@pytest.mark.parametrize("name", FILES)
def test_a_written_conversation_is_fed_as_conv26_is(name: str) -> None:
    conv = load_locomo(WRITTEN / name)
    assert 400 <= len(conv.history) <= 600
    assert {t["role"] for t in conv.history} == {"user", "assistant"}
    speakers = {t["content"].split(": ", 1)[0]: t["role"] for t in conv.history}
    assert len(speakers) == 2 and set(speakers.values()) == {"user", "assistant"}
    assert len(conv.questions) >= 70
    for q in conv.questions:
        assert q["evidence"] and all(e in conv.by_id for e in q["evidence"]), q
        assert q["answer"].strip(), q


@pytest.mark.parametrize("split", ["dev", "held-out"])
def test_the_set_has_its_split_s_two_conversations_without_sessions(split: str) -> None:
    ds = written_set(split)
    assert (ds.name, ds.split, len(ds.conversations)) == ("en-written", split, 2)
    assert all("session" not in t for c in ds.conversations for t in c.history)


def test_the_later_set_is_held_out_only_with_its_two_conversations() -> None:
    ds = written_late_set()
    assert (ds.name, ds.split, len(ds.conversations)) == ("en-written-2", "held-out", 2)
    assert all("session" not in t for c in ds.conversations for t in c.history)


_PREFIX = re.compile(r"^(?:\d{4}年\d{1,2}月\d{1,2}日 周.|【\d{1,2}月\d{1,2}日|\d{4}/\d{1,2}/\d{1,2}) ")


@pytest.mark.parametrize("name", LOGS)
def test_a_written_log_is_one_voice_stamped_and_in_time_order(name: str) -> None:
    data = json.loads((WRITTEN / name).read_text(encoding="utf-8"))
    turns = data["turns"]
    assert [t["id"] for t in turns] == [f"T{k}" for k in range(1, len(turns) + 1)]
    assert 400 <= len(turns) <= 600
    times = [datetime.fromisoformat(t["time"]) for t in turns]
    assert times == sorted(times)
    assert all(_PREFIX.match(t["content"]) for t in turns)
    kinds = Counter(q["category"] for q in data["questions"])
    assert set(kinds) == {"simple", "conditional", "comparative", "aggregative", "update", "noisy"}, kinds
    conv = load_written_log(WRITTEN / name, with_timestamps=True)
    assert {t["role"] for t in conv.history} == {"user"}
    assert all(t["timestamp"] == when for t, when in zip(conv.history, times))
    assert "timestamp" not in load_written_log(WRITTEN / name).history[0]
    for q in conv.questions:
        assert q["evidence"] and all(e in conv.by_id for e in q["evidence"]), q
        assert len(set(q["evidence"])) == len(q["evidence"]) and q["answer"].strip(), q


@pytest.mark.parametrize("split", ["dev", "held-out"])
def test_the_log_set_has_its_split_s_logs(split: str) -> None:
    ds = written_log_set(split)
    assert (ds.name, ds.split, len(ds.conversations)) == ("zh-written", split, len(WRITTEN_LOG_SPLITS[split]))


@pytest.mark.parametrize("name", FILES + LOGS + list(WRITTEN_ASKED.values()))
def test_the_written_files_are_the_ones_measured(name: str) -> None:
    digest = hashlib.sha256((WRITTEN / name).read_bytes()).hexdigest()[:16]
    assert digest == DIGESTS[name], "written conversation changed: update DIGESTS and the figures"


_STAMP = re.compile(r"^\[\d{4}年\d{2}月\d{2}日 周. \d{2}:\d{2} [^\]]+\] ")


def test_every_written_asked_set_can_be_picked_by_name() -> None:
    assert set(WRITTEN_ASKED) <= set(SET_NAMES)   # python -m bench.quality --sets NAME


@pytest.mark.parametrize("name", list(WRITTEN_ASKED))
def test_a_written_asked_log_is_one_voice_stamped_with_its_kinds(name: str) -> None:
    data = json.loads((WRITTEN / WRITTEN_ASKED[name]).read_text(encoding="utf-8"))
    turns = data["turns"]
    assert [t["id"] for t in turns] == [f"T{k}" for k in range(1, len(turns) + 1)]
    times = [datetime.fromisoformat(t["time"]) for t in turns]
    assert times == sorted(times) and all(_STAMP.match(t["content"]) for t in turns)
    kinds = Counter(q["category"] for q in data["questions"])
    assert set(kinds) <= {"simple", "noisy", "compound", "relational", "items", "counting", "computed"}, kinds
    ds = written_asked_set(name)
    assert (ds.name, ds.split) == (name, "held-out")
    (conv,) = ds.conversations
    for q in conv.questions:
        assert q["evidence"] and all(e in conv.by_id for e in q["evidence"]), q
