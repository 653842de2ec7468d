"""Daily statement logs: an independently written generator of MemDaily-style histories (``zh-daily`` /
``en-daily``).

Written from a short description of the held-out logs only, without looking at the context builder
or at the other log generators, so that a gain measured here is not a gain tuned for. One history:

- about 40 threads of one user's short statements (persons introduced by relation and sometimes by
  name, the user's own things, plain daily-life remarks) cut into bursts of 1-4 turns and
  interleaved over 5-7 days; every turn is role ``user`` and starts with its time and place
  ("2024年3月5日 09:12，上海市徐汇区，地铁上：" / "Mar 5, 2024, 9:12 AM, Capitol Hill, Seattle, on the bus: ");
- several persons of one kind (colleagues, friends, classmates, neighbours) with different facts,
  each fact stated once (job, hometown, age, birthday, hobby, phone, car, pet, school, company,
  favourite food, height), some facts later updated, a person sometimes named by name alone or by
  a pronoun inside a burst, and statements that mention a person or an attribute without the fact;
- questions of six categories: ``single`` (one fact), ``noisy`` (one fact, asked with extra
  words), ``conditional`` (a fact of the person picked out by another of their facts: two evidence
  turns), ``comparison`` (two persons, two turns), ``count`` (how many of a group satisfy a
  condition: every contributing turn is evidence), ``update`` (only the latest statement is the
  evidence; the older ones are listed as ``superseded``).

The answer of a question is its value, or for comparisons and counts "main (fact; fact)": every
fact in the brackets is in the statement part of an evidence turn (see ``answer_facts``).

Licence: every template, word list and value table in this module is our own, written for this
project, and dedicated to the public domain (CC0 1.0). No outside data is used.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from datetime import datetime

from .model import Conversation, DevSet, Question
from .writer import LogWriter, cap, day_times, interleave, question, seeded_set, stamp

__all__ = ["HISTORIES_PER_SEED", "answer_facts", "daily_log_set", "generate_daily_log", "statement_of"]

HISTORIES_PER_SEED = 3


# --------------------------------------------------------------------------------------------- values

@dataclass(frozen=True)
class Val:
    """A value: ``v`` as it is written in a statement, ``s`` the short form (the answer, always
    inside ``v``), ``tag`` a class for count conditions, ``num`` an order for comparisons."""

    v: str
    s: str = ""
    tag: str = ""
    num: int = 0

    @property
    def short(self) -> str:
        return self.s or self.v


def _vals(items: Sequence[str | tuple[str, ...]]) -> list[Val]:
    out = []
    for it in items:
        if isinstance(it, str):
            out.append(Val(it))
        else:
            v, s, tag = (tuple(it) + ("", ""))[:3]
            out.append(Val(v, s, tag))
    return out


@dataclass
class AttrText:
    """One attribute's templates in one language: statements, update statements, questions,
    near misses (the attribute talked about without its value) and the conditional phrase."""

    say: list[str]
    ask: list[str]
    near: list[str]
    cond: str = ""
    update: list[str] = field(default_factory=list)
    ask_now: list[str] = field(default_factory=list)
    self_say: list[str] = field(default_factory=list)
    self_ask: list[str] = field(default_factory=list)


@dataclass
class Lang:
    code: str
    values: dict[str, list[Val]]
    attrs: dict[str, AttrText]
    names: list[tuple[str, str]]                    # (name, "m" / "f")
    family: list[tuple[str, str, str]]              # (kind, gender or "", descriptive alternative)
    elders: list[str]
    singles: list[str]                              # other one-of-a-kind persons
    kin: list[tuple[str, str]]                      # relations to another person, and gender
    groups: dict[str, int]                          # named kinds and their upper size
    neighbours: list[tuple[str, str]]               # (reference, alternative)
    group_word: dict[str, str]                      # kind -> the word a count question uses
    intro_named: list[str]
    intro_single: list[str]
    filler: list[str]
    pair: list[str]                                 # remarks about two persons ({ref}, {ref2})
    noise: list[str]
    noise_parts: tuple[list[str], list[str]]
    ask_prefix: list[str]
    ask_suffix: list[str]
    counts: list[tuple[str, str, str]]              # (attr, tag, question template with {g})
    compare: dict[str, list[str]]                   # attr -> templates with {a} {b}
    same_place: list[str]
    yes_no: tuple[str, str]
    cities: list[tuple[str, list[str]]]
    spots: list[str]
    prefix: str                                     # a writer.stamp template of {city}, {district}, {spot}
    pronoun: dict[str, str]                         # gender -> subject pronoun
    possessive: dict[str, str]                      # gender -> possessive pronoun
    facts: Callable[[str, list[str]], str]          # main, facts -> answer text


_ZH_PREFIX = "{year}年{month}月{day}日 {hh:02d}:{mm:02d}，{city}{district}，{spot}："
_EN_PREFIX = "{monthname} {day}, {year}, {h12}:{mm:02d} {ampm}, {district}, {city}, {spot}: "


ZH = Lang(
    code="zh",
    values={
        "job": _vals(["厨师长", "中学语文老师", "出租车司机", "软件工程师", "儿科护士", "律师", "会计", "牙医", "消防员",
                      "快递员", "建筑设计师", "银行柜员", "记者", "婚礼摄影师", "药剂师", "电工", "公务员", "产品经理",
                      "外卖骑手", "大学教授", "瑜伽老师", "保险销售", "兽医", "飞行员", "列车长", "心理咨询师",
                      "房产中介", "理发师", "幼儿园老师", "急诊科医生"]),
        "hometown": _vals([("黑龙江哈尔滨", "哈尔滨", "ne"), ("黑龙江齐齐哈尔", "齐齐哈尔", "ne"), ("吉林长春", "长春", "ne"),
                           ("吉林延吉", "延吉", "ne"), ("辽宁沈阳", "沈阳", "ne"), ("辽宁大连", "大连", "ne"),
                           ("辽宁鞍山", "鞍山", "ne"), ("四川成都", "成都"), ("四川绵阳", "绵阳"), ("湖南长沙", "长沙"),
                           ("湖南岳阳", "岳阳"), ("广东潮州", "潮州"), ("广东佛山", "佛山"), ("浙江温州", "温州"),
                           ("浙江绍兴", "绍兴"), ("山东青岛", "青岛"), ("山东烟台", "烟台"), ("江苏扬州", "扬州"),
                           ("河南洛阳", "洛阳"), ("陕西宝鸡", "宝鸡"), ("云南大理", "大理"), ("福建泉州", "泉州"),
                           ("湖北宜昌", "宜昌"), ("安徽芜湖", "芜湖"), ("广西桂林", "桂林"), ("江西赣州", "赣州"),
                           ("山西大同", "大同"), ("河北保定", "保定"), ("甘肃天水", "天水"), ("贵州遵义", "遵义")]),
        "hobby": _vals(["钓鱼", "打羽毛球", "跑马拉松", "下围棋", "弹吉他", "拍风景照", "爬山", "养多肉", "做烘焙",
                        "打篮球", "游泳", "练书法", "唱京剧", "跳广场舞", "玩剧本杀", "骑行", "打乒乓球", "看话剧",
                        "露营", "滑雪", "做陶艺", "拼乐高"]),
        "phone": _vals([("华为Mate60", "", "华为"), ("华为P60", "", "华为"), ("苹果iPhone15", "", "苹果"),
                        ("苹果iPhone14 Pro", "", "苹果"), ("小米14", "", "小米"), ("OPPO Find X7", "", "OPPO"),
                        ("vivo X100", "", "vivo"), ("荣耀Magic6", "", "荣耀"), ("三星Galaxy S24", "", "三星"),
                        ("一加12", "", "一加")]),
        "car": _vals([("比亚迪汉", "", "ev"), ("特斯拉Model 3", "", "ev"), ("大众帕萨特", "", ""), ("丰田凯美瑞", "", ""),
                      ("本田雅阁", "", ""), ("理想L7", "", "ev"), ("宝马3系", "", ""), ("五菱宏光", "", ""),
                      ("蔚来ET5", "", "ev"), ("吉利星越", "", ""), ("奥迪A6", "", ""), ("小鹏P7", "", "ev")]),
        "pet": _vals([("一只橘猫", "橘猫", "cat"), ("一条金毛", "金毛", "dog"), ("一只柯基", "柯基", "dog"),
                      ("一只布偶猫", "布偶猫", "cat"), ("两只仓鼠", "仓鼠", ""), ("一只虎皮鹦鹉", "虎皮鹦鹉", ""),
                      ("一只泰迪", "泰迪", "dog"), ("一缸金鱼", "金鱼", ""), ("一只巴西龟", "巴西龟", ""),
                      ("一只哈士奇", "哈士奇", "dog"), ("一只英短蓝猫", "英短蓝猫", "cat"), ("一只垂耳兔", "垂耳兔", "")]),
        "school": _vals(["北京大学", "复旦大学", "浙江大学", "武汉大学", "中山大学", "四川大学", "南京大学", "厦门大学",
                         "哈尔滨工业大学", "同济大学", "山东大学", "华中科技大学", "西安交通大学", "湖南大学"]),
        "company": _vals(["华为", "腾讯", "阿里巴巴", "字节跳动", "中国银行", "国家电网", "京东", "美团", "比亚迪",
                          "中石化", "顺丰", "网易", "招商银行", "海尔", "格力"]),
        "food": _vals(["火锅", "小龙虾", "饺子", "北京烤鸭", "螺蛳粉", "羊肉串", "红烧肉", "寿司", "酸菜鱼", "煎饼果子",
                       "肠粉", "热干面", "麻辣烫", "糖醋排骨", "锅包肉", "臭豆腐"]),
    },
    attrs={
        "job": AttrText(
            say=["{ref}是{v}。", "{ref}在做{v}，干了好多年了。", "{ref}的职业是{v}。", "{ref}现在当{v}。",
                 "{ref}是一名{v}。"],
            ask=["{ref}是做什么工作的呢？", "{ref}的职业是什么？", "{ref}是干哪一行的？", "{ref}是做什么的？",
                 "{ref}从事什么职业？"],
            near=["{ref}最近工作特别忙，天天加班。", "{ref}跟我抱怨了半天工作上的事。", "{ref}说想换个行业试试。"],
            cond="当{s}的", update=["{ref}转行了，现在是{v}。", "{ref}换了份工作，现在做{v}。"],
            ask_now=["{ref}现在是做什么工作的？", "{ref}现在干哪一行？"]),
        "hometown": AttrText(
            say=["{ref}来自{v}。", "{ref}老家在{v}。", "{ref}是{s}人。", "{ref}是在{v}长大的。"],
            ask=["{ref}是哪里人？", "{ref}老家是哪儿的？", "{ref}是从哪个地方来的？", "{ref}的家乡在哪里？",
                 "{ref}是哪个省的人？"],
            near=["{ref}说过年要回老家。", "{ref}给我带了些家乡的特产。", "{ref}跟我讲了讲他们那边的方言。"],
            cond="{s}来的",
            self_say=["我老家在{v}。", "我是{s}人。"], self_ask=["我老家是哪里的？", "我是哪里人？"]),
        "age": AttrText(
            say=["{ref}今年{s}了。", "{ref}已经{s}了，看着还挺年轻。", "{ref}今年刚满{s}。"],
            ask=["{ref}多大了？", "{ref}今年几岁？", "{ref}的年龄是多少？", "{ref}多大年纪了？"],
            near=["{ref}说自己年纪大了，熬不了夜。", "{ref}说最近总觉得体力不如从前。"]),
        "birthday": AttrText(
            say=["{ref}的生日是{s}。", "{s}是{ref}的生日。", "{ref}是{s}出生的。"],
            ask=["{ref}的生日是哪天？", "{ref}什么时候过生日？", "{ref}哪天生日？", "{ref}是几月几号出生的？"],
            near=["{ref}的生日快到了，我得准备礼物。", "在想今年给{ref}过生日送点什么。"]),
        "hobby": AttrText(
            say=["{ref}特别喜欢{s}。", "{ref}的爱好是{s}。", "{ref}一有空就去{s}。", "{ref}业余时间基本都在{s}。"],
            ask=["{ref}有什么爱好？", "{ref}平时喜欢干什么？", "{ref}闲下来都做些什么？", "{ref}业余时间喜欢做什么？"],
            near=["{ref}说周末想找点新的爱好。", "{ref}说最近太累，什么都不想玩。"],
            cond="喜欢{s}的", update=["{ref}最近迷上了{s}，以前的爱好都不怎么玩了。"],
            ask_now=["{ref}最近迷上了什么？", "{ref}现在的爱好是什么？"],
            self_say=["我最近迷上了{s}。", "我的爱好是{s}。"], self_ask=["我有什么爱好？", "我最近喜欢玩什么？"]),
        "phone": AttrText(
            say=["{ref}用的是{s}。", "{ref}刚买了一部{s}。", "{s}是{ref}的心头好。", "{ref}的手机是{s}。",
                 "{ref}一直用{s}，说很顺手。"],
            ask=["{ref}用的什么手机？", "{ref}的手机是什么牌子？", "{ref}拿的是哪款手机？", "{ref}用哪个牌子的手机？"],
            near=["{ref}的手机屏幕摔碎了。", "{ref}问我哪款手机拍照好。", "{ref}的手机老是没电。"],
            cond="用{s}的", update=["{ref}把手机换成了{s}。", "{ref}的旧手机坏了，新买了{s}。"],
            ask_now=["{ref}现在用的是什么手机？", "{ref}换了什么手机？"],
            self_say=["{s}是我的心头好。", "我的手机是{s}。"], self_ask=["我用的是什么手机？", "我最喜欢哪款手机？"]),
        "car": AttrText(
            say=["{ref}开的是{s}。", "{ref}的车是一辆{s}。", "{ref}去年买了辆{s}。", "{ref}每天开着{s}上下班。"],
            ask=["{ref}开什么车？", "{ref}的车是什么牌子的？", "{ref}平时开哪款车？", "{ref}的座驾是什么？"],
            near=["{ref}的车送去保养了。", "{ref}在考虑要不要换车。", "{ref}说停车位越来越难找。"],
            cond="开{s}的", update=["{ref}把旧车卖了，换成了{s}。"],
            ask_now=["{ref}现在开的是什么车？", "{ref}换了辆什么车？"],
            self_say=["我开的是{s}。", "我的车是一辆{s}。"], self_ask=["我开的是什么车？", "我的车是哪款？"]),
        "pet": AttrText(
            say=["{ref}养了{v}。", "{ref}家里有{v}。", "{ref}家养着{v}，宝贝得很。"],
            ask=["{ref}养了什么宠物？", "{ref}家有什么小动物？", "{ref}养的是什么？"],
            near=["{ref}家的宠物生病了，带去了宠物医院。", "{ref}说想再养一只宠物。"],
            cond="养{s}的",
            self_say=["我养了{v}。", "我家里有{v}。"], self_ask=["我养的是什么宠物？", "我家里有什么小动物？"]),
        "school": AttrText(
            say=["{ref}毕业于{s}。", "{ref}是{s}毕业的。", "{ref}当年在{s}读的书。"],
            ask=["{ref}是哪个学校毕业的？", "{ref}上的哪所大学？", "{ref}是哪所学校出来的？"],
            near=["{ref}回母校参加了校庆。", "{ref}说大学时候的宿舍条件很差。"],
            cond="{s}毕业的"),
        "company": AttrText(
            say=["{ref}在{s}上班。", "{ref}的单位是{s}。", "{ref}就职于{s}。", "{ref}在{s}干了好几年了。"],
            ask=["{ref}在哪家公司上班？", "{ref}的单位是哪？", "{ref}在哪儿工作？", "{ref}是哪个公司的？"],
            near=["{ref}的公司最近在裁员。", "{ref}说单位年底发了奖金。", "{ref}说公司搬到了新的办公楼。"],
            cond="在{s}上班的", update=["{ref}跳槽去了{s}。", "{ref}现在改在{s}上班了。"],
            ask_now=["{ref}现在在哪家公司？", "{ref}跳槽去了哪里？"],
            self_say=["我在{s}上班。"], self_ask=["我在哪家公司上班？"]),
        "food": AttrText(
            say=["{ref}最爱吃{s}。", "{ref}最喜欢的菜是{s}。", "{s}是{ref}的最爱。", "{ref}每次聚餐都点{s}。"],
            ask=["{ref}最喜欢吃什么？", "{ref}爱吃什么？", "{ref}最爱哪道菜？", "{ref}口味上偏爱什么？"],
            near=["{ref}说最近在减肥，不敢多吃。", "{ref}请我吃了顿饭。"],
            cond="爱吃{s}的",
            self_say=["{s}是我的最爱。", "我最爱吃{s}。"], self_ask=["我最喜欢吃什么？", "我最爱的食物是什么？"]),
        "height": AttrText(
            say=["{ref}身高{s}。", "{ref}有{s}高。", "{ref}量了一下身高，{s}。"],
            ask=["{ref}有多高？", "{ref}个子多高？", "{ref}身高是多少？"],
            near=["{ref}说自己小时候是班里最矮的。", "{ref}说想去打篮球，可惜个子不够。"]),
    },
    names=[("张伟", "m"), ("王芳", "f"), ("李娜", "f"), ("刘洋", "m"), ("陈静", "f"), ("杨帆", "m"), ("赵磊", "m"),
           ("黄婷", "f"), ("周杰", "m"), ("吴敏", "f"), ("徐浩", "m"), ("孙丽", "f"), ("马超", "m"), ("朱琳", "f"),
           ("胡斌", "m"), ("郭晶", "f"), ("何涛", "m"), ("高远", "m"), ("林悦", "f"), ("罗刚", "m"), ("郑爽", "f"),
           ("梁宇", "m"), ("谢娟", "f"), ("韩雪", "f"), ("唐亮", "m"), ("冯佳", "f"), ("于洋", "m"), ("董鹏", "m"),
           ("萧然", "f"), ("曹磊", "m"), ("邓倩", "f"), ("彭博", "m")],
    family=[("叔叔", "m", "我爸的弟弟"), ("舅舅", "m", "我妈的哥哥"), ("姑姑", "f", "我爸的妹妹"),
            ("小姨", "f", "我妈最小的妹妹"), ("表哥", "m", ""), ("表姐", "f", ""), ("堂弟", "m", ""), ("表妹", "f", ""),
            ("姐夫", "m", "我姐的老公"), ("嫂子", "f", "我哥的媳妇"), ("大伯", "m", "我爸的大哥"), ("干妈", "f", "")],
    elders=["爷爷", "外婆", "奶奶", "外公"],
    singles=["领导", "房东", "健身教练", "室友", "发小", "师傅", "导师"],
    kin=[("老婆", "f"), ("老公", "m"), ("儿子", "m"), ("女儿", "f"), ("妈妈", "f"), ("爸爸", "m"), ("男朋友", "m"),
         ("女朋友", "f"), ("弟弟", "m"), ("姐姐", "f")],
    groups={"同事": 7, "朋友": 5, "大学同学": 3},
    neighbours=[("楼上的邻居", "楼上那户人家"), ("对门的邻居", "对门那家"), ("隔壁的邻居", "隔壁那位"),
                ("楼下的邻居", "楼下那户")],
    group_word={"同事": "同事", "朋友": "朋友", "大学同学": "大学同学", "邻居": "邻居", "family": "亲戚"},
    intro_named=["我有个{k}叫{n}。", "{n}是我{k}。", "我{k}里有个叫{n}的。", "介绍一下，{n}是我的{k}。"],
    intro_single=["说说我{k}吧。", "最近和我{k}联系得比较多。"],
    filler=["今天和{ref}一起吃了午饭。", "{ref}给我发了个红包。", "{ref}说周末要来我家玩。", "{ref}最近好像心情不太好。",
            "我帮{ref}搬了些东西。", "{ref}推荐我看了一部电影。", "和{ref}视频聊了半个小时。", "{ref}给我转发了一篇文章。",
            "{ref}约我下周一起吃饭。", "收到了{ref}寄来的快递。", "{ref}又在朋友圈晒照片了。", "{ref}找我借了两本书。",
            "{ref}问我最近过得怎么样。", "{ref}感冒了，我提醒要多喝热水。", "{ref}说下个月要出差。",
            "晚上给{ref}打了个电话。", "{ref}在群里发了好多表情包。", "{ref}夸我做的菜好吃。"],
    pair=["{ref}和{ref2}一起来我家吃了顿饭。", "{ref}居然认识{ref2}，世界真小。", "{ref}托我给{ref2}带个东西。",
          "周末约了{ref}和{ref2}去唱歌。", "{ref}跟{ref2}在群里聊得很热闹。", "{ref}说{ref2}最近变化挺大的。"],
    noise=["今天地铁特别挤。", "晚饭吃了一碗牛肉面。", "下午开了三个会，有点累。", "今天的咖啡太苦了。", "又下雨了，忘带伞。",
           "周末想去看场电影。", "楼下新开了一家面包店。", "今天走了一万两千步。", "家里的网络又断了。",
           "手机快没电了，得找个地方充电。", "这周的快递怎么还没到。", "今天的晚霞特别好看。", "最近睡得不太好。",
           "中午点的外卖有点咸。", "明天要早起赶高铁。", "电梯坏了，只好爬楼梯。", "刚交了这个月的房租。",
           "超市的水果在打折。", "今天终于把报告写完了。", "办公室空调太冷了。", "打算下个月去报个游泳班。",
           "路上堵了四十分钟。", "在书店待了一下午。", "买了一盆绿萝放在桌上。", "今天加班到九点。",
           "车子该加油了。", "公园里好多人在放风筝。", "想换个新的笔记本电脑。", "把衣柜整理了一遍。"],
    noise_parts=(["早上", "中午", "傍晚", "晚上", "刚才", "下班后", "午休时"],
                 ["去楼下买了杯奶茶。", "在路边看到一只流浪猫。", "收拾了一下屋子。", "听了一集播客。", "读了几页小说。",
                  "给家里的花浇了水。", "去银行办了点事。", "排队做了核酸。", "散了会儿步。", "看了一集纪录片。",
                  "去药店买了点感冒药。", "研究了一下周末的菜谱。", "回了几封邮件。", "洗了一大堆衣服。"]),
    ask_prefix=["对了，", "刚才在地铁上突然想起来，", "昨天开会的时候聊到这个，", "我女朋友刚问我，", "有件事想确认一下，",
                "今天在超市排队的时候想到，", "嗯，那个，", "刚和同事吃午饭的时候聊起来，", "我妈刚打电话问我，",
                "朋友聚会上有人问起，"],
    ask_suffix=["我有点记不清了。", "你帮我回忆一下。", "好像之前跟你说过。", "周末聚会可能要用到。", "谢谢啦。"],
    counts=[("hometown", "ne", "我有几个{g}是东北人？"), ("pet", "cat", "我的{g}里有几个养猫的？"),
            ("phone", "华为", "我{g}当中有几个用华为手机？"), ("phone", "苹果", "我{g}里有几个人用苹果手机？"),
            ("car", "ev", "我有几个{g}开新能源车？"), ("pet", "dog", "我{g}里有几个养狗的？")],
    compare={"age": ["{a}和{b}谁年纪更大？", "{a}和{b}谁岁数大一些？"], "height": ["{a}和{b}谁更高？", "{a}和{b}谁个子高？"]},
    same_place=["{a}和{b}是老乡吗？", "{a}跟{b}是一个地方的人吗？"],
    yes_no=("是", "不是"),
    cities=[("上海市", ["徐汇区", "浦东新区", "静安区", "闵行区", "杨浦区"]), ("杭州市", ["西湖区", "滨江区", "余杭区"]),
            ("北京市", ["海淀区", "朝阳区", "东城区"]), ("深圳市", ["南山区", "福田区", "宝安区"])],
    spots=["地铁上", "公司", "家里", "咖啡店", "健身房", "超市", "公园", "餐厅", "办公室", "高铁站", "出租车上", "小区楼下",
           "图书馆", "商场"],
    prefix=_ZH_PREFIX,
    pronoun={"m": "他", "f": "她"},
    possessive={"m": "他的", "f": "她的"},
    facts=lambda main, fs: f"{main}（{'；'.join(fs)}）",
)

EN = Lang(
    code="en",
    values={
        "job": _vals(["head chef", "chemistry teacher", "cab driver", "software engineer", "pediatric nurse", "tax lawyer",
                      "accountant", "dentist", "firefighter", "mail carrier", "architect", "bank teller", "journalist",
                      "wedding photographer", "pharmacist", "electrician", "city planner", "product manager",
                      "physical therapist", "veterinarian", "airline pilot", "train conductor", "plumber",
                      "real estate agent", "hair stylist", "kindergarten teacher", "data analyst", "paramedic"]),
        "hometown": _vals([("Duluth, Minnesota", "Duluth", "mw"), ("Toledo, Ohio", "Toledo", "mw"),
                           ("Madison, Wisconsin", "Madison", "mw"), ("Grand Rapids, Michigan", "Grand Rapids", "mw"),
                           ("Des Moines, Iowa", "Des Moines", "mw"), ("Peoria, Illinois", "Peoria", "mw"),
                           ("Fort Wayne, Indiana", "Fort Wayne", "mw"), ("Omaha, Nebraska", "Omaha", "mw"),
                           ("El Paso, Texas", "El Paso"), ("Savannah, Georgia", "Savannah"), ("Tampa, Florida", "Tampa"),
                           ("Knoxville, Tennessee", "Knoxville"), ("Boise, Idaho", "Boise"), ("Tucson, Arizona", "Tucson"),
                           ("Fresno, California", "Fresno"), ("Spokane, Washington", "Spokane"), ("Eugene, Oregon", "Eugene"),
                           ("Albany, New York", "Albany"), ("Burlington, Vermont", "Burlington"),
                           ("Providence, Rhode Island", "Providence"), ("Richmond, Virginia", "Richmond"),
                           ("Charleston, South Carolina", "Charleston"), ("Anchorage, Alaska", "Anchorage"),
                           ("Honolulu, Hawaii", "Honolulu"), ("Reno, Nevada", "Reno"), ("Santa Fe, New Mexico", "Santa Fe")]),
        "hobby": _vals(["fly fishing", "badminton", "marathon running", "chess", "playing guitar", "street photography",
                        "rock climbing", "gardening", "baking sourdough", "pickup basketball", "lap swimming",
                        "calligraphy", "birdwatching", "salsa dancing", "board games", "cycling", "pottery",
                        "woodworking", "kayaking", "knitting"]),
        "phone": _vals([("Pixel 8", "", "google"), ("Pixel 7a", "", "google"), ("iPhone 15 Pro", "", "apple"),
                        ("iPhone 13 mini", "", "apple"), ("Galaxy S24", "", "samsung"), ("Galaxy Z Flip5", "", "samsung"),
                        ("OnePlus 12", "", ""), ("Motorola Edge", "", ""), ("Nothing Phone 2", "", "")]),
        "car": _vals([("Subaru Outback", "", ""), ("Honda Civic", "", ""), ("Tesla Model Y", "", "ev"),
                      ("Ford F-150", "", ""), ("Toyota Prius", "", ""), ("Chevy Bolt", "", "ev"), ("Mazda CX-5", "", ""),
                      ("Jeep Wrangler", "", ""), ("Hyundai Ioniq 5", "", "ev"), ("Volvo XC60", "", ""),
                      ("Nissan Leaf", "", "ev"), ("BMW 3 Series", "", ""), ("Kia EV6", "", "ev")]),
        "pet": _vals([("a tabby cat", "tabby cat", "cat"), ("a golden retriever", "golden retriever", "dog"),
                      ("a corgi", "corgi", "dog"), ("a ragdoll cat", "ragdoll cat", "cat"), ("two hamsters", "hamsters", ""),
                      ("a parakeet", "parakeet", ""), ("a beagle", "beagle", "dog"), ("a tank of goldfish", "goldfish", ""),
                      ("a box turtle", "box turtle", ""), ("a husky", "husky", "dog"), ("a black cat", "black cat", "cat"),
                      ("a lop-eared rabbit", "lop-eared rabbit", "")]),
        "school": _vals(["Ohio State", "UCLA", "Penn State", "the University of Michigan", "Georgia Tech", "NYU",
                         "Rutgers", "Purdue", "UT Austin", "Boston University", "Arizona State", "the University of Oregon"]),
        "company": _vals(["Boeing", "Costco", "Target", "Microsoft", "Delta", "Kaiser Permanente", "Wells Fargo", "Nike",
                          "REI", "UPS", "Intel", "Starbucks", "Deloitte", "Pfizer"]),
        "food": _vals(["ramen", "fish tacos", "lasagna", "pho", "brisket", "sushi", "chicken tikka masala",
                       "deep-dish pizza", "pad thai", "clam chowder", "fried chicken", "pierogi", "shrimp and grits",
                       "mac and cheese"]),
    },
    attrs={
        "job": AttrText(
            say=["{ref} is a {s}.", "{ref} has worked as a {s} for years.", "{ref} makes a living as a {s}.",
                 "{ref} trained as a {s} and still loves it."],
            ask=["What does {ref} do for work?", "What is {ref}'s job?", "What does {ref} do for a living?",
                 "What line of work is {ref} in?", "What's {ref}'s profession?"],
            near=["{ref} has been working late every night this week.", "{ref} vented to me about work for an hour.",
                  "{ref} is thinking about a career change."],
            cond="who is a {s}", update=["{ref} switched careers and is now a {s}.", "{ref} quit and became a {s}."],
            ask_now=["What does {ref} do now?", "What is {ref}'s job these days?"]),
        "hometown": AttrText(
            say=["{ref} is from {v}.", "{ref} spent childhood in {v}.", "{ref} was born and raised in {s}.",
                 "{ref}'s family still lives in {v}."],
            ask=["Where is {ref} from?", "Where did {ref} grow up?", "What is {ref}'s hometown?",
                 "Which town does {ref} come from?", "Where are {ref}'s roots?"],
            near=["{ref} is flying home for the holidays.", "{ref} brought me snacks from back home.",
                  "{ref} misses the old hometown a lot.", "{ref} says nobody from home ever visits."],
            cond="from {s}",
            self_say=["I grew up in {v}.", "I'm originally from {v}."], self_ask=["Where did I grow up?", "Where am I from?"]),
        "age": AttrText(
            say=["{ref} just turned {s}.", "{ref} is {s} years old.", "{ref} will be {s} this year, hard to believe."],
            ask=["How old is {ref}?", "What is {ref}'s age?", "How old did {ref} turn?"],
            near=["{ref} says staying up late is harder with age.", "{ref} joked about getting old."]),
        "birthday": AttrText(
            say=["{ref}'s birthday is {s}.", "{ref} was born on {s}.", "{s} is {ref}'s birthday."],
            ask=["When is {ref}'s birthday?", "What day was {ref} born?", "When do we celebrate {ref}'s birthday?"],
            near=["{ref}'s birthday is coming up and I still need a gift.", "Thinking about a present for {ref}."]),
        "hobby": AttrText(
            say=["{ref} is really into {s}.", "{ref} can't stop talking about {s}.", "{ref} spends most Saturdays on {s}.",
                 "{ref} has been obsessed with {s} for years."],
            ask=["What is {ref}'s hobby?", "What does {ref} like to do in free time?", "How does {ref} spend weekends?",
                 "What does {ref} do for fun?"],
            near=["{ref} wants to pick up a new hobby.", "{ref} says everything fun feels like work lately."],
            cond="who loves {s}", update=["{ref} got hooked on {s} and dropped the old hobbies."],
            ask_now=["What is {ref} hooked on lately?", "What is {ref}'s hobby now?"],
            self_say=["I've gotten really into {s}.", "My favorite pastime is {s}."],
            self_ask=["What is my hobby?", "What do I do for fun?"]),
        "phone": AttrText(
            say=["{ref} just bought a {s}.", "{ref} swears by the {s}.", "{ref} showed off a shiny new {s}.",
                 "The {s} is {ref}'s pride and joy."],
            ask=["What phone does {ref} have?", "Which phone does {ref} use?", "What kind of phone is {ref} carrying?",
                 "What brand is {ref}'s phone?"],
            near=["{ref} cracked the phone screen again.", "{ref} asked me which phone has the best camera.",
                  "{ref}'s battery is always dead."],
            cond="with the {s}", update=["{ref} upgraded to a {s}.", "{ref}'s old phone died, so now it's a {s}."],
            ask_now=["What phone does {ref} use now?", "Which phone did {ref} switch to?"],
            self_say=["The {s} is my favorite gadget.", "My phone is a {s}."],
            self_ask=["What phone do I use?", "Which phone is my favorite?"]),
        "car": AttrText(
            say=["{ref} picked me up in that {s}.", "{ref}'s ride is a {s}.", "{ref} got a {s} last year.",
                 "{ref} drives a {s}."],
            ask=["What car does {ref} drive?", "What does {ref} drive?", "Which car does {ref} own?",
                 "What kind of vehicle does {ref} have?"],
            near=["{ref}'s car is in the shop again.", "{ref} is thinking about getting a new car.",
                  "{ref} complained about parking downtown.", "{ref} hates driving in the snow."],
            cond="who drives the {s}", update=["{ref} sold the old car and got a {s}."],
            ask_now=["What car does {ref} drive now?", "What did {ref} replace the car with?"],
            self_say=["I drive a {s}.", "My car is a {s}."], self_ask=["What car do I drive?", "What is my car?"]),
        "pet": AttrText(
            say=["{ref} has {v}.", "{ref} adopted {v} last spring.", "{ref} lives with {v}."],
            ask=["What pet does {ref} have?", "Does {ref} have any animals at home?", "What kind of animal does {ref} keep?"],
            near=["{ref} had to take the pet to the vet.", "{ref} wants to adopt another pet."],
            cond="with the {s}",
            self_say=["I have {v}.", "I adopted {v} a while ago."], self_ask=["What pet do I have?", "What animal lives with me?"]),
        "school": AttrText(
            say=["{ref} went to {s}.", "{ref} graduated from {s}.", "{ref} studied at {s}."],
            ask=["Where did {ref} go to college?", "Which university did {ref} attend?", "What school did {ref} graduate from?"],
            near=["{ref} went back for a college reunion.", "{ref} still has student loans to pay off."],
            cond="who went to {s}"),
        "company": AttrText(
            say=["{ref} is at {s}.", "{ref} got hired by {s}.", "{ref} is on the payroll at {s}.",
                 "{ref} has been with {s} for a few years."],
            ask=["Which company does {ref} work for?", "Who is {ref}'s employer?", "Where is {ref} employed?",
                 "Where does {ref} work?"],
            near=["{ref}'s company is doing layoffs.", "{ref} got a year-end bonus.", "{ref}'s office moved downtown.",
                  "{ref} works way too many hours."],
            cond="who works at {s}", update=["{ref} left for a job at {s}.", "{ref} now works at {s} instead."],
            ask_now=["Where does {ref} work now?", "Which company did {ref} move to?"],
            self_say=["I work at {s}."], self_ask=["Which company do I work for?"]),
        "food": AttrText(
            say=["{ref}'s favorite food is {s}.", "{ref} could eat {s} every day.", "{ref} always orders {s}.",
                 "{ref} loves {s} more than anything."],
            ask=["What is {ref}'s favorite food?", "What does {ref} like to eat most?", "Which dish does {ref} love?"],
            near=["{ref} is on a diet and skipping dessert.", "{ref} treated me to dinner."],
            cond="who loves {s}",
            self_say=["My favorite food is {s}.", "I could eat {s} every day."],
            self_ask=["What is my favorite food?", "What do I like to eat most?"]),
        "height": AttrText(
            say=["{ref} is {s} tall.", "{ref} stands {s}.", "{ref} measured {s} at the doctor's."],
            ask=["How tall is {ref}?", "What is {ref}'s height?", "How tall did {ref} measure?"],
            near=["{ref} was the shortest kid in class.", "{ref} always wanted to be taller for basketball."]),
    },
    names=[("Priya", "f"), ("Marcus", "m"), ("Dana", "f"), ("Keisha", "f"), ("Tom", "m"), ("Raj", "m"), ("Elena", "f"),
           ("Owen", "m"), ("Sophie", "f"), ("Diego", "m"), ("Hannah", "f"), ("Victor", "m"), ("Mei", "f"), ("Jamal", "m"),
           ("Claire", "f"), ("Noah", "m"), ("Fatima", "f"), ("Ben", "m"), ("Laura", "f"), ("Andre", "m"), ("Yuki", "f"),
           ("Carlos", "m"), ("Nina", "f"), ("Greg", "m"), ("Tess", "f"), ("Omar", "m"), ("Lily", "f"), ("Felix", "m"),
           ("Ivy", "f"), ("Hugo", "m"), ("Rosa", "f"), ("Pete", "m")],
    family=[("uncle", "m", "my dad's younger brother"), ("aunt", "f", "my mom's sister"), ("cousin", "", ""),
            ("older brother", "m", ""), ("younger sister", "f", ""), ("brother-in-law", "m", "my sister's husband"),
            ("sister-in-law", "f", "my brother's wife"), ("nephew", "m", ""), ("niece", "f", ""),
            ("stepdad", "m", "my mom's husband"), ("godmother", "f", ""), ("great-uncle", "m", "")],
    elders=["grandpa", "grandma", "granddad", "nana"],
    singles=["manager", "landlord", "personal trainer", "roommate", "childhood best friend", "mentor", "barber"],
    kin=[("wife", "f"), ("husband", "m"), ("son", "m"), ("daughter", "f"), ("mom", "f"), ("dad", "m"),
         ("boyfriend", "m"), ("girlfriend", "f"), ("brother", "m"), ("sister", "f")],
    groups={"coworker": 7, "friend": 5, "classmate": 3},
    neighbours=[("my upstairs neighbor", "the neighbor upstairs"), ("my next-door neighbor", "the neighbor next door"),
                ("my downstairs neighbor", "the neighbor downstairs"), ("the neighbor across the hall", "the neighbor in 4B")],
    group_word={"coworker": "coworkers", "friend": "friends", "classmate": "classmates", "neighbor": "neighbors",
                "family": "relatives"},
    intro_named=["I have a {k} named {n}.", "{n} is a {k} of mine.", "Let me tell you about {n}, my {k}.",
                 "One of my {k}s is called {n}."],
    intro_single=["Some notes about my {k}.", "I've been seeing a lot of my {k} lately."],
    filler=["Had lunch with {ref} today.", "{ref} sent me a funny video.", "{ref} might come over this weekend.",
            "{ref} seemed a bit down today.", "Helped {ref} move some furniture.", "{ref} recommended a movie to me.",
            "Video-called {ref} for half an hour.", "{ref} forwarded me an article.", "{ref} wants to grab dinner next week.",
            "Got a package from {ref}.", "{ref} posted vacation photos again.", "{ref} borrowed two of my books.",
            "{ref} asked how I've been.", "{ref} caught a cold, so I dropped off soup.", "{ref} is traveling for work next month.",
            "Called {ref} in the evening.", "{ref} spammed the group chat with memes.", "{ref} liked the pasta I made."],
    pair=["{ref} and {ref2} both came over for dinner.", "Turns out {ref} knows {ref2}, small world.",
          "{ref} asked me to pass something along to {ref2}.", "Planning karaoke with {ref} and {ref2} on Saturday.",
          "{ref} and {ref2} were chatting in the group thread all night.", "{ref} says {ref2} has changed a lot lately."],
    noise=["The train was packed this morning.", "Had beef noodle soup for dinner.", "Three meetings this afternoon, exhausted.",
           "The coffee today was way too bitter.", "Raining again and I forgot my umbrella.", "Might see a movie this weekend.",
           "A new bakery opened downstairs.", "Walked twelve thousand steps today.", "The wifi at home dropped again.",
           "Phone battery is almost dead, need a charger.", "Still waiting on that delivery.", "Gorgeous sunset tonight.",
           "Not sleeping well lately.", "Lunch delivery was too salty.", "Early train tomorrow.",
           "Elevator's broken, took the stairs.", "Paid this month's rent.", "Fruit is on sale at the grocery store.",
           "Finally finished that report.", "The office AC is freezing.", "Thinking of signing up for a swim class.",
           "Stuck in traffic for forty minutes.", "Spent the afternoon in a bookstore.", "Bought a pothos for my desk.",
           "Worked until nine tonight.", "Need to get gas.", "So many kites in the park today.",
           "Want a new laptop.", "Reorganized my closet."],
    noise_parts=(["This morning I", "At lunch I", "After work I", "Tonight I", "Just now I", "On my break I"],
                 ["grabbed a bubble tea.", "saw a stray cat by the road.", "tidied the apartment.", "listened to a podcast.",
                  "read a few pages of a novel.", "watered the plants.", "ran errands at the bank.", "took a short walk.",
                  "watched a documentary.", "picked up cold medicine.", "planned weekend meals.", "answered emails.",
                  "did a mountain of laundry."]),
    ask_prefix=["Oh, by the way, ", "Random thought from the bus: ", "Someone at the meeting asked me, ", "Quick check, ",
                "My partner just asked, ", "This came up at the grocery store: ", "Hmm, ",
                "A coworker brought this up at lunch: ", "My mom just called and asked, ", "At the party a friend asked, "],
    ask_suffix=[" I can't quite remember.", " Help me out here.", " I think I mentioned it before.",
                " Need it for the party this weekend.", " Thanks!"],
    counts=[("hometown", "mw", "How many of my {g} are from the Midwest?"), ("pet", "cat", "How many of my {g} have a cat?"),
            ("phone", "apple", "How many of my {g} use an iPhone?"), ("phone", "samsung", "How many of my {g} have a Samsung phone?"),
            ("car", "ev", "How many of my {g} drive an electric car?"), ("pet", "dog", "How many of my {g} own a dog?")],
    compare={"age": ["Who is older, {a} or {b}?", "Is {a} older than {b}?"],
             "height": ["Who is taller, {a} or {b}?", "Between {a} and {b}, who is taller?"]},
    same_place=["Are {a} and {b} from the same town?", "Did {a} and {b} grow up in the same place?"],
    yes_no=("Yes", "No"),
    cities=[("Seattle", ["Capitol Hill", "Ballard", "Fremont", "South Lake Union"]), ("Portland", ["Pearl District", "Alberta"]),
            ("Chicago", ["Logan Square", "Wicker Park", "the Loop"]), ("Boston", ["Back Bay", "Somerville"])],
    spots=["on the bus", "at the office", "at home", "at a coffee shop", "at the gym", "at the grocery store", "in the park",
           "at a restaurant", "at my desk", "at the train station", "in a rideshare", "outside my building", "at the library",
           "at the mall"],
    prefix=_EN_PREFIX,
    pronoun={"m": "he", "f": "she", "": "they"},
    possessive={"m": "his", "f": "her", "": "their"},
    facts=lambda main, fs: f"{main} ({'; '.join(fs)})",
)

LANGS = {"zh": ZH, "en": EN}
UPDATABLE = ("job", "company", "phone", "car", "hobby")
ADULT_ATTRS = ("job", "hometown", "age", "birthday", "hobby", "phone", "car", "pet", "school", "company", "food", "height")
ELDER_ATTRS = ("hometown", "age", "birthday", "hobby", "phone", "pet", "food", "height")
SELF_ATTRS = ("phone", "car", "hobby", "pet", "food", "company", "hometown")


def answer_facts(q: Question) -> list[str]:
    """The texts an answer rests on: the bracketed facts of a comparison or count, else the answer."""
    m = re.fullmatch(r"(.*?)\s?[（(](.*)[)）]", q["answer"])
    if m is None:
        return [q["answer"]]
    return [f for f in re.split(r"；|; ", m.group(2)) if f]


def statement_of(turn_text: str) -> str:
    """A turn without its time-and-place prefix."""
    for sep in ("：", ": "):
        if sep in turn_text:
            return turn_text.split(sep, 1)[1]
    return turn_text


# --------------------------------------------------------------------------------------------- persons

@dataclass
class Person:
    kind: str                   # "叔叔", "同事", "邻居", "self", ...
    group: str                  # the count group ("同事", "family", ...) or ""
    ref: str                    # the full reference ("我同事张伟", "my coworker Priya")
    alts: list[str]             # other ways the log names them
    gender: str
    elder: bool = False
    values: dict[str, Val] = field(default_factory=dict)        # every attribute's value
    stated: list[str] = field(default_factory=list)            # attributes the log states
    updates: dict[str, list[Val]] = field(default_factory=dict)  # attribute -> later values
    locked: set[str] = field(default_factory=set)              # attributes never updated

    @property
    def is_self(self) -> bool:
        return self.kind == "self"

    def state(self, attr: str) -> None:
        if attr not in self.stated:
            self.stated.append(attr)


def _num_val(lang: Lang, attr: str, n: int, rng: random.Random) -> Val:
    if attr == "age":
        return Val(f"{n}岁", num=n) if lang.code == "zh" else Val(str(n), num=n)
    if attr == "height":
        if lang.code == "zh":
            return Val(f"{n}厘米", num=n)
        inches = round(n / 2.54)
        return Val(f"{inches // 12} foot {inches % 12}", num=inches)
    raise ValueError(attr)


def _birthday(lang: Lang, rng: random.Random) -> Val:
    m, d = rng.randint(1, 12), rng.randint(1, 28)
    if lang.code == "zh":
        return Val(f"{m}月{d}日", num=m * 100 + d)
    return Val(datetime(2001, m, d).strftime("%B ") + str(d), num=m * 100 + d)


def _random_value(lang: Lang, attr: str, p: Person, rng: random.Random) -> Val:
    if attr == "age":
        return _num_val(lang, attr, rng.randint(68, 89) if p.elder else rng.randint(23, 62), rng)
    if attr == "height":
        return _num_val(lang, attr, rng.randint(152, 193), rng)
    if attr == "birthday":
        return _birthday(lang, rng)
    return rng.choice(lang.values[attr])


def _make_persons(lang: Lang, rng: random.Random) -> list[Person]:
    zh = lang.code == "zh"
    names = list(lang.names)
    rng.shuffle(names)
    persons: list[Person] = []
    for kind, top in lang.groups.items():
        for _ in range(rng.randint(max(2, top - 2), top)):
            name, g = names.pop()
            if zh:
                ref, alts = f"我{kind}{name}", [name, f"{kind}{name}", name]
            else:
                ref, alts = f"my {kind} {name}", [name]
            persons.append(Person(kind, kind, ref, alts, g))
    neighbour = "邻居" if zh else "neighbor"
    for ref, alt in rng.sample(lang.neighbours, rng.randint(2, 3)):
        persons.append(Person(neighbour, neighbour, f"我{ref}" if zh else ref, [alt, ref if zh else alt], rng.choice("mf")))
    for kind, g, desc in rng.sample(lang.family, rng.randint(7, 9)):
        ref = f"我{kind}" if zh else f"my {kind}"
        alts = [kind if zh else f"my {kind}"] + ([desc] if desc else [])
        persons.append(Person(kind, "family", ref, alts, g or rng.choice("mf")))
    for kind in rng.sample(lang.elders, 2):
        ref = f"我{kind}" if zh else f"my {kind}"
        g = "m" if any(w in kind for w in ("爷", "公", "grandpa", "granddad")) else "f"
        persons.append(Person(kind, "family", ref, [kind if zh else ref], g, elder=True))
    for kind in rng.sample(lang.singles, rng.randint(3, 4)):
        ref = f"我{kind}" if zh else f"my {kind}"
        persons.append(Person(kind, "", ref, [kind if zh else ref], rng.choice("mf")))
    # Persons known through another one ("我叔叔的儿子", "my coworker Priya's husband").
    for anchor in rng.sample([q for q in persons if not q.elder], rng.randint(5, 8)):
        rel, g = rng.choice(lang.kin)
        if zh:
            ref, alts = f"{anchor.ref}的{rel}", [f"{anchor.alts[0]}的{rel}"]
        else:
            short = anchor.alts[0] if not anchor.alts[0].startswith("the ") else anchor.ref
            ref, alts = f"{anchor.ref}'s {rel}", [f"{short}'s {rel}"]
        persons.append(Person(rel, "", ref, alts, g))
    for p in persons:
        attrs = ELDER_ATTRS if p.elder else ADULT_ATTRS
        for a in attrs:
            p.values[a] = _random_value(lang, a, p, rng)
        for a in rng.sample(attrs, rng.randint(4, 7)):
            p.state(a)
    me = Person("self", "", "我" if zh else "I", [], "")
    for a in SELF_ATTRS:
        me.values[a] = rng.choice(lang.values[a])
    for a in rng.sample(SELF_ATTRS, 5):
        me.state(a)
    persons.append(me)
    return persons


# --------------------------------------------------------------------------------------------- plans

@dataclass
class Plan:
    """A question before its evidence turns exist: evidence as (person index, attribute, version)."""

    question: str
    evidence: list[tuple[int, str, int]]
    answer: str
    category: str
    superseded: list[tuple[int, str, int]] = field(default_factory=list)


def _ask(lang: Lang, attr: str, ref: str, rng: random.Random, now: bool = False, cond: bool = False) -> str:
    t = lang.attrs[attr]
    pool = t.ask_now if now else t.ask
    if cond:
        pool = [q for q in pool if "{ref}'s" not in q] or pool
    return cap(rng.choice(pool).format(ref=ref))


_AN = re.compile(r"\b([Aa]) (?=[AEIOUaeiou](?!ne))")


def _articles(s: str) -> str:
    """"a" before a vowel sound is "an" ("an architect", "an iPhone", but "a OnePlus")."""
    return _AN.sub(lambda m: m.group(1) + "n ", s)


def _plan_questions(lang: Lang, persons: list[Person], rng: random.Random) -> list[Plan]:
    zh = lang.code == "zh"
    plans: list[Plan] = []
    others = [i for i, p in enumerate(persons) if not p.is_self]
    me = next(i for i, p in enumerate(persons) if p.is_self)
    used: set[tuple[int, str]] = set()

    # Counts: a group, a condition; every member states the attribute; 1-3 of them meet it.
    groups: dict[str, list[int]] = {}
    for i in others:
        if persons[i].group:
            groups.setdefault(persons[i].group, []).append(i)
    count_opts = [(g, c) for g in groups for c in lang.counts
                  if len(groups[g]) >= 3 and all(c[0] in persons[i].values for i in groups[g])]
    rng.shuffle(count_opts)
    done_groups: list[str] = []
    for g, (attr, tag, tmpl) in count_opts:
        if g in done_groups or len(done_groups) == 3:
            continue
        done_groups.append(g)
        members = groups[g]
        k = rng.randint(1, min(3, len(members) - 1))
        yes = set(rng.sample(members, k))
        pos = [v for v in lang.values[attr] if v.tag == tag]
        neg = [v for v in lang.values[attr] if v.tag != tag]
        ev, facts = [], []
        for i in members:
            p = persons[i]
            p.values[attr] = rng.choice(pos if i in yes else neg)
            p.state(attr)
            p.locked.add(attr)
            used.add((i, attr))
            if i in yes:
                ev.append((i, attr, 0))
                facts.append(p.values[attr].short)
        plans.append(Plan(tmpl.format(g=lang.group_word[g]), ev, lang.facts(str(k), facts), "count"))

    # Updates: a later statement replaces an earlier one.
    cands = [(i, a) for i in others + [me] for a in persons[i].stated if a in UPDATABLE and a not in persons[i].locked]
    rng.shuffle(cands)
    n_upd = 0
    upd_persons: set[int] = set()
    for i, a in cands:
        if n_upd == 4 or i in upd_persons:
            continue
        p = persons[i]
        old = p.values[a]
        chain = [v for v in lang.values[a] if v.short != old.short and old.short not in v.v and v.short not in old.v]
        new = rng.choice(chain)
        p.updates[a] = [new]
        versions = [(i, a, 0)]
        if rng.random() < 0.3:  # an intermediate value first: two statements superseded
            mid = rng.choice([v for v in chain if v != new and new.short not in v.v and v.short not in new.v])
            p.updates[a] = [mid, new]
            versions.append((i, a, 1))
        p.locked.add(a)
        used.add((i, a))
        upd_persons.add(i)
        ref = p.ref if not p.is_self else ("我" if zh else "I")
        if p.is_self:
            q = ("我现在" + {"phone": "用的是什么手机？", "car": "开的是什么车？", "hobby": "最喜欢玩什么？",
                             "company": "在哪家公司上班？", "job": "做什么工作？"}[a]) if zh else \
                {"phone": "What phone do I use now?", "car": "What car do I drive now?", "hobby": "What am I into now?",
                 "company": "Where do I work now?", "job": "What is my job now?"}[a]
        else:
            q = _ask(lang, a, ref, rng, now=True)
        plans.append(Plan(q, [(i, a, len(versions))], new.short, "update", superseded=versions))
        n_upd += 1

    # Comparisons: two persons' ages or heights, or whether they share a hometown.
    n_cmp = 0
    for _ in range(60):
        if n_cmp == 3:
            break
        i, j = rng.sample(others, 2)
        a = rng.choice(["age", "height", "hometown"])
        if a not in persons[i].values or a not in persons[j].values or \
                a in persons[i].updates or a in persons[j].updates or (i, a) in used or (j, a) in used:
            continue
        pi, pj = persons[i], persons[j]
        if a == "hometown":
            if rng.random() < 0.4:
                pj.values[a] = pi.values[a]
            same = pi.values[a].short == pj.values[a].short
            q = rng.choice(lang.same_place).format(a=pi.ref, b=pj.ref)
            answer = lang.facts(lang.yes_no[0] if same else lang.yes_no[1], [pi.values[a].short, pj.values[a].short])
        else:
            if pi.values[a].num == pj.values[a].num:
                continue
            q = rng.choice(lang.compare[a]).format(a=pi.ref, b=pj.ref)
            win = pi if pi.values[a].num > pj.values[a].num else pj
            answer = lang.facts(win.ref, [pi.values[a].short, pj.values[a].short])
        for k in (i, j):
            persons[k].state(a)
            persons[k].locked.add(a)
            used.add((k, a))
        plans.append(Plan(cap(q), [(i, a, 0), (j, a, 0)], answer, "comparison"))
        n_cmp += 1

    # Conditionals: a group member picked out by another of their facts.
    n_cond = 0
    for _ in range(60):
        if n_cond == 4:
            break
        g = rng.choice(list(groups))
        members = groups[g]
        i = rng.choice(members)
        p = persons[i]
        c = rng.choice([a for a in ("company", "hometown", "job", "hobby", "car", "school", "pet", "phone")
                        if a in p.values and a not in p.updates])
        targets = [a for a in ADULT_ATTRS if a in p.values and a != c and a not in p.updates and (i, a) not in used]
        if not targets:
            continue
        t = rng.choice(targets)
        clash = [j for j in members if j != i and c in persons[j].stated
                 and persons[j].values[c].short == p.values[c].short]
        if any(c in persons[j].locked for j in clash):
            continue
        for j in clash:
            persons[j].values[c] = rng.choice([v for v in lang.values[c] if v.short != p.values[c].short])
        if any(v.short in p.values[c].v or p.values[c].short in v.v
               for j in members if j != i and c in persons[j].stated
               for v in [persons[j].values[c]] + persons[j].updates.get(c, [])):
            continue
        p.state(c)
        p.state(t)
        p.locked.update((c, t))
        used.update({(i, t), (i, c)})
        if zh:
            ref = f"我那个{lang.attrs[c].cond.format(s=p.values[c].short)}{lang.group_word[g]}"
        else:
            ref = f"my {'relative' if g == 'family' else g} {lang.attrs[c].cond.format(s=p.values[c].short)}"
        plans.append(Plan(_ask(lang, t, ref, rng, cond=True) if zh else _articles(_ask(lang, t, ref, rng, cond=True)), [(i, c, 0), (i, t, 0)], p.values[t].short, "conditional"))
        n_cond += 1

    # Single facts (two about the user), some asked with extra words around them.
    singles = [(i, a) for i in others for a in persons[i].stated if (i, a) not in used and a not in persons[i].updates]
    rng.shuffle(singles)
    mine = [(me, a) for a in persons[me].stated if (me, a) not in used and a not in persons[me].updates]
    rng.shuffle(mine)
    picked = mine[:2] + singles[:12]
    for n, (i, a) in enumerate(picked):
        p = persons[i]
        if p.is_self:
            q = rng.choice(lang.attrs[a].self_ask)
        else:
            ref = p.ref if rng.random() < 0.75 else rng.choice(p.alts[:1])
            q = _ask(lang, a, ref, rng)
        cat = "single"
        if n % 3 == 2:
            q = rng.choice(lang.ask_prefix) + (q if zh else q[0].lower() + q[1:]) + rng.choice(lang.ask_suffix)
            cat = "noisy"
        used.add((i, a))
        plans.append(Plan(q, [(i, a, 0)], p.values[a].short, cat))
    return plans


# --------------------------------------------------------------------------------------------- turns

@dataclass
class Spec:
    """A turn before rendering: a template with {ref} (or none), its person and fact tag."""

    template: str
    person: int = -1
    tag: tuple[int, str, int] | None = None
    val: Val | None = None
    intro: bool = False
    other: int = -1             # a second person a remark mentions ({ref2})


def _thread(lang: Lang, pi: int, persons: list[Person], rng: random.Random) -> list[Spec]:
    zh = lang.code == "zh"
    p, n_persons = persons[pi], len(persons)
    specs: list[Spec] = []
    if p.is_self:
        for a in p.stated:
            specs.append(Spec(rng.choice(lang.attrs[a].self_say), pi, (pi, a, 0), p.values[a]))
    else:
        for a in p.stated:
            specs.append(Spec(rng.choice(lang.attrs[a].say), pi, (pi, a, 0), p.values[a]))
        fill = rng.sample(lang.filler, rng.randint(5, 9))
        near = [rng.choice(lang.attrs[a].near) for a in rng.sample(list(p.values), rng.randint(3, 5))]
        specs += [Spec(t, pi) for t in fill + near]
        others = [j for j in range(n_persons) if j != pi and not persons[j].is_self]
        specs += [Spec(rng.choice(lang.pair), pi, other=rng.choice(others)) for _ in range(rng.randint(2, 4))]
    rng.shuffle(specs)
    for a, new_vals in p.updates.items():  # updates after the first statement, in order
        for k, v in enumerate(new_vals, start=1):
            if p.is_self:
                tmpl = {"phone": "我把手机换成了{s}。", "car": "我把旧车卖了，换成了{s}。", "hobby": "我最近又迷上了{s}。",
                        "company": "我跳槽去了{s}。", "job": "我转行做{s}了。"}[a] if zh else \
                    {"phone": "I switched my phone to a {s}.", "car": "I sold my car and got a {s}.",
                     "hobby": "These days I'm hooked on {s}.", "company": "I took a new job at {s}.",
                     "job": "I changed careers and now I'm a {s}."}[a]
            else:
                tmpl = rng.choice(lang.attrs[a].update)
            last = max(n for n, s in enumerate(specs) if s.tag is not None and s.tag[1] == a)
            at = rng.randint(last + 1, len(specs))
            specs.insert(at, Spec(tmpl, pi, (pi, a, k), v))
    if not p.is_self and p.kind in lang.groups and rng.random() < 0.7:
        name = p.ref.split()[-1] if not zh else p.ref[len("我") + len(p.kind):]
        specs.insert(0, Spec(rng.choice(lang.intro_named).replace("{k}", p.kind).replace("{n}", name), pi, intro=True))
    elif not p.is_self and rng.random() < 0.3 and p.kind not in ("邻居", "neighbor"):
        specs.insert(0, Spec(rng.choice(lang.intro_single).replace("{k}", p.kind), pi, intro=True))
    return specs


def _noise_thread(lang: Lang, rng: random.Random) -> list[Spec]:
    lines = rng.sample(lang.noise, rng.randint(8, 12))
    heads, tails = lang.noise_parts
    for _ in range(rng.randint(6, 10)):
        h, t = rng.choice(heads), rng.choice(tails)
        lines.append(h + t if lang.code == "zh" else f"{h} {t}")
    return [Spec(line) for line in lines]


def _render(lang: Lang, spec: Spec, persons: list[Person], pronoun_ok: bool, rng: random.Random) -> str:
    if spec.person < 0:
        return spec.template
    zh = lang.code == "zh"
    p = persons[spec.person]
    t = spec.template
    if spec.val is not None:
        t = t.replace("{v}", spec.val.v).replace("{s}", spec.val.short)
    if p.is_self or "{ref}" not in t:
        return t if zh else _articles(cap(t))
    r = rng.random()
    if spec.other >= 0:
        t = t.replace("{ref2}", persons[spec.other].ref if rng.random() < 0.6 else persons[spec.other].alts[0])
    if pronoun_ok and not spec.intro and r < 0.2 and (zh or t.startswith("{ref}")):
        subj, poss = lang.pronoun[p.gender], lang.possessive[p.gender]
    else:
        subj = p.ref if r < 0.6 or not p.alts else rng.choice(p.alts)
        poss = subj + ("的" if zh else "'s")
    if zh:
        return t.replace("{ref}的", poss).replace("{ref}", subj)
    return _articles(cap(t.replace("{ref}'s", poss).replace("{ref}", subj)))


def _bursts(specs: list[Spec], rng: random.Random) -> list[list[Spec]]:
    out: list[list[Spec]] = []
    k = 0
    while k < len(specs):
        n = rng.choice((1, 1, 2, 2, 3, 4))
        out.append(specs[k:k + n])
        k += n
    return out


def generate_daily_log(lang: str, seed: int) -> Conversation:
    """One history (about 500-900 turns, about 40 threads over 5-7 days) and its questions."""
    L = LANGS[lang]
    rng = random.Random(f"daily-{lang}-{seed}")
    persons = _make_persons(L, rng)
    plans = _plan_questions(L, persons, rng)
    threads = [_thread(L, i, persons, rng) for i in range(len(persons))]
    threads += [_noise_thread(L, rng) for _ in range(40 - len(threads) + rng.randint(0, 3))]
    order = interleave(rng, [_bursts(t, rng) for t in threads])
    n = sum(len(b) for b in order)
    days = rng.randint(5, 7)
    start = datetime(2024, rng.randint(1, 11), rng.randint(1, 20))
    times = day_times(n, start, days, lambda m: rng.sample(range(7 * 60, 23 * 60 + 50), m))
    home_city, districts = rng.choice(L.cities)
    trip = rng.choice([c for c in L.cities if c[0] != home_city])
    trip_day = rng.randrange(days)
    log = LogWriter("d{:04d}", first=1)
    k = 0
    for burst in order:
        city, dists = trip if (times[k] - start).days == trip_day else (home_city, districts)
        district, spot = rng.choice(dists), rng.choice(L.spots)
        for pos, spec in enumerate(burst):
            prev = burst[pos - 1] if pos else None
            pronoun_ok = prev is not None and prev.person == spec.person
            text = stamp(L.prefix, times[k], city=city, district=district, spot=spot)
            log.add(text + _render(L, spec, persons, pronoun_ok, rng), timestamp=times[k],
                    tags=() if spec.tag is None else (spec.tag,))
            k += 1
    questions: list[Question] = []
    for pl in plans:
        q = question(pl.question, [log.id_of(t) for t in pl.evidence], pl.answer, pl.category,
                     [log.id_of(t) for t in pl.superseded])
        for f in answer_facts(q):
            assert any(f in statement_of(log.by_id[e]) for e in q["evidence"]), (f, q)
        questions.append(q)
    return log.conversation(questions)


def daily_log_set(lang: str, seeds: Sequence[int], split: str) -> DevSet:
    """``zh-daily`` / ``en-daily``: ``HISTORIES_PER_SEED`` histories per seed."""
    return seeded_set(f"{lang}-daily", split, seeds, HISTORIES_PER_SEED, partial(generate_daily_log, lang))
