"""Turns said at length: every statement of a log wrapped in what people say around a fact (where they were,
what they were doing, how they feel about it), so that a turn costs 2-4 times the tokens and a budget holds a
third as many turns: the slot economy of long held-out logs (``zh-asked-long`` / ``en-asked-long``).

The wrapping draws from its own ``random.Random``: the log under it is the one its generator makes.
Every phrase is our own (CC0).
"""

from __future__ import annotations

import random
import re

from .model import Conversation
from .writer import options

__all__ = ["said_at_length"]


_LEADS = {
    "zh": options("今天在地铁上刷手机的时候突然想起来，|刚才下班路上雨下得特别大，在公交站等车的时候想到，|中午在公司楼下吃麻辣烫，顺便记一下，|"
             "晚上吃完火锅回到家，躺在沙发上想起一件事：|早上送完孩子去上学，回来的路上想到，|周末在家大扫除，收拾到一半突然想起来，|"
             "刚开完一个特别长的会，脑子有点乱，先记一下：|今天加班到九点多，外卖都凉了，随手记一笔：|在健身房跑步机上跑了半小时，边跑边想，|"
             "晚上跟家里人视频聊了挺久，聊着聊着说到，|排队买奶茶排了二十分钟，无聊的时候想起，|今天天气终于放晴了，心情不错，顺便说一下，|"
             "刚追完一集剧，困得不行，睡前记一下：|周末去公园散步，看到有人在放风筝，忽然想起，|在超市买菜的时候碰到熟人，聊了几句，说起来，|"
             "今天股票又跌了，心情一般，不过想起来一件事，|昨晚没睡好，今天一直迷迷糊糊的，刚想起来：|打车回家的路上堵了半个小时，无聊中想到，|"
             "午休的时候跟同组的人闲聊，聊到|收拾手机相册的时候翻到以前的照片，想起来|"),
    "en": options("Riding the subway home this evening I remembered that |It was pouring when I left work, and waiting for the bus I thought "
             "about how |Over lunch at the noodle place downstairs it came up that |Back from hotpot, lying on the couch, one more "
             "thing: |On the way back from the school run this morning I was thinking that |Halfway through cleaning the apartment "
             "this weekend it struck me that |After a very long meeting, just writing this down: |Worked late again and the takeout "
             "went cold, but for the record, |Thirty minutes on the treadmill and somewhere in there I thought about how |Long video "
             "call with my family tonight, and it came up that |Twenty minutes in line for bubble tea, so I was thinking that |"
             "The weather finally cleared up today, so in a good mood: |Just finished an episode and I'm half asleep, but "
             "noting that |Walking in the park this weekend I suddenly remembered that |Ran into someone at the grocery store and "
             "we got talking; anyway, |Stocks dropped again today, but one thing to note: |Didn't sleep well last night and I've "
             "been foggy all day, but |Stuck in traffic in a cab for half an hour, and it occurred to me that |Chatting with my "
             "team over the lunch break, we got onto how |Scrolling through old photos on my phone reminded me that "),
}
_TAILS = {
    "zh": options("想想还挺有意思的。|先记在这里，免得忘了。|说起来也好久没聊过这些了。|这事儿我之前一直没太在意。|回头有空再细说吧。|"
             "不知道为什么突然就想起来了。|感觉时间过得真快啊。|今天就先这样吧，有点累了。|下次见面的时候可以多聊聊。|"
             "希望下个月能轻松一点。|"),
    "en": options(" Funny how these things come back.| Writing it here so I don't forget.| Haven't talked about this in ages.| "
             "Never really paid attention to it before.| More on that some other time.| No idea why it popped into my head.| "
             "Time really flies.| That's it for today, I'm tired.| Should ask more about it next time we meet.| "
             "Hoping next month is calmer.|"),
}
_PREFIX = re.compile(r"^(\[[^\]]*\]\s*)?(.*)$", re.DOTALL)


def _wrap(text: str, lang: str, rng: random.Random) -> str:
    prefix, body = _PREFIX.match(text).groups()  # type: ignore[union-attr]
    lead, tail = rng.choice(_LEADS[lang]), rng.choice(_TAILS[lang])
    if lang == "en" and body[:1].isupper() and not body.startswith(("I ", "I'")) and lead.endswith(" "):
        body = body[:1].lower() + body[1:]
    return f"{prefix or ''}{lead}{body}{tail}"


def said_at_length(conv: Conversation, lang: str, seed: int) -> Conversation:
    """``conv`` with every turn's statement wrapped in a lead-in and a closing remark (time-and-place prefix
    kept in front); evidence ids are unchanged, ``by_id`` follows the new texts."""
    rng = random.Random(f"wordy-{lang}-{seed}")
    history = [dict(t, content=_wrap(t["content"], lang, rng)) for t in conv.history]
    by_id = {t["id"]: t["content"] for t in history if "id" in t}
    return Conversation(history, {k: by_id[k] for k in conv.by_id}, conv.questions)
