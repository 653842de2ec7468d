"""Scoring reused across calls (a history that grows or slides) gives the scores a fresh analysis
gives, and link analysis reads the text, not time prefixes."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from context.select.signals import links as L
from context.select.signals.links import link_structure, spread_along_links
from context.select.relevance import LexicalScorer, lexical_relevance, plain_bm25, scorer_for, terms_of

# bench/ is not an installed package; `python -m pytest` finds it from the repo root, plain `pytest` not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.devsets.statement_logs import generate_log  # noqa: E402

WORDS = ("deploy pipeline staging cache rollback quota backfill migration index schema lunch "
         "painting pottery lake camping guitar").split()


def _history(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))) + f" #{i % 7}" for i in range(n)]


def _same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) < 1e-9 for x, y in zip(a, b))


def test_a_reused_scorer_scores_a_growing_sliding_or_cut_history_like_a_fresh_one():
    texts = _history(400, 1)
    rng = random.Random(2)
    lo, hi = 0, 120
    queries = [{"deploy": 1.0, "staging": 0.5}, {"pottery": 1.0, "lake": 1.0, "nothing": 1.0}]
    for step in range(80):
        r = rng.random()
        if r < 0.5:
            hi += rng.randint(1, 3)          # the session grows
        elif r < 0.8:
            lo, hi = lo + 1, hi + 1          # a window that slides
        else:
            hi -= 1                          # the newest turn was taken back
        extra = [f"tool output {step} deploy failed"] * rng.randint(0, 2)
        now = texts[lo:hi] + extra
        growing = hi - lo
        if step % 3 == 0:
            # The caller's last turn is one the next call will not send (the question as a turn).
            now = texts[lo:hi] + [f"a new question {step} about pottery"] + extra
            growing += 1
        reused = scorer_for(now, growing=growing)
        fresh = LexicalScorer([terms_of(t) for t in now])
        assert reused.n == fresh.n == len(now)
        for q in queries:
            assert _same(reused.bm25(q), fresh.bm25(q)), (step, q)
            assert _same(reused.coverage(list(q)), fresh.coverage(list(q))), (step, q)
            assert [reused.df(t) for t in q] == [len(fresh.postings(t)) for t in q]


def test_relevance_of_a_history_seen_before_matches_the_first_analysis():
    texts = _history(300, 3)
    first = lexical_relevance("staging deploy rollback", texts)
    plain = plain_bm25("staging deploy rollback", texts)
    scorer_for(_history(50, 4))            # something else in between
    assert lexical_relevance("staging deploy rollback", list(texts)) == first
    assert plain_bm25("staging deploy rollback", list(texts)) == plain
    # A turn edited in the middle is a different history, not a stale hit.
    edited = list(texts)
    edited[100] = "completely different words here"
    assert lexical_relevance("staging deploy rollback", edited) == lexical_relevance(
        "staging deploy rollback", edited, growing=0)


def test_time_prefixes_do_not_link_a_log_of_unrelated_statements():
    # Neighbours in a log share hours and minutes because time runs forward, nothing else: the
    # generated statement logs (bench/devsets) had a prior of 0.15-0.22 from them alone.
    for lang in ("en", "zh"):
        for seed in (1, 2, 3):
            log = generate_log(lang, seed)
            _links, prior = link_structure([t["content"] for t in log.history], ["user"] * len(log.history))
            assert prior < 0.05, (lang, seed, prior)


def test_a_dialogue_links_questions_to_their_answers():
    texts = []
    for k in range(60):
        texts += [f"A: did you finish the race number {k}?", f"B: yes, in {50 + k} minutes"]
    links, prior = link_structure(texts, ["user", "assistant"] * 60)
    assert all(links[i] >= 0.5 for i in range(0, len(links), 2))


def test_link_analysis_of_a_growing_history_stays_close_to_a_fresh_one():
    texts = _history(300, 5)
    roles = ["user", "assistant"] * 150
    for hi in range(200, 300, 7):
        kept, kept_prior = link_structure(texts[:hi], roles[:hi])
        saved = dict(L._states)
        L._states.clear()
        try:
            fresh, fresh_prior = link_structure(texts[:hi], roles[:hi])
        finally:
            L._states.clear()
            L._states.update(saved)
        assert abs(kept_prior - fresh_prior) < 0.05
        # Statistics at most REFRESH_GROWTH old move a few rarity thresholds, no more.
        assert sum(abs(a - b) > 0.05 for a, b in zip(kept, fresh)) <= 0.05 * len(fresh)


def test_neighbours_reinforce_each_other_only_as_much_as_the_prior_allows():
    scores = [0.0, 0.8, 0.8, 0.0]
    links = [1.0, 1.0, 1.0]
    full = spread_along_links(scores, links, weight=0.5, window=1)
    none = spread_along_links(scores, links, weight=0.5, window=1, reinforce=0.0)
    assert full[1] == 0.8 + 0.5 * 0.8          # two matching turns lift each other (a dialogue)
    assert none[1] == 0.8                        # in a log they do not
    assert none[0] == full[0] == 0.4             # a turn with nothing still inherits its neighbour's


def test_a_question_with_an_aside_is_still_answered_by_the_next_speaker():
    # Issue 14: people ask and then add an aside; the "?" need not end the turn. The reply
    # links fully whatever the history's prior (asides repeated across a conversation pull it down).
    texts = []
    for k in range(40):
        texts += [f"A: did you finish the race number {k}? Anyway, the weather is awful again.",
                  f"B: yes, in {50 + k} minutes, and I did not walk once", f"A: I planted tomatoes {k}",
                  f"B: Jealous! Which kind {k}?"]
    links, _prior = link_structure(texts, ["user", "assistant"] * 80)
    assert all(links[i] == 1.0 for i in range(0, len(links), 4))   # question with an aside -> reply
    assert all(links[i] == 1.0 for i in range(2, len(links), 4))   # statement -> the other asking back


def _scored(query: str, contents: list[str], roles: list[str]):
    from context import packets as P
    from context.select.profiles import PROFILES
    from context.select.scoring import score_packets
    from context.packets import Packet
    hist = [Packet(P.HISTORY, str(i), c, position=i, role=r) for i, (c, r) in enumerate(zip(contents, roles))]
    score_packets(hist, query, PROFILES["knowledge"])
    return hist


def _outranks_only_with(monkeypatch, switch: str, off: object, query: str, contents: list[str], turn: int,
                        rivals: list[int]) -> None:
    """In a log of one voice, ``turn`` outranks every rival, and no longer does with ``switch`` set to ``off``."""
    hist = _scored(query, contents, ["user"] * len(contents))
    assert hist[turn].relevance > max(hist[r].relevance for r in rivals)
    monkeypatch.setattr(switch, off)
    hist = _scored(query, contents, ["user"] * len(contents))
    assert hist[turn].relevance <= max(hist[r].relevance for r in rivals)


def test_a_question_naming_one_speaker_prefers_that_speakers_turns(monkeypatch):
    contents, roles = [], []
    for k in range(30):
        contents += [f"Melanie: I went to pottery class number {k}", f"Caroline: Melanie, pottery class {k}!"]
        roles += ["user", "assistant"]
    hist = _scored("What did Melanie do at pottery class?", contents, roles)
    mel = [p.relevance for p in hist if p.content.startswith("Melanie")]
    car = [p.relevance for p in hist if p.content.startswith("Caroline")]
    assert min(mel) > max(car)
    # Naming both speakers weighs no one down: the same scores as with the weighting off.
    both = [p.relevance for p in _scored("What did Melanie and Caroline do at pottery class?", contents, roles)]
    monkeypatch.setattr("context.select.scoring.SPEAKER_WEIGHT", 1.0)
    unweighted = [p.relevance for p in _scored("What did Melanie and Caroline do at pottery class?", contents, roles)]
    assert both == unweighted
    # Off, the other speaker's turns (which name Melanie too) would not all rank below hers.
    hist = _scored("What did Melanie do at pottery class?", contents, roles)
    assert max(p.relevance for p in hist if p.content.startswith("Caroline")) > min(
        p.relevance for p in hist if p.content.startswith("Melanie"))


def test_a_speaker_given_as_the_turns_name_counts_as_a_name_prefix_does(monkeypatch):
    """A caller may pass who spoke in each turn's ``name`` rather than a "Name:" prefix: a question
    naming one speaker prefers that speaker's turns all the same (through build_context's gather)."""
    from context import build_context
    history = []
    for k in range(30):
        history += [{"role": "user", "name": "Melanie", "content": f"I went to pottery class number {k}"},
                    {"role": "assistant", "name": "Caroline", "content": f"Melanie, pottery class {k}!"}]

    def relevance(weight: float) -> tuple[list[float], list[float]]:
        monkeypatch.setattr("context.select.scoring.SPEAKER_WEIGHT", weight)
        res = build_context("What did Melanie do at pottery class?", history=history, max_tokens=4000,
                            reserve_ratio=0, include_notes=False, include_memory=False)
        by_id = {int(s["id"].rsplit("-", 1)[-1]): s["relevance"] for s in res.to_dict()["selected"]
                 if s["source"] == "history"}
        return [by_id[i] for i in range(0, 60, 2)], [by_id[i] for i in range(1, 60, 2)]

    mel, car = relevance(0.4)
    assert min(mel) > max(car)
    mel, car = relevance(1.0)  # off: Caroline's turns (which name Melanie too) are not all below hers
    assert max(car) > min(mel)


def test_speakers_named_in_one_role_answer_each_other():
    """A group chat in one role with speakers given as ``name``: Bob's reply to Ann's question is linked to it
    (and the question is not taken for an unanswered one), as it would be between two roles."""
    from context import build_context
    history = []
    for k in range(20):
        history += [{"role": "user", "name": "Ann", "content": f"I watered the garden patch number {k}"},
                    {"role": "user", "name": "Bob", "content": f"The weather was mild on day {k}"}]
    history[20:20] = [{"role": "user", "name": "Ann", "content": "Where did you leave the canoe paddle?"},
                      {"role": "user", "name": "Bob", "content": "Behind the shed, under the tarp."}]
    res = build_context("Where is the canoe paddle?", history=history, max_tokens=4000, reserve_ratio=0,
                        include_notes=False, include_memory=False)
    rel = {int(s["id"].rsplit("-", 1)[-1]): s["relevance"] for s in res.to_dict()["selected"]
           if s["source"] == "history"}
    far = [r for i, r in rel.items() if abs(i - 20) > 3 and i != len(history) - 1]  # the last: recency
    assert rel[21] >= 0.5 > max(far)  # linked as a reply (was 0: one speaker, nothing spread to it)


def test_an_unanswered_question_in_a_log_counts_less_than_a_statement():
    contents = [f"09:{k:02d} home: my neighbour walks the dog number {k}" for k in range(30)]
    contents[10] = "09:10 home: someone asked me: what does my uncle do for work? I could not remember."
    contents[20] = "09:20 home: my uncle works as a head chef for work"
    hist = _scored("What does my uncle do for work?", contents, ["user"] * 30)
    assert hist[20].relevance > hist[10].relevance


def test_a_turn_that_refers_back_speaks_of_the_turn_before_it():
    texts = ["09:01 home: My sister has a parakeet.", "09:02 home: She spammed the group chat.",
             "09:03 home: Her family still lives in Fresno.", "09:04 home: The wifi dropped again.",
             "Ann: I met my brother.", "Bob: He is nice?", "Bob: They said so."]
    assert L.antecedents(texts, ["user"] * 4 + ["user", "assistant", "assistant"]) == [-1, 0, 0, -1, -1, -1, -1]
    assert L.refers_back("2024年11月14日 16:25，上海市徐汇区，商场：她现在当记者。")
    assert not L.refers_back("09:05 home: I told her about Therapy.")


def test_stamps_are_neither_clause_openings_nor_speakers():
    # A pronoun right after a bracketed stamp opens the statement; no clause mark precedes it.
    assert L.refers_back("【11月9日 21:31 · 家里】她今年六十六了，身体还特别硬朗。")
    assert L.refers_back("[May 3, 2023 10:00] He moved to Fresno.")
    assert not L.refers_back("【11月9日 21:30 · 家里】下楼扔垃圾碰到张阿姨，聊了几句。")
    # Text before a stamp's clock colon is no speaker's name ("10/22（周二）14" was one, every hour its own).
    for stamped in ("10/22（周二）14:05 @家里 我叔叔说他们公司在裁员。", "2024-01-06T15:04 我叔叔是厨师。",
                    "10:00北京 我到了。", "[时间:2024-01-06 15:00] 我到了。"):
        assert L.speaker_of(stamped) == "", stamped
    assert L.speaker_of("Li: [May 3, 2023 10:00] She was born in Fresno.") == "Li"
    assert L.speaker_of("Caroline: hi") == "Caroline"
    # So a pronoun turn stamped an hour after the turn naming the person still follows it.
    texts = ["10/22（周二）14:55 @家里 昨天去小叔家蹭饭了。", "10/22（周二）15:02 @家里 他今年四十七岁。"]
    assert L.antecedents(texts, ["user", "user"]) == [-1, 0]


def test_a_pronoun_turn_matches_the_question_through_the_person_it_refers_to(monkeypatch):
    # Many turns name the coworker; the one fact about where he grew up says only "He". Measured as in a
    # conversation, with neighbours lending (a log of one voice has them off: LOG_NEIGHBOUR_SHARE).
    monkeypatch.setattr("context.select.scoring.LOG_NEIGHBOUR_SHARE", 1.0)
    contents = [f"09:{k:02d} office: My coworker Noah sent me {k} funny videos." for k in range(40)]
    contents[20] = "10:20 office: My coworker Noah called me in the evening."
    contents[21] = "10:21 office: He was born and raised in Fresno."
    contents += [f"11:{k:02d} park: My neighbour Tess was born and raised in town {k}." for k in range(5)]
    query = "Where was my coworker Noah born and raised?"
    hist = _scored(query, contents, ["user"] * len(contents))
    inherited = hist[21].relevance
    assert inherited > max(p.relevance for p in hist[40:])     # above other people's birthplaces
    monkeypatch.setattr("context.select.scoring.ANTECEDENT_WEIGHT", 0.0)
    hist = _scored(query, contents, ["user"] * len(contents))
    assert hist[21].relevance < max(p.relevance for p in hist[40:])


def _corgi_log() -> tuple[list[str], str]:
    # Lola's car shares no word with the question but her name with the turn the question points at.
    contents = [f"Fri 15 Nov, 09:{k:02d}, park: My friend Tess walked to the shops." for k in range(12)]
    contents += [f"Fri 15 Nov, 10:{k:02d}, home: The neighbour's {k} cats were loud again." for k in range(40)]
    contents[30] = "Fri 15 Nov, 10:30, home: My friend Lola keeps a corgi called Biscuit."
    contents[45] = "Sat 16 Nov, 11:45, office: Lola got herself a red Polo."
    return contents, "What car does my friend who keeps a corgi drive?"


def test_a_conditional_question_hops_from_its_anchor_turn_to_the_name_it_holds(monkeypatch):
    contents, query = _corgi_log()
    hist = _scored(query, contents, ["user"] * len(contents))
    assert hist[45].relevance > max(p.relevance for p in hist[:12])   # above other friends' turns
    monkeypatch.setattr("context.select.scoring.SECOND_HOP", False)
    hist = _scored(query, contents, ["user"] * len(contents))
    assert hist[45].relevance < max(p.relevance for p in hist[:12])


def test_the_second_hop_links_by_names_beyond_the_question_and_only_in_logs_of_one_voice():
    from context.select.signals.hop import link_terms
    from context.select.signals.stamps import body_of
    assert body_of("2024年2月1日 07:09，上海市徐汇区，公园：我朋友郭晶是绍兴人。") == "我朋友郭晶是绍兴人。"
    assert body_of("Fri 15 Nov 2024, 07:17, my desk, Hackney, London: My cousin Glen left.") == "My cousin Glen left."
    # Capitalised words inside a sentence; CJK bigrams touching no character of the question.
    assert link_terms("09:30 home: My friend Lola keeps a corgi. Biscuit barks.", "Who keeps a corgi?") == ["lola"]
    assert "郭晶" in link_terms("上海，公园：我朋友郭晶是绍兴人。", "我那个绍兴来的朋友口味上偏爱什么？")
    assert not {"友郭", "绍兴", "兴人"} & set(link_terms("上海，公园：我朋友郭晶是绍兴人。", "我那个绍兴来的朋友口味上偏爱什么？"))
    contents, query = _corgi_log()
    hist = _scored(query, contents, ["user", "assistant"] * (len(contents) // 2))
    assert hist[45].relevance < max(p.relevance for p in hist[:12])  # a dialogue: no hop


def test_a_stamp_prefix_ends_where_the_statement_starts_whatever_closes_it():
    from context.select.signals.stamps import body_of
    assert body_of("2023年11月2日 周四 21:41，在沙发上。小姨养了一只英短猫，上次聊天时提到的。") == "小姨养了一只英短猫，上次聊天时提到的。"
    assert body_of("[6月10日 周六 12:29｜朋友家] 10月13日是我姐夫建国的生日。") == "10月13日是我姐夫建国的生日。"
    assert body_of("2/25（周日）07:02 @家里 我爷爷发消息问我到家没有。") == "我爷爷发消息问我到家没有。"
    assert body_of("2023-05-16 周二 22:41 在阳台：一起长大的朋友老家是陕西汉中的。") == "一起长大的朋友老家是陕西汉中的。"
    assert body_of("【2024年7月14日 周日 23:10 · 上海市虹口区 · 小区花园】同事老杜开的是本田思域。") == "同事老杜开的是本田思域。"
    assert body_of("Aug 18, 2024, 8:26 AM, Pearl District, Portland, at my desk: My great-uncle loves lasagna.") \
        == "My great-uncle loves lasagna."
    # No place: the statement starts after the clock, and its own full stop does not end a prefix.
    assert body_of("2024-05-06 10:33 我同事老家在江西景德镇。") == "我同事老家在江西景德镇。"
    # A stamp's place is short and before the statement's own sentences (review: these lost their first one).
    assert body_of("2024-05-06 10:33 我客户何哥的爱好是打台球。他每周都去。") == "我客户何哥的爱好是打台球。他每周都去。"
    assert body_of("Aug 18, 2024, 8:26 AM My cousin Glen (the pilot) lives in Oslo.") \
        == "My cousin Glen (the pilot) lives in Oslo."
    assert body_of("Sunday 9:30 we met Jake at the Louvre. Then: lunch") == "we met Jake at the Louvre. Then: lunch"
    assert body_of("09:30 home: My friend Lola keeps a corgi.") == "My friend Lola keeps a corgi."
    # Other ways a log may stamp its turns: fields named, a clock in words, a place set off by spaces.
    for stamped in ("时间：2024年3月5日 10:00，地点：北京市海淀区。我叔叔是厨师长。",
                    "[时间: 2024-03-05 10:00:00][地点: 北京市海淀区] 我叔叔是厨师长。",
                    "（2024年3月5日 上午10点，北京）我叔叔是厨师长。", "2024年3月5日 晚上8点半 在家：我叔叔是厨师长。",
                    "2024-03-05T10:00:00 北京市海淀区 我叔叔是厨师长。", "2024年03月05日10:00 北京 我叔叔是厨师长。"):
        assert body_of(stamped) == "我叔叔是厨师长。", stamped
    assert body_of("Time: 2024-03-05 10:00; Place: Beijing. My uncle is a chef.") == "My uncle is a chef."
    assert body_of("3点钟我去了超市。") == "3点钟我去了超市。"  # a bare hour opens a statement, not a stamp
    # No stamp: a speaker's "Name:" goes, a colon later in the statement stays.
    assert body_of("Caroline: Hey Mel! Guess what: I passed.") == "Hey Mel! Guess what: I passed."
    assert body_of("我同事老家在江西景德镇。") == "我同事老家在江西景德镇。"


def test_a_stamp_takes_no_word_of_the_statement():
    """Review repros: each lost a word (or more) of its statement to the stamp before the fix."""
    from context.select.signals.stamps import body_of, without_stamp
    # Scripts with spaces between words: the first word is the statement's, not a place.
    for text in ("Сегодня я ходил в школу с братом.", "나는 오늘 학교에 갔다.", "Σήμερα πήγα στο σχολείο.",
                 "我买了 iPhone 15，很贵。", "今天见了 Tom，他说要搬家。"):
        assert body_of(f"2024-01-04 07:17 {text}") == text
    # An hour in words that the statement says: cut mid-word ("5点|钟"), or with no date before it.
    for text in ("2月3日 5点钟我就醒了。", "2024年3月1日 下午3点多我们去了公园。", "2024年3月1日 3点了，我还没睡。",
                 "3 个孩子都在 5点 放学。"):
        assert body_of(text) == text
    assert body_of("周五 10点 我叔叔来了。") == "我叔叔来了。"
    # A named place ends at its comma or full stop, not inside it ("St. Mary's").
    assert body_of("时间：2024年3月1日 10:00，地点：北京，我叔叔来了。") == "我叔叔来了。"
    assert body_of("Time: 10:30, location: St. Mary's church. I prayed there.") == "I prayed there."
    # A turn given a name is read as "Li: <stamp> statement": the stamp still goes, the name stays for links.
    assert body_of("Li: 2024年2月1日 07:09，上海市徐汇区，公园：我朋友郭晶是绍兴人。") == "我朋友郭晶是绍兴人。"
    assert without_stamp("Li: 2024年2月1日 07:09，上海市徐汇区，公园：我朋友郭晶是绍兴人。") == "Li: 我朋友郭晶是绍兴人。"
    assert without_stamp("Caroline: Hey Mel! Guess what: I passed.") == "Caroline: Hey Mel! Guess what: I passed."


def test_reading_a_stamp_is_linear_in_the_turn():
    """A hostile turn must not cost a quadratic regex backtrack (review: "10:00" and 2,000 spaces took 44 s
    in one pattern). Run in a child process so that a regression fails on its timeout instead of hanging."""
    import subprocess
    script = (
        "from context.select.signals.stamps import body_of, without_stamp\n"
        "n = 100_000\n"
        "for s in (' ' * n + 'x', '10:00' + ' ' * n + 'x', '10:00' + ' ' * n + '地点：x', ' [' + ' ' * n,\n"
        "          '时间：' + ' ' * n, '10:00]' + ' ' * n + 'x', '10:00 ,' + ' ' * n + 'location',\n"
        "          '1日上午' + ' ' * n + '1', '10:00 ' + '北 ' * (n // 2), 'Li: ' + ' ' * n + '10:00 x'):\n"
        "    body_of(s); without_stamp(s)\n")
    done = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True, text=True,
                          cwd=str(Path(__file__).resolve().parent.parent))
    assert done.returncode == 0, done.stderr


def _seated_log() -> list[str]:
    """A log of unrelated statements where the writer stays in one place for a few turns at a time:
    neighbours share the place of their prefix and nothing else."""
    rng = random.Random(5)
    places = [f"在{a}{b}" for a in "东西南北中" for b in ("书房", "阳台", "公园", "食堂", "车站", "超市", "茶馆", "球场")]
    things = ("买了一盆绿萝", "读完了一本小说", "晚饭吃了饺子", "把自行车修好了", "报名了游泳课", "给猫换了猫砂",
              "收到一个快递", "加班到很晚", "看了一场电影", "学会了做蛋糕", "换了新耳机", "整理了衣柜")
    out = []
    for k in range(400):
        place = places[(k // 5) % len(places)]
        out.append(f"2024年3月{1 + k // 100}日 周五 {8 + k % 100 // 10}:{k % 60:02d}，{place}。"
                   f"第{k}件事：{rng.choice(things)}。")
    return out


def test_turns_written_in_one_place_are_not_linked_by_the_place():
    """The place is where the writer sat, not what the turns are about: a log whose neighbours share
    only their prefix's place has no prior and no lexical links (it had both when the place counted)."""
    texts = _seated_log()
    links, prior = link_structure(texts, ["user"] * len(texts))
    assert prior == 0.0
    assert max(links) < 0.5


def uncovered_turns(query: str, texts: list[str], history: int, roles: list[str]) -> list[int]:
    """context.select.signals.coverage.uncovered_turns with the antecedents score_packets gives it."""
    from context.select.signals.coverage import uncovered_turns as uncovered
    return uncovered(query, texts, history, L.antecedents(texts[:history], roles[:history]))


def _busy_log() -> tuple[list[str], str]:
    """Everyone is busy ("空闲时间" in many turns); only one turn says what 何哥 does in his free time."""
    who = ("邻居", "老客户", "楼上的邻居", "我领导", "表妹", "同学", "健身房的朋友", "对门的阿姨")
    contents = [f"2024年11月{1 + k // 40}日 周二 {8 + k % 12}:{k % 60:02d}，公司：今天第{k}次开会，讨论了预算。" for k in range(200)]
    for k, w in enumerate(who):
        contents[10 + 20 * k] = f"2024年11月{1 + k // 2}日 周二 12:{k:02d}，地铁上：{w}说最近太忙，空闲时间都没了。"
    contents[57] = "2024年11月2日 周二 08:06，出租车上：我客户何哥的爱好是打台球。"
    contents[131] = "2024年11月4日 周四 19:20，家里：何哥托我给邻居带个东西。"
    contents[163] = "2024年11月5日 周五 09:12，公司：何哥说下周要出差。"
    return contents, "何哥空闲时间喜欢干嘛？"


def test_a_question_about_one_person_prefers_the_turns_that_name_the_person(monkeypatch):
    contents, query = _busy_log()
    assert set(range(200)) - set(uncovered_turns(query, contents, 200, ["user"] * 200)) == {57, 131, 163}
    _outranks_only_with(monkeypatch, "context.select.scoring.COVERAGE_WEIGHT", 1.0, query, contents, 57,
                        [10 + 20 * k for k in range(8)])


def test_coverage_reads_the_asking_clause_both_people_of_a_comparison_and_pronoun_turns():
    contents = [f"Mar 3, 2024, 9:{k % 60:02d} AM, office: Meeting number {k} ran long." for k in range(200)]
    said = {20: "My coworker Priya has a parakeet.", 21: "My coworker Priya called.", 22: "My coworker Priya left.",
            40: "My barber Sal will be 32 this year.", 41: "He is 5 foot 5 tall.", 42: "My barber Sal moved.",
            43: "My barber Sal was late.", 60: "My coworker Felix measured 6 foot 0 at the doctor's.",
            61: "My coworker Felix laughed.", 62: "My coworker Felix sneezed.",
            80: "Somebody at the meeting asked about lunch."}
    for k, text in said.items():
        contents[k] = f"Mar 3, 2024, 10:{k:02d} AM, office: {text}"
    roles = ["user"] * 200
    kept = set(range(200)) - set(uncovered_turns(
        "Somebody at the meeting asked me, what pet does my coworker Priya have?", contents, 200, roles))
    assert kept == {20, 21, 22}
    kept = set(range(200)) - set(uncovered_turns("Between my barber Sal and my coworker Felix, who is taller?",
                                                 contents, 200, roles))
    assert kept == {40, 41, 42, 43, 60, 61, 62}   # 41 refers back to Sal
    # A word most turns hold names no one in particular: nothing is set back.
    assert uncovered_turns("What did the meeting decide?", contents, 200, roles) == []
    # A Chinese clause opens with its person; words it asks about are no person (孙悦 is too rare to be one).
    zh = [f"2024年3月3日 周日 9:{k % 60:02d}，公司：第{k}次开会，空闲时间都没了。" for k in range(200)]
    zh[7] = "2024年3月3日 周日 9:07，公司：孙悦的爱好是打台球。"
    assert uncovered_turns("孙悦空闲时间喜欢干嘛？", zh, 200, roles) == []


def test_a_questions_aside_is_told_from_what_it_asks():
    from context.select.signals.asides import ASIDE_WEIGHT, aside_terms
    aside = aside_terms("我在地铁上刷短视频，看到一个挺有意思的，想起来建国哪天过生日？这个我之前肯定说过。")
    assert {"地铁", "视频", "肯定"} <= set(aside) and not {"建国", "生日"} & set(aside)
    assert set(aside.values()) == {ASIDE_WEIGHT}
    assert {"partner", "rememb"} <= set(aside_terms("My partner just asked, which phone does my coworker Andre use? "
                                                    "I can't quite remember."))
    # The people of a comparison, a lead that asks too, and a question with no mark are no aside.
    assert aside_terms("我邻居吕薇和我同事姚远，哪个年纪小一些？") == {}
    assert aside_terms("Between my barber and Felix, who is taller?") == {}
    assert aside_terms("Who went to Japan with Mateo, and what was the best part of the trip?") == {}
    assert aside_terms("what does my uncle do") == {}
    # Of several questions the one that says most is asked; a pronoun ties the lead to it; "St." ends nothing.
    assert set(aside_terms("Quick question? Which phone does my coworker Andre use?")) == {"quick", "question"}
    assert set(aside_terms("你好？我想问一下何哥空闲时间喜欢干嘛？")) == {"你好", "你", "好"}
    assert aside_terms("As for my coworker Andre, which phone does he use now?") == {}
    assert aside_terms("Did my uncle move to St. Louis in 2019?") == {}


def test_an_aside_no_longer_outvotes_the_two_words_that_matter(monkeypatch):
    chatter = ("地铁上人好多。", "刷了会儿手机。", "看到一个笑话，挺有意思的。", "短视频看多了眼睛疼。")
    contents = [f"2024年6月{10 + k // 50}日 周一 {8 + k % 12}:{k % 60:02d}，公司：第{k}份报表交了。" for k in range(200)]
    for k in range(12):
        contents[5 + 15 * k] = f"2024年6月11日 周二 {8 + k}:05，家里：{chatter[k % 4]}"
    contents[77] = "2024年6月12日 周三 12:29，朋友家：10月13日是我姐夫建国的生日。"
    contents[140] = "2024年6月13日 周四 18:47，家里：我姐夫建国说想找时间聚一聚。"
    contents[141] = "2024年6月13日 周四 18:49，家里：建国问我周末去不去钓鱼。"
    query = "我在地铁上刷短视频，看到一个挺有意思的，想起来建国哪天过生日？这个我之前肯定说过。"
    monkeypatch.setattr("context.select.scoring.UNTIMED_WEIGHT", 1.0)  # the date of 77 would lift it on its own
    _outranks_only_with(monkeypatch, "context.select.scoring.ASIDE_WEIGHT", 1.0, query, contents, 77,
                        [5 + 15 * k for k in range(12)])


def test_a_word_that_opens_the_question_is_a_person_only_if_the_log_has_it_own_or_say_something():
    zh = [f"2024年3月3日 周日 9:{k % 60:02d}，公司：第{k}次开会。" for k in range(200)]
    for k in (10, 30, 50, 70):
        zh[k] = f"2024年3月3日 周日 10:{k:02d}，公司：平时第{k}次去跑步。"
    zh[90] = "2024年3月3日 周日 11:30，公司：我开的是大众帕萨特。"
    roles = ["user"] * 200
    assert uncovered_turns("我平时开的是哪款车？", zh, 200, roles) == []
    for k in (110, 130, 150):
        zh[k] = f"2024年3月3日 周日 12:{k % 60:02d}，公司：小姨说第{k}次开会太长。"
    zh[170] = "2024年3月3日 周日 13:10，公司：小姨的猫叫年糕。"
    assert set(range(200)) - set(uncovered_turns("小姨养的猫叫什么？", zh, 200, roles)) == {110, 130, 150, 170}


def test_two_people_are_compared_only_when_a_word_joins_them():
    from context.select.signals.stretches import named_pair as _named_pair, question_tokens as _tokens
    toks = _tokens("我堂弟有什么爱好？")           # one person, then what is asked
    assert _named_pair(toks, [(1, 3), (6, 8)]) == []
    toks = _tokens("我堂弟和我表姐谁年纪大？")
    assert _named_pair(toks, [(1, 3), (5, 7)]) == [(1, 3), (5, 7)]


def test_a_question_in_the_first_person_prefers_the_speakers_own_statements(monkeypatch):
    contents = [f"Sun 21 Apr 2024, 9:{k % 60:02d}, the office, Carlton: Report {k} went out." for k in range(120)]
    for k, (who, at) in enumerate((("Sam", "lake"), ("Ann", "track"), ("Leo", "park"), ("Mia", "beach"))):
        contents[10 + 20 * k] = f"Sun 21 Apr 2024, 10:{k:02d}, the office, Carlton: {who} does exercise at the {at}."
    contents[95] = "Sun 21 Apr 2024, 11:51, the office, Carlton: I do exercise at the pool."
    _outranks_only_with(monkeypatch, "context.select.relevance.FIRST_PERSON_WEIGHT", 0.0, "Where do I exercise?", contents,
                        95, [10 + 20 * k for k in range(4)])


def test_in_a_dialogue_a_question_about_someone_else_prefers_the_turns_that_name_them(monkeypatch):
    """"How did Mochi recover after the accident?": turns that match the question's other words but not Mochi (Jonah's coral
    "recovery") count less; the speakers' own names are no such person (their turns say "I")."""
    contents, roles = [], []
    for k in range(40):
        contents += [f"Jonah: The reef survey {k} went fine.", f"Aiko: The bakery order {k} went out."]
        roles += ["user", "assistant"]
    contents[11] = "Aiko: Mochi slipped on the ice and hurt his leg, poor thing."
    contents[33] = "Aiko: Mochi is finally walking normally again."
    contents[57] = "Aiko: Mochi says hi."
    rivals = [20, 40, 60]
    for k in rivals:
        contents[k] = "Jonah: The coral can recover, slowly."
    query = "How did Mochi recover after the accident?"
    from context.select.signals.coverage import uncovered_turns as uncovered
    ante = L.antecedents(contents, roles)
    assert set(range(80)) - set(uncovered(query, contents, 80, ante, ["Jonah", "Aiko"])) == {11, 33, 57}
    # The clause that asks refers back to its lead's person ("..., and how did he recover?").
    lead = "What did Mochi go through after the accident, and how did he recover?"
    assert set(range(80)) - set(uncovered(lead, contents, 80, ante, ["Jonah", "Aiko"])) == {11, 33, 57}
    # A lead naming two people does not say which one "she" is.
    assert uncovered("Yesterday Mochi met Anna; what does she do for work?", contents, 80, ante, ["Jonah", "Aiko"]) == []
    # A question about a speaker sets no one back: their turns do not name them.
    assert uncovered("What did Aiko bake for the order?", contents, 80, ante, ["Jonah", "Aiko"]) == []
    hist = _scored(query, contents, roles)
    assert hist[11].relevance > max(hist[k].relevance for k in rivals)
    monkeypatch.setattr("context.select.scoring.DIALOGUE_COVERAGE", False)
    off = _scored(query, contents, roles)
    assert off[11].relevance <= max(off[k].relevance for k in rivals)
    # A chat whose speakers are not known (no "Name:" openings): the user, addressed by name, says "I".
    plain = [c.split(": ", 1)[1] for c in contents]
    without = [p.relevance for p in _scored(query, plain, roles)]
    monkeypatch.setattr("context.select.scoring.DIALOGUE_COVERAGE", True)
    assert [p.relevance for p in _scored(query, plain, roles)] == without


def _mother_in_law_log() -> list[dict[str, str]]:
    """Meetings with times, and a mother-in-law's hobby (no time), birthday and visits (with times)."""
    turns = [f"今天{h}点和同事开会，讨论了第{k}个方案。" for k, h in zip(range(40), [9, 10, 11, 14, 15] * 8)]
    facts = ["岳母现在迷上了跳广场舞。", "岳母的生日是11月8日。"] + [f"岳母{d}号下午{h}点来家里坐了坐。"
                                                        for d, h in ((3, 2), (5, 4), (9, 3), (12, 5))]
    out: list[str] = []
    for k, t in enumerate(turns):
        out.append(t)
        if k % 6 == 0 and facts:
            out.append(facts.pop(0))
    return [{"role": "user", "content": t} for t in out + facts]


def test_a_turn_without_a_time_is_not_held_back_for_the_question_that_does_not_ask_when():
    from context import build_context
    # Of "岳母有什么爱好？另外，她的生日是哪天？" only the second asks when: the hobby (no time in it) is still the first's.
    r = build_context("岳母有什么爱好？另外，她的生日是哪天？", history=_mother_in_law_log(), max_tokens=80, reserve_ratio=0,
                      include_notes=False, include_memory=False)
    assert "广场舞" in r.context and "11月8日" in r.context


def test_a_count_of_an_asked_shape_reaches_every_statement_holding_one(monkeypatch):
    # "我记下过几个人的手机号？": the turns that note a number say 电话 / 新号 / nothing, rarely 手机号; each one counts.
    contents = [f"[2024年10月{1 + k % 28:02d}日 周二 09:{k % 60:02d} 四川成都] 今天第{k}次去菜场，买了点青菜和豆腐。"
                for k in range(120)]
    said = {10: "许曼的手机号换了，新号13980452217，先记在这儿。", 30: "房东的电话记一下：13808176623，水电出问题直接找他。",
            50: "江涛发来他的电话，13761205598，说下午来找我。", 70: "Coco把她的新号发给我了，15828093361。",
            90: "手机屏幕摔裂了，换个手机壳。", 100: "手机号码这种事我总是记不住。"}
    for k, text in said.items():
        contents[k] = f"[2024年10月{1 + k % 28:02d}日 周二 10:{k % 60:02d} 四川成都] {text}"
    hist = _scored("我记下过几个人的手机号？", contents, ["user"] * len(contents))
    numbers = [10, 30, 50, 70]
    assert min(hist[k].relevance for k in numbers) > max(hist[k].relevance for k in (90, 100))
    monkeypatch.setattr("context.select.scoring.SHAPE_BREADTH", 0.0)
    hist = _scored("我记下过几个人的手机号？", contents, ["user"] * len(contents))
    assert min(hist[k].relevance for k in numbers) < max(hist[k].relevance for k in (90, 100))
