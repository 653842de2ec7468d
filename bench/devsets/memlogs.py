"""Harder generated statement logs (issue 14): one user's short statements about ~40 threads.

Shape: each history is 24-42 unrelated threads (one person of the user's life, or the user's own
things), interleaved by time over a few days; every turn is prefixed with its time and place and
has role ``user``. What makes it hard, on purpose:

- 300-800 turns, so a 1k/2k/4k budget holds only a small share of the history;
- relations repeat (two colleagues, three friends): such people are always named, and a question
  names them, or picks one by an earlier fact ("my friend who has a corgi" -> two evidence turns);
- facts change later ("X changed jobs, now a nurse"): a "now" question's evidence is the update turn,
  and the older statement stays behind as a distractor;
- near-miss turns share the question's words but not its answer ("X says work is exhausting");
- questions are often worded apart from the evidence ("job" vs "works as", 职业 vs 当);
- comparisons across two threads (two evidence turns), filler chit-chat, varied templates.

Every template is our own (CC0). A (language, seed) pair fixes a history. Run
``python -m bench.devsets memlog zh 1`` to print one history with its questions.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .model import Conversation, Question
from .writer import LogWriter, cap, question, stamp

WAKING_HOURS = 16          # turns fall between 07:00 and 23:00
MAX_TURNS = 800


@dataclass(frozen=True)
class Difficulty:
    """The knobs of a log's difficulty. The defaults are ``zh-memlog`` / ``en-memlog`` exactly (their
    digests are pinned); ``HARD`` is ``*-memlog-hard``: more people of one kind, more turns that share a
    question's words but not its answer, more updates, longer logs."""

    threads: tuple[int, int] = (24, 42)
    max_turns: int = MAX_TURNS
    relation_weights: tuple[float, ...] | None = None   # None: the language's own
    named_share: float = 0.5           # share of people named, among several of a kind
    update_share: float = 0.35         # share of a person's facts that change later
    near_per_fact: tuple[int, ...] = (0, 1, 1, 2)
    near_other: tuple[int, int] = (1, 3)          # near-miss turns about facts the person lacks
    fillers: tuple[int, int] = (3, 10)
    major_share: float = 0.2
    major_fillers: tuple[int, int] = (15, 30)
    # Hard only (each draws from the generator only when on, so the defaults stay bit-identical):
    # near-miss turns that carry the person's name, like their facts do, so the name alone no
    # longer picks the fact out; and turns that restate a *question's* wording about someone else.
    named_near: float = 0.0
    question_echoes: int = 0


HARD = Difficulty(threads=(36, 48), max_turns=1100,
                  relation_weights=(8, 8, 5, 3, 1.5, 1.5, 1, 1, 1, 1, 1, 1.5, 1, 1),
                  update_share=0.5, near_per_fact=(1, 2, 2, 3), near_other=(2, 4), fillers=(6, 14),
                  major_share=0.25, named_near=0.6, question_echoes=1)


def _split(text: str) -> tuple[str, ...]:
    return tuple(s for s in text.split("|") if s)


@dataclass(frozen=True)
class Attr:
    """One kind of fact about a person: its values and the ways to state, update, ask and hint at it.

    Templates take ``{who}`` (a person reference) and ``{v}`` (the value). ``cond`` describes a person
    by this fact for a conditional question; ``compare`` asks which of ``{a}`` and ``{b}`` ranks first
    (by ``rank``: the value's position, earliest = first); ``near`` mentions the fact's words only.
    """

    key: str
    values: tuple[str, ...]
    state: tuple[str, ...]
    ask: tuple[str, ...]
    near: tuple[str, ...]
    update: tuple[str, ...] = ()
    ask_now: tuple[str, ...] = ()
    cond: tuple[str, ...] = ()
    compare: tuple[str, ...] = ()


def attr(key: str, values: str, state: str, ask: str, near: str, update: str = "", ask_now: str = "",
         cond: str = "", compare: str = "") -> Attr:
    return Attr(key, _split(values), _split(state), _split(ask), _split(near), _split(update),
                _split(ask_now), _split(cond), _split(compare))


@dataclass(frozen=True)
class Lang:
    """Everything language-specific: word pools, templates and how a person is referred to."""

    relations: tuple[tuple[str, float], ...]  # relation, weight (common ones repeat within a history)
    names: tuple[str, ...]
    places: tuple[str, ...]
    cities: tuple[tuple[str, tuple[str, ...]], ...]   # city, its districts: where the user is
    weekdays: tuple[str, ...]
    attrs: tuple[Attr, ...]
    self_attrs: tuple[Attr, ...]     # the user's own facts: templates without {who}
    fillers: tuple[str, ...]         # about a person, no fact words
    pronoun_fillers: tuple[str, ...]
    chitchat: tuple[str, ...]        # about nothing in particular
    intro: tuple[str, ...]           # first mention of a named person: {rel} {name}
    ref_named: tuple[str, ...]       # {rel} {name}, or {name} alone
    ref_plain: str                   # {rel}
    ask_named: str                   # how a question names a person
    cond_ref: str                    # {rel} {cond}
    prefix: str
    female_names: frozenset[str] = frozenset()
    male_relations: frozenset[str] = frozenset()
    female_relations: frozenset[str] = frozenset()
    echo: tuple[str, ...] = ()       # someone else asks what a question would ask: {ask}


def _zh_date(m: int, d: int) -> str:
    return f"{m}月{d}日"


ZH = Lang(
    relations=(("同事", 6), ("朋友", 6), ("同学", 4), ("邻居", 3), ("叔叔", 2), ("阿姨", 2), ("表哥", 1.5),
               ("表妹", 1.5), ("老板", 1), ("室友", 1.5), ("领导", 1), ("客户", 1.5), ("舅舅", 1), ("前同事", 1)),
    names=_split("张伟|李娜|王强|刘洋|陈静|杨帆|赵磊|黄丽|周杰|吴敏|徐涛|孙悦|马超|朱琳|胡斌|郭峰|何欢|林晓|高远|罗丹|"
                 "宋佳|唐亮|韩梅|冯刚|邓雨|曹颖|彭飞|曾琪|萧然|田野|董洁|袁野|潘虹|蒋勤|蔡明|余晖|杜鹃|叶青|程程|魏来|"
                 "沈浩|吕薇|苏航|卢鹏|丁宁|任静|姚远|钟鸣|谭晶|陆川|汪洋|范冰|方圆|石磊|廖凡|邹静|熊伟|金鑫|白露|秦岚"),
    places=_split("公司|家里|地铁上|咖啡馆|健身房|超市|公园|医院|学校|餐厅|出租车上|高铁站|图书馆|小区楼下|商场|办公室"),
    cities=(("北京市", _split("朝阳区|海淀区|东城区|西城区|丰台区")), ("上海市", _split("浦东新区|徐汇区|静安区|黄浦区|闵行区")),
            ("杭州市", _split("西湖区|滨江区|上城区|拱墅区")), ("广州市", _split("天河区|越秀区|海珠区|番禺区")),
            ("成都市", _split("武侯区|锦江区|青羊区|高新区")), ("深圳市", _split("南山区|福田区|罗湖区|宝安区"))),
    weekdays=_split("周一|周二|周三|周四|周五|周六|周日"),
    attrs=(
        attr("job",
             "厨师长|中学老师|出租车司机|软件工程师|护士|会计|律师|消防员|药剂师|摄影师|建筑师|快递员|牙医|银行柜员|"
             "健身教练|翻译|记者|飞行员|外卖骑手|幼儿园老师|保险经纪人|兽医",
             "{who}是{v}。|{who}现在是一名{v}。|{who}做{v}已经十年了。|{who}在一家大公司当{v}。|{who}的工作是{v}。|"
             "{who}干{v}这一行挺久了。|听说{who}是{v}，怪不得那么忙。|{who}毕业以后一直当{v}。",
             "{who}是做什么工作的呢？|{who}的职业是什么？|{who}是干什么的？|{who}从事什么行业？|{who}靠什么谋生？",
             "{who}说最近工作压力很大。|{who}在考虑要不要换工作。|{who}问我工作找得怎么样了。|{who}的公司最近在裁员。|"
             "{who}今天加班到很晚。|{who}抱怨单位食堂不好吃。|{who}说这份职业越来越难做了。|{who}在准备一个职业资格考试。",
             update="{who}换工作了，现在当{v}。|{who}辞职了，改行做了{v}。|{who}转行成了{v}。|"
                    "{who}说已经不干原来那行了，现在是{v}。|{who}上个月跳槽，成了{v}。",
             ask_now="{who}现在是做什么工作的？|{who}现在的职业是什么？|{who}现在干哪一行？|{who}如今做什么？",
             cond="当{v}的|做{v}的"),
        attr("hometown",
             "黑龙江哈尔滨|四川成都|广东汕头|浙江温州|湖南长沙|山东青岛|云南大理|江苏苏州|福建厦门|陕西西安|河南洛阳|"
             "广西桂林|吉林长春|湖北武汉|甘肃兰州|贵州遵义|江西赣州|安徽黄山",
             "{who}来自{v}。|{who}老家在{v}。|{who}是{v}人。|{who}在{v}长大。|{who}的家乡是{v}。|{who}出生在{v}。",
             "{who}是哪里人？|{who}来自哪里？|{who}的老家在哪儿？|{who}是在哪里长大的？|{who}的籍贯是哪儿？",
             "{who}说想回老家看看。|{who}老家那边下大雪了。|{who}过年要回家乡。|{who}给我带了家乡的特产。|"
             "{who}说很久没回去了，有点想家。",
             cond="来自{v}的|老家在{v}的"),
        attr("residence",
             "朝阳区|海淀区|浦东新区|天河区|南山区|西湖区|江北区|武侯区|鼓楼区|雁塔区|和平区|滨江区",
             "{who}住在{v}。|{who}家在{v}。|{who}在{v}租了房子。|{who}一直住{v}那边。",
             "{who}住在哪个区？|{who}家住哪儿？|{who}的住处在哪里？",
             "{who}说住的地方离公司太远。|{who}家附近新开了一家超市。|{who}在找房子。|{who}嫌房租太贵了。|"
             "{who}说小区物业不太靠谱。",
             update="{who}搬家了，现在住在{v}。|{who}上个月搬到了{v}。|{who}在{v}买了新房，已经搬过去了。",
             ask_now="{who}现在住在哪里？|{who}搬到哪里去了？|{who}现在家在哪个区？",
             cond="住在{v}的"),
        attr("hobby",
             "钓鱼|下围棋|跑马拉松|弹吉他|养多肉|打羽毛球|摄影|爬山|做陶艺|练书法|滑雪|跳广场舞|打麻将|画油画|"
             "玩剧本杀|骑自行车|游泳|织毛衣",
             "{who}最喜欢{v}。|{who}业余时间都在{v}。|{who}一有空就去{v}。|{who}迷上了{v}。|{who}的爱好是{v}。|"
             "{who}周末基本都在{v}。",
             "{who}平时有什么爱好？|{who}喜欢做什么？|{who}空闲时间一般干什么？|{who}有什么兴趣爱好？|{who}周末喜欢干嘛？",
             "{who}说周末想找点事做。|{who}问我有什么爱好。|{who}这周末哪儿也没去。|{who}说最近没空玩。|"
             "{who}想培养一个新爱好。",
             update="{who}最近改玩{v}了，以前的爱好都放下了。|{who}现在迷上了{v}，天天去。|{who}不再玩原来那些了，改成了{v}。",
             ask_now="{who}现在的爱好是什么？|{who}最近迷上了什么？|{who}如今空闲时间干什么？",
             cond="喜欢{v}的"),
        attr("car",
             "比亚迪汉|特斯拉Model 3|大众帕萨特|丰田凯美瑞|蔚来ES6|五菱宏光|本田雅阁|理想L7|宝马X3|吉利星越|小鹏P7",
             "{who}开的是{v}。|{who}刚买了一辆{v}。|{who}每天开{v}上班。|{who}的车是{v}。|{who}提了一辆{v}。",
             "{who}开什么车？|{who}的车是什么牌子？|{who}开的是哪款车？|{who}平时开哪辆车？",
             "{who}的车送去保养了。|{who}说停车位太难找。|{who}在考虑换车。|{who}的车被人刮了一下。|"
             "{who}今天开车堵在路上了。|{who}问我洗车去哪儿好。",
             update="{who}把旧车卖了，换了一辆{v}。|{who}换车了，新车是{v}。|{who}的新车到了，是{v}。",
             ask_now="{who}现在开什么车？|{who}的新车是什么？|{who}换了什么车？",
             cond="开{v}的"),
        attr("pet",
             "橘猫|柯基|金毛|鹦鹉|仓鼠|布偶猫|乌龟|泰迪|哈士奇|兔子|边牧|暹罗猫",
             "{who}养了一只{v}。|{who}家里有一只{v}。|{who}家的{v}特别粘人。|{who}收养了一只{v}。|{who}天天晒他家的{v}。",
             "{who}养了什么宠物？|{who}家里养的是什么动物？|{who}有宠物吗，是什么？|{who}家的毛孩子是什么？",
             "{who}的宠物最近生病了。|{who}问我宠物医院在哪里。|{who}说想再养一只宠物。|{who}出差时把宠物寄养了。|"
             "{who}给宠物买了新玩具。",
             cond="养{v}的|家里有{v}的"),
        attr("food",
             "火锅|饺子|烤鸭|螺蛳粉|小龙虾|寿司|煎饼果子|麻辣烫|羊肉串|肠粉|热干面|生煎包|酸菜鱼",
             "{who}特别爱吃{v}。|{who}每周都要吃一次{v}。|{who}最喜欢的就是{v}。|{who}说{v}怎么吃都吃不腻。|"
             "{who}一馋就去吃{v}。",
             "{who}爱吃什么？|{who}最喜欢的食物是什么？|{who}口味怎么样，爱吃啥？|{who}最喜欢吃什么？|{who}的最爱是什么菜？",
             "{who}说晚上想吃点好的。|{who}问我附近有什么好吃的。|{who}在减肥，不敢多吃。|{who}请我吃了顿饭。|"
             "{who}说最近食欲不好。",
             cond="爱吃{v}的"),
        attr("phone",
             "华为Mate60|iPhone 15|小米14|OPPO Find X7|vivo X100|荣耀Magic6|三星S24|一加12",
             "{who}用的手机是{v}。|{v}是{who}的心头好。|{who}一直用{v}。|{who}新买了{v}。|{who}的手机是{v}。",
             "{who}用什么手机？|{who}的手机是什么牌子的？|{who}用的是哪款手机？",
             "{who}的手机屏幕摔碎了。|{who}的手机老是没电。|{who}问我手机怎么备份照片。|{who}给手机换了个新壳。",
             update="{who}换了新手机，现在用{v}。|{who}的旧手机坏了，换成了{v}。",
             ask_now="{who}现在用什么手机？|{who}换了什么手机？",
             cond="用{v}的"),
        attr("school",
             "北京大学|浙江大学|武汉大学|中山大学|四川大学|南京大学|厦门大学|山东大学|吉林大学|同济大学|兰州大学|湖南大学",
             "{who}是{v}毕业的。|{who}毕业于{v}。|{who}当年考上了{v}。|{who}在{v}读的本科。",
             "{who}是哪个学校毕业的？|{who}上的是哪所大学？|{who}的母校是哪里？",
             "{who}说最近要参加校友聚会。|{who}在准备考研。|{who}说上学那会儿可真穷。|{who}的孩子明年要考大学了。",
             cond="{v}毕业的"),
        attr("drink",
             "美式咖啡|龙井茶|奶茶|可乐|普洱茶|酸梅汤|豆浆|燕京啤酒|椰子水|柠檬水",
             "{who}每天都要喝{v}。|{who}只喝{v}。|{who}离不开{v}。|{who}一坐下就点{v}。",
             "{who}爱喝什么？|{who}平时喝什么饮料？|{who}最喜欢的饮品是什么？",
             "{who}说最近睡不好，不敢喝太多。|{who}请大家喝东西。|{who}说戒糖一个月了。",
             cond="爱喝{v}的"),
        attr("child",
             "幼儿园|小学一年级|小学四年级|初二|高一|高三|大学二年级",
             "{who}的孩子在上{v}。|{who}家孩子今年读{v}了。|{who}的女儿刚上{v}。|{who}的儿子在读{v}。",
             "{who}的孩子上几年级了？|{who}家孩子读到哪个阶段了？|{who}的小孩在念什么年级？",
             "{who}说孩子的作业太多了。|{who}在给孩子找补习班。|{who}家孩子放假了。|{who}说带娃太累了。"),
        attr("birthday",
             "1月8日|2月14日|3月5日|4月21日|5月30日|6月18日|7月20日|8月3日|9月9日|10月27日|11月11日|12月1日",
             "{who}的生日是{v}。|{who}{v}过生日。|{v}是{who}的生日。|{who}是{v}出生的。",
             "{who}的生日是哪天？|{who}什么时候过生日？|{who}是哪天出生的？",
             "{who}问我生日想要什么礼物。|下个月要给{who}准备礼物。|{who}说今年生日不想过了。",
             compare="{a}和{b}谁的生日更早？|{a}和{b}，一年里谁先过生日？"),
        attr("age",
             "23岁|26岁|29岁|31岁|34岁|37岁|40岁|43岁|46岁|52岁|58岁|63岁|67岁",
             "{who}今年{v}了。|{who}已经{v}了，看着还很年轻。|{who}今年刚满{v}。",
             "{who}多大了？|{who}今年几岁？|{who}年纪多大？",
             "{who}说自己老了，爬楼都喘。|{who}在操心孩子上学的事。|{who}说年纪大了熬不了夜。",
             compare="{a}和{b}谁更年轻？|{a}和{b}，哪个年纪小一些？"),
    ),
    self_attrs=(
        attr("my-phone", "华为Mate60|iPhone 15|小米14|OPPO Find X7|vivo X100|荣耀Magic6",
             "{v}是我的心头好。|我一直用{v}。|我的手机是{v}。",
             "我用的是什么手机？|我的手机是什么牌子？",
             "我的手机屏幕又摔裂了。|手机快没电了，得找地方充电。|想换个手机壳。",
             update="我换了新手机，现在用{v}。|旧手机坏了，我换成了{v}。", ask_now="我现在用什么手机？"),
        attr("my-trip", "三亚|杭州|西安|重庆|拉萨|青岛|厦门|桂林|成都|哈尔滨",
             "我下个月要去{v}旅游。|我订好了去{v}的机票。|打算国庆去{v}玩几天。",
             "我打算去哪里旅游？|我的旅行目的地是哪儿？|我假期要去哪玩？",
             "在研究旅游攻略。|假期快到了，想出去玩。|旅行箱该换了。",
             update="旅行计划改了，我改去{v}。|原来的行程取消了，现在打算去{v}。", ask_now="我现在计划去哪儿旅行？"),
        attr("my-gym", "周一|周二|周三|周四|周五|周六|周日",
             "我每周{v}去健身房。|{v}晚上是我的健身时间。",
             "我一般哪天去健身？|我每周什么时候锻炼？",
             "今天没去健身，太累了。|健身卡快到期了。",
             update="健身时间调了，以后{v}去。", ask_now="我现在哪天去健身？"),
        attr("my-book", "《三体》|《活着》|《百年孤独》|《围城》|《平凡的世界》|《红楼梦》|《人类简史》",
             "我最近在读{v}。|睡前在看{v}，挺有意思。|刚买了一本{v}。",
             "我最近在看什么书？|我在读哪本书？",
             "睡前看了会儿书。|书架该整理了。|想办张图书馆的借书卡。"),
        attr("my-course", "日语|游泳|烘焙|钢琴|Python编程|瑜伽|吉他|驾驶",
             "我报了一个{v}课。|我在学{v}，每周两次。|我开始上{v}课了。",
             "我报了什么课程？|我在学什么？|我最近在上什么课？",
             "今晚要上课，得早点走。|课程表又改了。|这周的作业还没做完。"),
    ),
    fillers=_split("今天和{who}一起吃了午饭。|刚给{who}打了个电话。|{who}昨晚很晚才睡。|{who}让我帮忙搬东西。|"
                   "和{who}聊了很久。|{who}给我发了张照片。|{who}说下周要出差。|{who}最近心情不错。|"
                   "{who}感冒了，在家休息。|{who}约我周末去看电影。|{who}帮我取了快递。|{who}在朋友圈晒了旅游照。|"
                   "{who}借了我一把伞。|{who}最近在学做饭。|{who}送了我一盒茶叶。|{who}说这几天睡不好。|"
                   "{who}问我周末有没有空。|{who}刚从外地回来。"),
    pronoun_fillers=_split("他说那边天气很冷。|她刚发来一张照片。|他最近在减肥。|她说周末要加班。|他问我借了一本书。|"
                           "她说下次请我吃饭。"),
    chitchat=_split("今天天气真好。|地铁上人好多。|刚看完一部电影，挺感人的。|中午吃了碗牛肉面。|又下雨了，忘了带伞。|"
                    "今天好困，想早点睡。|楼下的咖啡馆换了老板。|周末打算大扫除。|最近在追一部电视剧。|今天走了一万步。|"
                    "快递又延误了。|晚上去超市买了点水果。|最近工作太忙了。|想换个新手机。|我的车该保养了。|"
                    "今天开会开了一整天。|路上堵车，迟到了十分钟。|晚饭不知道吃什么。|家里的空调坏了。|"
                    "朋友圈都在晒旅游照。|今天的咖啡有点苦。|明天要早起。"),
    intro=_split("我有个{rel}叫{name}。|我{rel}{name}最近常联系。|说说我{rel}{name}。|我的{rel}{name}今天来找我了。"),
    ref_named=_split("我{rel}{name}|{name}|{name}|我的{rel}{name}"),
    ref_plain="我{rel}",
    ask_named="我{rel}{name}",
    cond_ref="我那个{cond}{rel}",
    prefix="{year}年{month}月{day}日 {weekday} {hh:02d}:{mm:02d}，{city}{district}，{place}：",
    female_names=frozenset(_split("李娜|陈静|黄丽|吴敏|孙悦|朱琳|何欢|林晓|罗丹|宋佳|韩梅|曹颖|曾琪|董洁|潘虹|杜鹃|叶青|"
                                  "程程|吕薇|任静|谭晶|范冰|邹静|白露|秦岚|邓雨")),
    male_relations=frozenset(_split("叔叔|舅舅|表哥")),
    female_relations=frozenset(_split("阿姨|表妹|姑姑")),
    echo=_split("妈妈打电话问：{ask}我也说不清楚。|有人问我：{ask}我想了半天没想起来。|"
                "饭桌上大家聊起来：{ask}没人知道。|我在想：{ask}下次当面问问。"),
)


EN = Lang(
    relations=(("colleague", 6), ("friend", 6), ("classmate", 4), ("neighbour", 3), ("uncle", 2), ("aunt", 2),
               ("cousin", 1.5), ("niece", 1.5), ("boss", 1), ("roommate", 1.5), ("manager", 1), ("client", 1.5),
               ("brother-in-law", 1), ("former colleague", 1)),
    names=_split("Tom|Anna|Mark|Lucy|Peter|Grace|David|Emma|Jack|Olivia|Sam|Chloe|Ben|Nora|Leo|Ruth|Adam|Iris|"
                 "Owen|Maya|Hugo|Ella|Ivan|Lena|Noah|Zoe|Felix|Mia|Oscar|Ada|Rex|Tess|Gus|Vera|Neil|Joy|Abe|"
                 "Kim|Roy|Bea|Carl|Dina|Eric|Faye|Glen|Hana|Ian|Jade|Kurt|Lola|Milo|Nina|Otto|Pia|Quinn|Rosa|"
                 "Seth|Tara|Uma|Vince"),
    places=_split("the office|home|the subway|a cafe|the gym|the supermarket|the park|the hospital|school|"
                  "a restaurant|a taxi|the station|the library|the lobby|the mall|my desk"),
    cities=(("London", _split("Camden|Islington|Hackney|Southwark|Greenwich")),
            ("New York", _split("Brooklyn|Queens|Harlem|Chelsea|Tribeca")),
            ("Berlin", _split("Kreuzberg|Mitte|Neukolln|Pankow")), ("Melbourne", _split("Fitzroy|Carlton|Richmond|St Kilda")),
            ("Edinburgh", _split("Leith|Morningside|Stockbridge|Newington")),
            ("Toronto", _split("Annex|Leslieville|Parkdale|Yorkville"))),
    weekdays=_split("Mon|Tue|Wed|Thu|Fri|Sat|Sun"),
    attrs=(
        attr("job",
             "a head chef|a high-school teacher|a taxi driver|a software engineer|a nurse|an accountant|a lawyer|"
             "a firefighter|a pharmacist|a photographer|an architect|a courier|a dentist|a bank clerk|"
             "a fitness trainer|a translator|a reporter|a pilot|a delivery rider|a kindergarten teacher|"
             "an insurance broker|a vet",
             "{who} is {v}.|{who} works as {v} now.|{who} has been {v} for ten years.|"
             "{who} is {v} at a big firm.|{who}'s line of work: {v}.|Turns out {who} is {v}, no wonder the long hours."
             "|{who} became {v} right after graduating.",
             "What does {who} do for a living?|What is {who}'s job?|What is {who}'s occupation?|"
             "What line of work is {who} in?|How does {who} earn a living?",
             "{who} says work has been stressful lately.|{who} is thinking about a new job.|"
             "{who} asked how my job hunt is going.|{who}'s company is laying people off.|{who} worked late again.|"
             "{who} complains about the canteen at work.|{who} says the occupation gets harder every year.|"
             "{who} is studying for a professional exam.",
             update="{who} changed jobs and is {v} now.|{who} quit and retrained as {v}.|{who} switched careers: {v} now."
                    "|{who} says the old job is over, and works as {v} these days.|{who} moved on last month to be {v}.",
             ask_now="What does {who} do for a living now?|What is {who}'s job now?|What is {who}'s current occupation?"
                     "|What does {who} work as these days?",
             cond="works as {v}|is {v}"),
        attr("hometown",
             "Harbin|Chengdu|Leeds|Porto|Osaka|Denver|Krakow|Dublin|Adelaide|Quebec|Naples|Bergen|Austin|Cork|"
             "Lyon|Tampere|Busan|Galway",
             "{who} comes from {v}.|{who} grew up in {v}.|{who} is originally from {v}.|{who} was born in {v}.|"
             "{who}'s family home is in {v}.",
             "Where is {who} from?|Which city does {who} come from?|Where did {who} grow up?|"
             "What is {who}'s hometown?",
             "{who} wants to visit home soon.|{who} says it is snowing back home.|{who} is going home for the holidays."
             "|{who} brought me snacks from home.|{who} misses the hometown a lot.",
             cond="comes from {v}|grew up in {v}"),
        attr("residence",
             "Camden|Brooklyn|Kreuzberg|Shoreditch|Queens|Leith|Fitzroy|Harlem|Montmartre|Soho|Clapham|Ealing",
             "{who} lives in {v}.|{who} has a flat in {v}.|{who} rents a place in {v}.|{who}'s home is in {v}.",
             "Which neighbourhood does {who} live in?|Where does {who} live?|Where is {who}'s place?",
             "{who} says the flat is too far from work.|A new supermarket opened near {who}'s place.|"
             "{who} is flat hunting.|{who} says the rent is too high.|{who} complains about the landlord.",
             update="{who} moved and lives in {v} now.|{who} moved to {v} last month.|"
                    "{who} bought a place in {v} and has moved in.",
             ask_now="Where does {who} live now?|Where did {who} move to?|Which neighbourhood is {who} in now?",
             cond="lives in {v}"),
        attr("hobby",
             "fishing|playing go|running marathons|playing the guitar|growing succulents|badminton|photography|"
             "hiking|pottery|calligraphy|skiing|ballroom dancing|mahjong|oil painting|murder-mystery games|"
             "cycling|swimming|knitting",
             "{who} loves {v}.|{who} spends every free hour on {v}.|{who} is mad about {v}.|{who}'s big passion is {v}."
             "|Weekends for {who} mean {v}.|{who} got hooked on {v}.",
             "What is {who}'s hobby?|What does {who} like doing?|What does {who} do in spare time?|"
             "What are {who}'s interests?|How does {who} spend weekends?",
             "{who} wants something to do at the weekend.|{who} asked me about my hobbies.|"
             "{who} stayed in all weekend.|{who} says there is no time for fun lately.|{who} wants a new hobby.",
             update="{who} has given up the old pastimes for {v}.|{who} is into {v} now, every single day.|"
                    "{who} dropped everything else and took up {v}.",
             ask_now="What is {who}'s hobby now?|What is {who} into these days?|What does {who} do in spare time now?",
             cond="loves {v}"),
        attr("car",
             "a BYD Han|a Tesla Model 3|a VW Passat|a Toyota Camry|a Nio ES6|a Ford Fiesta|a Honda Accord|"
             "a Volvo XC60|a BMW X3|a Kia Niro|a Mini Cooper",
             "{who} drives {v}.|{who} just bought {v}.|{who} takes {v} to work every day.|{who}'s car is {v}.|"
             "{who} picked up {v} from the dealer.",
             "What car does {who} drive?|Which car does {who} have?|What does {who} drive?|What make is {who}'s car?",
             "{who}'s car is in for service.|{who} says parking is impossible.|{who} is thinking of a new car.|"
             "Someone scratched {who}'s car.|{who} was stuck in traffic for an hour.|{who} asked me where to get the car washed.",
             update="{who} sold the old car and got {v}.|{who} has a new car: {v}.|{who}'s new car arrived, {v}.",
             ask_now="What car does {who} drive now?|What is {who}'s new car?|What did {who} replace the car with?",
             cond="drives {v}"),
        attr("pet",
             "ginger cat|corgi|golden retriever|parrot|hamster|ragdoll cat|tortoise|poodle|husky|rabbit|border collie"
             "|siamese cat",
             "{who} has a {v}.|{who} keeps a {v} at home.|{who}'s {v} is very clingy.|{who} adopted a {v}.|"
             "{who} posts photos of the {v} daily.",
             "What pet does {who} have?|What animal does {who} keep?|Does {who} have a pet, and what is it?",
             "{who}'s pet is ill.|{who} asked me where the vet is.|{who} wants another pet.|"
             "{who} left the pet with a sitter for the trip.|{who} bought a new toy for the pet.",
             cond="has a {v}|keeps a {v}"),
        attr("food",
             "hot pot|dumplings|roast duck|river-snail noodles|crayfish|sushi|pancakes|spicy soup|lamb skewers|"
             "rice rolls|dry noodles|fried buns|pickled fish",
             "{who} adores {v}.|{who} eats {v} every week.|{who}'s absolute favourite is {v}.|"
             "{who} never gets tired of {v}.|{who} goes for {v} whenever hungry.",
             "What food does {who} love?|What is {who}'s favourite food?|What does {who} like to eat?|"
             "Which dish does {who} like best?",
             "{who} wants something nice for dinner.|{who} asked me about good food nearby.|"
             "{who} is on a diet and eats little.|{who} treated me to a meal.|{who} has no appetite lately.",
             cond="adores {v}"),
        attr("phone",
             "a Huawei Mate 60|an iPhone 15|a Xiaomi 14|a Pixel 8|a Galaxy S24|a OnePlus 12|a Nokia G42",
             "{who} uses {v}.|{who} swears by {v}.|{who} has always used {v}.|{who} bought {v}.|{who}'s phone is {v}.",
             "What phone does {who} use?|Which phone does {who} have?|What is {who}'s phone?",
             "{who} cracked the phone screen.|{who}'s phone battery dies all the time.|"
             "{who} asked me how to back up phone photos.|{who} got a new phone case.",
             update="{who} got a new phone, {v} now.|{who}'s old phone broke, so it is {v} now.",
             ask_now="What phone does {who} use now?|What is {who}'s new phone?",
             cond="uses {v}"),
        attr("school",
             "Oxford|Leeds University|McGill|Trinity College|Tsinghua|Sciences Po|Monash|Edinburgh|UCLA|"
             "Heidelberg|Waseda|Bocconi",
             "{who} graduated from {v}.|{who} studied at {v}.|{who} got into {v} years ago.|{who} is a {v} graduate.",
             "Which university did {who} attend?|Where did {who} go to college?|What is {who}'s alma mater?",
             "{who} is off to a reunion soon.|{who} is thinking about a master's degree.|"
             "{who} says student life was hard.|{who}'s kid applies to universities next year.",
             cond="graduated from {v}|studied at {v}"),
        attr("drink",
             "black coffee|green tea|bubble tea|cola|pu-erh tea|ginger ale|soy milk|lager|coconut water|lemonade",
             "{who} drinks {v} every day.|{who} only drinks {v}.|{who} cannot live without {v}.|"
             "{who} always orders {v}.",
             "What does {who} like to drink?|What is {who}'s usual drink?|What beverage does {who} prefer?",
             "{who} is sleeping badly and cutting down.|{who} bought drinks for everyone.|"
             "{who} has been off sugar for a month.",
             cond="drinks {v}"),
        attr("child",
             "kindergarten|first grade|fourth grade|eighth grade|tenth grade|senior year|second year of university",
             "{who}'s kid is in {v}.|{who}'s son is in {v} this year.|{who}'s daughter just started {v}.|"
             "{who}'s child goes to {v} now.",
             "What grade is {who}'s kid in?|How far along in school is {who}'s child?|"
             "Which year of school is {who}'s child in?|What grade is the child of {who} in?",
             "{who} says the kids get too much homework.|{who} is looking for a tutor for the kids.|"
             "{who}'s kids are on holiday.|{who} says parenting is exhausting."),
        attr("birthday",
             "January 8|February 14|March 5|April 21|May 30|June 18|July 20|August 3|September 9|October 27|"
             "November 11|December 1",
             "{who}'s birthday is on {v}.|{who} celebrates a birthday on {v}.|{v} is {who}'s birthday.|"
             "{who} was born on {v}.",
             "When is {who}'s birthday?|On what day was {who} born?|When does {who} celebrate a birthday?",
             "{who} asked what I want for my birthday.|I need a present for {who} next month.|"
             "{who} does not want a party this year.",
             compare="Whose birthday comes first in the year, {a} or {b}?|Who has the earlier birthday, {a} or {b}?"),
        attr("age",
             "23|26|29|31|34|37|40|43|46|52|58|63|67",
             "{who} is {v} this year.|{who} turned {v}, and still looks young.|{who} has just turned {v}.",
             "How old is {who}?|What age is {who}?|How many years old is {who}?",
             "{who} says age makes the stairs hard.|{who} worries about the kids' school.|"
             "{who} says staying up late is not possible any more.",
             compare="Who is younger, {a} or {b}?|Which one is younger, {a} or {b}?"),
    ),
    self_attrs=(
        attr("my-phone", "a Huawei Mate 60|an iPhone 15|a Xiaomi 14|a Pixel 8|a Galaxy S24|a OnePlus 12",
             "{v} is my favourite gadget.|I have always used {v}.|My phone is {v}.",
             "What phone do I use?|Which phone do I have?",
             "Cracked my phone screen again.|Phone almost dead, need a charger.|Want a new phone case.",
             update="I got a new phone, {v}.|My old phone broke, so I switched to {v}.",
             ask_now="What phone do I use now?"),
        attr("my-trip", "Sanya|Hangzhou|Lisbon|Kyoto|Reykjavik|Seville|Hanoi|Cape Town|Vienna|Bruges",
             "I am going to {v} on holiday next month.|Booked my flights to {v}.|Planning a few days in {v}.",
             "Where am I going on holiday?|What is my travel destination?|Where do I plan to travel?",
             "Reading travel guides tonight.|The holidays are close, I want to get away.|My suitcase is falling apart.",
             update="Travel plans changed: I am going to {v} instead.|Cancelled the old trip; {v} it is now.",
             ask_now="Where am I travelling now?"),
        attr("my-gym", "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday",
             "I go to the gym every {v}.|{v} evenings are my workout time.",
             "Which day do I usually work out?|When do I exercise each week?",
             "Skipped the gym today, too tired.|My gym card expires soon.",
             update="Moved my gym day to {v}.", ask_now="Which day do I go to the gym now?"),
        attr("my-book", "Dune|Middlemarch|The Three-Body Problem|Beloved|Sapiens|Moby-Dick|Stoner",
             "I am reading {v} these days.|Reading {v} before bed, it is good.|Just bought a copy of {v}.",
             "What book am I reading?|Which book do I have on the go?",
             "Read for a while before bed.|My bookshelf is a mess.|Want a library card."),
        attr("my-course", "Japanese|swimming|baking|piano|Python programming|yoga|guitar|driving",
             "I signed up for a {v} course.|I am learning {v}, twice a week.|Started my {v} lessons.",
             "What course did I sign up for?|What am I learning?|Which lessons am I taking?",
             "Class tonight, must leave early.|The course timetable changed again.|Homework not done yet."),
    ),
    fillers=_split("Had lunch with {who} today.|Just called {who}.|{who} went to bed very late last night.|"
                   "{who} asked me to help move some boxes.|Talked with {who} for ages.|{who} sent me a photo.|"
                   "{who} says there is a trip next week.|{who} seems in a good mood lately.|{who} has a cold.|"
                   "{who} invited me to a film at the weekend.|{who} picked up my parcel.|{who} posted holiday photos.|"
                   "{who} lent me an umbrella.|{who} is learning to cook.|{who} gave me a box of tea.|"
                   "{who} has not been sleeping well.|{who} asked if I am free this weekend.|{who} just got back into town."),
    pronoun_fillers=_split("He says it is freezing over there.|She just sent me a photo.|He is on a diet again.|"
                           "She has to work this weekend.|He borrowed a book from me.|She says dinner is on her next time."),
    chitchat=_split("Lovely weather today.|The subway was packed.|Watched a film, quite moving.|Had beef noodles for lunch."
                    "|Raining again and no umbrella.|So sleepy, early night.|The cafe downstairs has a new owner.|"
                    "Big clean-up this weekend.|Binge-watching a new series.|Walked ten thousand steps today.|"
                    "My parcel is late again.|Bought fruit at the supermarket.|Work has been crazy.|"
                    "Thinking about a new phone.|My car needs a service.|Meetings all day.|Late by ten minutes, traffic."
                    "|No idea what to cook tonight.|The air conditioner broke.|Everyone is posting holiday photos.|"
                    "The coffee is bitter today.|Early start tomorrow."),
    intro=_split("I have a {rel} called {name}.|Been in touch with my {rel} {name} a lot.|About my {rel} {name}.|"
                 "My {rel} {name} dropped by today."),
    ref_named=_split("my {rel} {name}|{name}|{name}|my {rel} {name}"),
    ref_plain="my {rel}",
    ask_named="my {rel} {name}",
    cond_ref="my {rel} who {cond}",
    prefix="{weekday} {day} {monthname} {year}, {hh:02d}:{mm:02d}, {place}, {district}, {city}: ",
    female_names=frozenset(_split("Anna|Lucy|Grace|Emma|Olivia|Chloe|Nora|Ruth|Iris|Maya|Ella|Lena|Zoe|Mia|Ada|Tess|"
                                  "Vera|Joy|Kim|Bea|Dina|Faye|Hana|Jade|Lola|Nina|Pia|Rosa|Tara|Uma")),
    male_relations=frozenset(_split("uncle|brother-in-law")),
    female_relations=frozenset(_split("aunt|niece|godmother")),
    echo=_split("Mum called and asked: {ask} I had no idea.|Someone asked me: {ask} I could not remember.|"
                "It came up at dinner: {ask} Nobody knew.|I was wondering: {ask} Must ask next time."),
)
LANGS = {"zh": ZH, "en": EN}


# ---- the labels a question gets: did its wording share a content word with the evidence? --------
_EN_STOP = set("a an the is are was be do does did what which who how when where of to in on for and at "
               "my i me it its now these days this that with from by has have as".split())


def _content_units(text: str) -> set[str]:
    """Crude content units of a template's fixed words (CJK bigrams, English word stems): only to
    label a question as worded like its evidence or paraphrased; not used to build anything."""
    text = re.sub(r"\{\w+\}", " ", text).lower()
    units: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        units.update(run[i:i + 2] for i in range(len(run) - 1))
    for w in re.findall(r"[a-z]+", text):
        if w not in _EN_STOP and len(w) > 2:
            units.add(w[:5])
    return units - {"我的", "什么", "哪里", "是做", "的是", "现在"}


@dataclass
class _Fact:
    """One fact of a thread, and where it landed in the log."""

    attr: Attr
    value: str
    turn: int = -1            # the turn that states it (set when the log is laid out)
    current: int = -1         # the turn that updates it, if it changed
    new_value: str = ""
    state_template: str = ""
    update_template: str = ""


@dataclass
class _Thread:
    """One thread of the log: a person (``rel``, and ``name`` unless unnamed) or the user (no rel)."""

    rel: str
    name: str
    facts: list[_Fact]
    items: list[tuple[str, _Fact | None, str]] = field(default_factory=list)   # text, fact, kind of item


def _who(lang: Lang, th: _Thread, rng: random.Random, *, fact: bool = False) -> str:
    """How a turn refers to the person: a named person's facts always carry the name (so they can
    be told apart); their other turns often say only "my colleague", like the unnamed ones."""
    if not th.name or (not fact and rng.random() < 0.5):
        return lang.ref_plain.format(rel=th.rel)
    return rng.choice(lang.ref_named).format(rel=th.rel, name=th.name)


def _ask_who(lang: Lang, th: _Thread) -> str:
    if not th.name:
        return lang.ref_plain.format(rel=th.rel)
    return lang.ask_named.format(rel=th.rel, name=th.name)


def _make_thread(lang: Lang, rng: random.Random, rel: str, name: str, d: Difficulty = Difficulty()) -> _Thread:
    """A person's thread: 2-5 facts (some updated later), near-miss turns, fillers; in logical order."""
    facts = [_Fact(a, rng.choice(a.values)) for a in rng.sample(lang.attrs, k=rng.randint(3, 6))]
    th = _Thread(rel, name, facts)
    body: list[tuple[str, _Fact | None, str]] = []

    def near_who() -> str:
        if d.named_near and name and rng.random() < d.named_near:
            return _who(lang, th, rng, fact=True)
        return _who(lang, th, rng)

    for f in facts:
        f.state_template = rng.choice(f.attr.state)
        body.append((cap(f.state_template.format(who=_who(lang, th, rng, fact=True), v=f.value)), f, "state"))
        if f.attr.update and rng.random() < d.update_share:
            f.new_value = rng.choice([v for v in f.attr.values if v != f.value])
            f.update_template = rng.choice(f.attr.update)
        for _ in range(rng.choice(d.near_per_fact)):
            body.append((cap(rng.choice(f.attr.near).format(who=near_who())), None, "near"))
    # Near-miss turns about facts this person does not have: they share a question's words too.
    # Most people come up a few times; some (a close friend, the boss) all the time.
    major = rng.random() < d.major_share
    for a in rng.sample(lang.attrs, k=rng.randint(3, 6) if major else rng.randint(*d.near_other)):
        body.append((cap(rng.choice(a.near).format(who=near_who())), None, "near"))
    for _ in range(rng.randint(*d.major_fillers) if major else rng.randint(*d.fillers)):
        if rng.random() < 0.15:
            body.append((rng.choice(lang.pronoun_fillers), None, "filler"))
        else:
            body.append((cap(rng.choice(lang.fillers).format(who=_who(lang, th, rng))), None, "filler"))
    rng.shuffle(body)
    # Updates go in after their fact's statement, somewhere later in the thread.
    for f in facts:
        if f.new_value:
            pos = next(i for i, it in enumerate(body) if it[1] is f) + 1
            text = f.update_template.format(who=_who(lang, th, rng, fact=True), v=f.new_value)
            body.insert(rng.randint(pos, len(body)), (cap(text), f, "update"))
    if name and rng.random() < 0.6:
        body.insert(0, (rng.choice(lang.intro).format(rel=rel, name=name), None, "intro"))
    th.items = body
    return th


def _make_self_thread(lang: Lang, rng: random.Random) -> _Thread:
    facts = [_Fact(a, rng.choice(a.values)) for a in rng.sample(lang.self_attrs, k=rng.randint(2, 4))]
    th = _Thread("", "", facts)
    body: list[tuple[str, _Fact | None, str]] = []
    for f in facts:
        f.state_template = rng.choice(f.attr.state)
        body.append((cap(f.state_template.format(v=f.value)), f, "state"))
        body.extend((rng.choice(f.attr.near), None, "near") for _ in range(rng.randint(1, 2)))
        if f.attr.update and rng.random() < 0.4:
            f.new_value = rng.choice([v for v in f.attr.values if v != f.value])
            f.update_template = rng.choice(f.attr.update)
    rng.shuffle(body)
    for f in facts:
        if f.new_value:
            pos = next(i for i, it in enumerate(body) if it[1] is f) + 1
            body.insert(rng.randint(pos, len(body)), (cap(f.update_template.format(v=f.new_value)), f, "update"))
    th.items = body
    return th


def _add_question_echoes(lang: Lang, rng: random.Random, threads: list[_Thread], per_thread: int) -> None:
    """Turns that ask, in a question's own words, about a person (no answer in them): the hardest
    near misses for word matching, the way a log holds "mum asked what my uncle does"."""
    for th in threads:
        if not th.rel:
            continue
        for _ in range(per_thread):
            a = rng.choice(lang.attrs)
            asks = a.ask + a.ask_now
            ask = cap(rng.choice(asks).format(who=_ask_who(lang, th)))
            th.items.insert(rng.randint(0, len(th.items)), (rng.choice(lang.echo).format(ask=ask), None, "near"))


def _times(rng: random.Random, n: int, start: datetime, days: int) -> list[datetime]:
    """``n`` sorted times in a window of the log (a burst of hours or spread over days), waking hours."""
    total = days * WAKING_HOURS * 60
    width = rng.choice((total, total, total // 2, WAKING_HOURS * 60 // 2, 180))
    return _waking_times(rng, n, start, rng.uniform(0, total - width), width)


def _waking_times(rng: random.Random, n: int, start: datetime, lo: float, width: float) -> list[datetime]:
    """``n`` sorted times drawn in waking minutes ``lo``..``lo + width`` counted from ``start``'s 07:00."""
    out = []
    for m in sorted(rng.uniform(lo, lo + width) for _ in range(n)):
        day, minute = divmod(int(m), WAKING_HOURS * 60)
        out.append(start + timedelta(days=day, hours=7, minutes=minute))
    return out


def _names_for(lang: Lang, rng: random.Random, relations: list[str]) -> list[str]:
    """A distinct name per person, of a gender that fits the relation (an uncle is not 李娜)."""
    pool = list(lang.names)
    rng.shuffle(pool)
    out = []
    for rel in relations:
        fits = [n for n in pool if (rel not in lang.male_relations or n not in lang.female_names)
                and (rel not in lang.female_relations or n in lang.female_names)] or pool
        out.append(fits[0])
        pool.remove(fits[0])
    return out


def generate_memlog(lang_code: str, seed: int, *, with_timestamps: bool = False,
                    difficulty: Difficulty = Difficulty()) -> Conversation:
    """One history (24-42 threads, 300-800 turns by default) and its questions, fixed by ``seed``
    (and ``difficulty``: ``HARD`` gives the ``*-memlog-hard`` logs)."""
    d = difficulty
    lang = LANGS[lang_code]
    rng = random.Random(f"memlog-{lang_code}-{seed}" + ("" if d == Difficulty() else "-hard"))
    days = rng.randint(3, 6)
    start = datetime(2024, rng.randint(1, 11), rng.randint(1, 20))
    n_threads = rng.randint(*d.threads)
    rels = [r for r, _ in lang.relations]
    weights = list(d.relation_weights or [w for _, w in lang.relations])
    chosen = rng.choices(rels, weights=weights, k=n_threads - rng.randint(1, 2))
    names = _names_for(lang, rng, chosen)
    count = {r: chosen.count(r) for r in chosen}
    # A person of a kind the user knows several of is named half the time; unnamed ones are asked
    # about only by a kind of fact no other person of that kind has (so the question has one answer).
    threads = [_make_thread(lang, rng, r, n if rng.random() < (d.named_share if count[r] > 1 else 0.3) else "", d)
               for r, n in zip(chosen, names)]
    mine = _make_self_thread(lang, rng)
    # Keep the log within max_turns (chit-chat adds an eighth): drop the last threads if it runs over.
    while (sum(len(th.items) for th in threads) + len(mine.items)) * 9 // 8 > d.max_turns:
        threads.pop()
    threads.append(mine)
    if d.question_echoes:
        _add_question_echoes(lang, rng, threads, d.question_echoes)

    # Place every item on the timeline; chit-chat turns fall anywhere.
    events: list[tuple[datetime, int, int]] = []      # time, thread (-1 chit-chat), item index
    for t, th in enumerate(threads):
        events.extend((when, t, i) for i, when in enumerate(_times(rng, len(th.items), start, days)))
    total_items = len(events)
    chat = [rng.choice(lang.chitchat) for _ in range(total_items // 8)]
    events.extend((when, -1, i) for i, when in enumerate(_waking_times(rng, len(chat), start, 0, days * WAKING_HOURS * 60)))
    events.sort(key=lambda e: (e[0], e[1], e[2]))

    log = LogWriter("M{}")
    home = rng.randrange(len(lang.cities))
    for k, (when, t, i) in enumerate(events):
        text = chat[i] if t < 0 else threads[t].items[i][0]
        # The user is in the home city, now and then somewhere else for a day.
        city, districts = lang.cities[home if rng.random() < 0.9 else rng.randrange(len(lang.cities))]
        prefix = stamp(lang.prefix, when, lang.weekdays, place=rng.choice(lang.places), city=city,
                       district=rng.choice(districts))
        log.add(prefix + text, timestamp=when.isoformat() if with_timestamps else None)
        if t >= 0:
            _, fact, role = threads[t].items[i]
            if fact is not None:
                if role == "state":
                    fact.turn = k
                else:
                    fact.current = k
    return log.conversation(_questions(lang, rng, threads))


def _q(text: str, evidence: list[int], answer: str, category: str, superseded: list[int] | None = None) -> Question:
    return question(cap(text), [f"M{k}" for k in evidence], answer, category,
                    [f"M{k}" for k in superseded] if superseded else None)


def _simple(lang: Lang, rng: random.Random, th: _Thread, f: _Fact) -> Question:
    who = _ask_who(lang, th)
    if f.new_value:
        tmpl = rng.choice(f.attr.ask_now)
        return _q(tmpl.format(who=who), [f.current], f.new_value, "update", [f.turn])
    tmpl = rng.choice(f.attr.ask)
    worded = _content_units(tmpl) & _content_units(f.state_template)
    return _q(tmpl.format(who=who), [f.turn], f.value, "direct" if worded else "paraphrase")


def _questions(lang: Lang, rng: random.Random, threads: list[_Thread]) -> list[Question]:
    """One question per thread (a fact, its current value if it changed), then conditional and
    comparative questions over persons of the same kind, each with exact evidence turns."""
    out: list[Question] = []
    kinds: dict[str, list[str]] = {}
    for th in threads:
        kinds.setdefault(th.rel, []).extend(f.attr.key for f in th.facts)
    for th in threads:
        facts = list(th.facts)
        rng.shuffle(facts)
        # Unnamed: "my colleague" is someone else too; only a kind of fact no one else of the kind has.
        ok = [f for f in facts if th.name or not th.rel or kinds[th.rel].count(f.attr.key) == 1]
        if ok:
            out.append(_simple(lang, rng, th, ok[0]))
    # Conditional: "my friend who has a corgi" - a fact that only one person of that kind has.
    by_rel: dict[str, list[_Thread]] = {}
    for th in threads:
        if th.rel:
            by_rel.setdefault(th.rel, []).append(th)
    conds = []
    for group in by_rel.values():
        if len(group) < 2:
            continue
        for th in group:
            if not th.name:   # its facts cannot be tied to each other
                continue
            for c in th.facts:
                if not c.attr.cond or c.new_value:
                    continue
                others = {g.attr.key + "=" + v for o in group if o is not th for g in o.facts
                          for v in (g.value, g.new_value) if v}
                if c.attr.key + "=" + c.value in others:
                    continue
                targets = [f for f in th.facts if f is not c and f.attr.key != c.attr.key and f.attr.ask]
                if targets:
                    conds.append((th, c, rng.choice(targets)))
    rng.shuffle(conds)
    for th, c, f in conds[:4]:
        who = lang.cond_ref.format(rel=th.rel, cond=rng.choice(c.attr.cond).format(v=c.value))
        asks = f.attr.ask_now if f.new_value else f.attr.ask
        tmpl = rng.choice([a for a in asks if "{who}'s" not in a] or list(asks))
        out.append(_q(tmpl.format(who=who), sorted({c.turn, f.current if f.new_value else f.turn}),
                      f.new_value or f.value, "conditional"))
    # Comparative: two people's ages or birthdays, both turns needed.
    ranked: dict[str, list[tuple[_Thread, _Fact]]] = {}
    for th in threads:
        for f in th.facts:
            if f.attr.compare and (th.name or kinds[th.rel].count(f.attr.key) == 1):
                ranked.setdefault(f.attr.key, []).append((th, f))
    pairs = []
    for items in ranked.values():
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                if items[i][1].value != items[j][1].value and _ask_who(lang, items[i][0]) != _ask_who(lang, items[j][0]):
                    pairs.append((items[i], items[j]))
    rng.shuffle(pairs)
    for (ta, fa), (tb, fb) in pairs[:4]:
        first = ta if fa.attr.values.index(fa.value) < fb.attr.values.index(fb.value) else tb
        tmpl = rng.choice(fa.attr.compare)
        a, b = _ask_who(lang, ta), _ask_who(lang, tb)
        answer = first.name or _ask_who(lang, first)
        out.append(_q(tmpl.format(a=a, b=b), sorted({fa.turn, fb.turn}), answer, "comparative"))
    return out
