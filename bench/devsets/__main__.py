"""Print one generated history with its questions: ``python -m bench.devsets memlog zh 1``,
``python -m bench.devsets memlog-hard zh 1``, ``python -m bench.devsets dialogue 1``, ``python -m bench.devsets log en 2``,
``python -m bench.devsets daily zh 1``, ``python -m bench.devsets longchat 1``, ``python -m bench.devsets diary 1``,
``python -m bench.devsets reunion 1``, ``python -m bench.devsets lifelog 1``."""

from __future__ import annotations

import sys

from .daily_logs import generate_daily_log
from .dialogues import generate_dialogue
from .diary_logs import generate_diary_log
from .life_logs import generate_life_log
from .long_chats import generate_long_chat
from .memlogs import HARD, LANGS, generate_memlog
from .model import Conversation
from .reunion_chats import generate_reunion_chat
from .statement_logs import generate_log

USAGE = ("usage: python -m bench.devsets memlog {zh,en} SEED | memlog-hard {zh,en} SEED | dialogue SEED | "
         "log {zh,en} SEED | daily {zh,en} SEED | longchat SEED | diary SEED | reunion SEED | lifelog SEED")


def _build(args: list[str]) -> Conversation:
    """The conversation ``args`` name; ValueError with the usage line when they name none."""
    if len(args) == 3 and args[0] == "memlog-hard" and args[1] in LANGS and args[2].isdigit():
        return generate_memlog(args[1], int(args[2]), difficulty=HARD)
    if len(args) == 3 and args[0] in ("memlog", "log", "daily") and args[1] in LANGS and args[2].isdigit():
        if args[0] == "daily":
            return generate_daily_log(args[1], int(args[2]))
        make = generate_memlog if args[0] == "memlog" else generate_log
        return make(args[1], int(args[2]))
    one_seed = {"dialogue": generate_dialogue, "longchat": generate_long_chat, "diary": generate_diary_log,
                "reunion": generate_reunion_chat, "lifelog": generate_life_log}
    if len(args) == 2 and args[0] in one_seed and args[1].isdigit():
        return one_seed[args[0]](int(args[1]))
    raise ValueError(USAGE)


def main(argv: list[str]) -> int:
    try:
        conv = _build(argv)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    for turn in conv.history:
        print(turn["id"], turn["content"])
    for q in conv.questions:
        print(f"[{q['category']}] {q['question']} -> {q['answer']} :: {[conv.by_id[e] for e in q['evidence']]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
