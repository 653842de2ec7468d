"""Chinese personal-statement logs in the shape of MemSim's MemDaily (set name "zh-lifelog").

Shape. One history is one user's short first-person statements over 3-7 days, 500-1000 turns,
every turn role "user", each content opened by its time and place in one style per history
("2024-03-05 08:12 在公司楼下的便利店：我叔叔是厨师长。"). About 40 unrelated threads are
interleaved by time: people of the same few kinds (several colleagues, friends and classmates,
relatives, neighbours, a boss ...; some named, some only described) with facts such as job,
hometown, age, birthday, hobby, pet, car, phone, school, favourite food, company, height and
city, plus a few of the user's own things (phone, pet, car, computer, flat). People are called
in several ways (我同事王磊 / 王磊 / a nickname 磊哥 introduced once; 我外婆 / 姥姥), and common
nicknames recur across kinds (同事小王, 邻居小王). Noise: small talk, moods, weather, what the
user is doing, mentions of a person without a fact (alone or with someone from the same circle),
near-miss remarks that share a question's words but not its answer ("王磊问我老家是哪里的"), the
same kind of fact for different people, and facts that change later (moving, a new job, car or
phone). The last few percent of a history is chat without facts.

Questions, about one per thread, each ask one thread's fact the way a person would, mostly
worded apart from the statement. Categories: "simple"; "multi_hop" (a person picked by another
of their facts: both statements are evidence); "update" (evidence is the newer statement only,
the older is in "superseded"); "comparison" (two people's ages or heights); "counting" (how many
of one kind of person share a fact: every matching statement is evidence); "distractor" (a
simple question wrapped in unrelated words). Questions are sometimes opened the spoken way
("对了，…", "你还记得…吗？"). Every answer can be read from its evidence turns: a fact answer is
written in them as is, a comparison answer is the name used there, a counting answer is
"N个：" and the names.

Determinism: only ``random.Random(seed)`` is used (no global random, clock or str hash), so the
output is identical across processes.

Licence: every template, name, place and value below was written for this module and is
released under CC0 1.0 (public domain). No MemSim/MemDaily text or data was used.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .model import Conversation, DevSet, Question
from .writer import LogWriter, question, seeded_set, stamp

# Knobs, calibrated so plain BM25 over the turns lands near its recall on real logs of this kind
# (about 0.61 at 1,000 tokens and 0.73 at 2,000), by paraphrase and near-misses, not by noise alone.
ALIAS_SHARE = 0.7      # named colleagues, friends and classmates who also go by a nickname
ALIAS_USE = 0.45       # of the statements about someone with a nickname, those that use it
NEAR_SHARE = 0.5       # of a person's mentions, those that touch a fact's topic without the fact
PAIR_SHARE = 0.3       # mentions that name a second person
NOISE_SHARE = (0.06, 0.16)   # small talk, moods, weather, errands: share of the turns
N_COUNT, N_UPDATE, N_HOP, N_COMPARE = (3, 4), (4, 6), (8, 10), (5, 6)   # questions per history by kind
DISTRACT_SHARE = 0.45  # of the one-fact questions left, those wrapped in unrelated words
CHATTY = (0.1, 0.4)    # statements and questions opened by a spoken filler ("对了，")
REMARK_SHARE = 0.3     # fact statements with a trailing aside ("，我也是最近才知道。")
TAIL = 0.065           # the last part of a history (by its time keys) states no facts

# ---------------------------------------------------------------------------------------------
# Value pools
# ---------------------------------------------------------------------------------------------

SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯董程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚"
GIVEN = ("磊", "伟", "芳", "娜", "敏", "静", "强", "洋", "勇", "艳", "杰", "娟", "涛", "明", "超", "霞", "刚",
         "晓燕", "子豪", "雨桐", "浩然", "思琪", "俊杰", "欣怡", "文博", "佳怡", "志强", "海燕", "建华", "丽华",
         "一鸣", "梦瑶", "宇航", "诗涵", "嘉怡", "天宇", "晨曦", "雅琪", "博文", "鑫", "婷", "帅", "倩", "琳", "昊")
COMMON_SURNAMES = "王李张刘陈杨赵黄周吴"
FAMILY_GIVEN = {"男": ("建国", "建军", "志刚", "国强", "明明", "军军", "涛涛", "浩浩"),
                "女": ("晓燕", "丽华", "秀兰", "玉梅", "春花", "婷婷", "莉莉", "佳佳")}
NAMED_RELATIVES = {"表哥": "男", "堂弟": "男", "姐夫": "男", "表姐": "女", "堂妹": "女", "嫂子": "女"}
JOBS = ("厨师长", "中学数学老师", "程序员", "护士", "律师", "出租车司机", "会计", "建筑设计师", "牙医", "消防员",
        "快递员", "银行柜员", "摄影师", "警察", "药剂师", "记者", "电工", "外卖骑手", "销售经理", "翻译",
        "幼儿园老师", "健身教练", "产品经理", "保险代理人", "公务员", "房产中介", "理发师", "心理咨询师")
PROVINCES = {"黑龙江": ("哈尔滨", "齐齐哈尔", "牡丹江"), "吉林": ("长春", "吉林市", "延边"), "辽宁": ("大连", "沈阳", "鞍山"),
             "四川": ("成都", "绵阳", "乐山"), "湖南": ("长沙", "株洲", "岳阳"), "广东": ("潮州", "汕头", "湛江"),
             "浙江": ("温州", "宁波", "金华"), "江苏": ("苏州", "扬州", "徐州"), "山东": ("青岛", "烟台", "潍坊"),
             "河南": ("洛阳", "开封", "南阳"), "陕西": ("西安", "宝鸡", "汉中"), "云南": ("昆明", "大理", "曲靖"),
             "福建": ("厦门", "泉州", "漳州"), "湖北": ("武汉", "宜昌", "襄阳"), "广西": ("桂林", "柳州", "北海"),
             "山西": ("太原", "大同", "运城"), "贵州": ("遵义", "贵阳", "安顺"), "江西": ("九江", "赣州", "景德镇"),
             "安徽": ("合肥", "芜湖", "黄山"), "甘肃": ("兰州", "天水", "酒泉"), "河北": ("保定", "石家庄", "唐山")}
HOMETOWNS = tuple(p + c for p, cs in PROVINCES.items() for c in cs)
REGIONS = {"东北": ("黑龙江", "吉林", "辽宁"), "四川": ("四川",), "广东": ("广东",), "山东": ("山东",), "湖南": ("湖南",),
           "江浙一带": ("江苏", "浙江"), "西南": ("四川", "云南", "贵州"), "两广": ("广东", "广西"), "西北": ("陕西", "甘肃")}
OFFICE_JOBS = ("会计", "程序员", "产品经理", "销售经理", "翻译", "平面设计师", "人事专员", "行政主管", "测试工程师",
               "运营专员", "法务", "数据分析师", "客服主管", "财务总监")
OLDER_HOBBIES = ("钓鱼", "爬山", "下围棋", "跳广场舞", "练书法", "养花", "打太极", "唱京剧", "下象棋", "拍照", "游泳")
HOBBIES = ("钓鱼", "爬山", "下围棋", "弹吉他", "打羽毛球", "跳广场舞", "拍照", "游泳", "练书法", "养花", "打篮球",
           "跑马拉松", "玩剧本杀", "看悬疑小说", "做烘焙", "滑雪", "骑行", "唱K", "打乒乓球", "露营")
CATS = ("布偶猫", "橘猫", "英短猫", "狸花猫", "暹罗猫")
DOGS = ("柯基", "金毛", "边牧", "泰迪", "哈士奇", "柴犬")
PETS = CATS + DOGS + ("鹦鹉", "仓鼠", "乌龟", "垂耳兔")
CARS = ("特斯拉Model 3", "比亚迪汉", "大众帕萨特", "丰田凯美瑞", "本田雅阁", "理想L7", "宝马3系", "蔚来ES6",
        "五菱宏光MINI", "奥迪A4L", "小鹏P7", "哈弗H6", "问界M7", "吉利星越L", "别克GL8")
PHONES = ("华为Mate60", "iPhone 15", "小米14", "OPPO Find X7", "vivo X100", "荣耀Magic6", "一加12",
          "三星Galaxy S24", "iPhone 13", "华为P60", "红米K70")
SCHOOLS = ("北京大学", "浙江大学", "武汉大学", "中山大学", "四川大学", "南京大学", "哈尔滨工业大学", "厦门大学",
           "山东大学", "华中科技大学", "同济大学", "西安交通大学", "湖南师范大学", "郑州大学", "东北师范大学")
FOODS = ("火锅", "小龙虾", "饺子", "螺蛳粉", "烤鸭", "红烧肉", "寿司", "麻辣烫", "煎饼果子", "酸菜鱼", "肠粉",
         "羊肉泡馍", "烧烤", "糖醋排骨", "热干面", "生煎包", "牛肉面", "冒菜")
COMPANIES = ("腾讯", "阿里巴巴", "字节跳动", "招商银行", "国家电网", "美团", "京东", "中国移动", "万科", "顺丰",
             "比亚迪", "网易", "百度", "华为", "中石化", "平安保险", "小米", "携程")
CITIES = ("上海", "北京", "深圳", "杭州", "广州", "成都", "南京", "重庆", "天津", "苏州", "武汉", "西安")
WEATHER = ("阴天", "下小雨", "大晴天", "有点闷热", "风很大", "降温了", "雾霾挺重", "下了一场大雨", "阳光特别好",
           "有点冷", "多云")

# ---------------------------------------------------------------------------------------------
# Person facts: statements, questions, the later-change wording, and "my <kind> who ..." phrases
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attr:
    """How one kind of fact about a person is said, asked, changed and used to pick the person out."""

    says: tuple[str, ...]            # statements: {p} the person, {v} the value
    asks: tuple[str, ...]            # questions: {p} the person
    answer: str = "{v}"              # the answer as written in the statement
    desc: tuple[str, ...] = ()       # "我那个{desc}{kind}" phrases picking a person by this fact ({a} = answer)
    moves: tuple[str, ...] = ()      # statements of a later change
    near: tuple[str, ...] = ()       # remarks on the person sharing the topic but not the fact


ATTRS: dict[str, Attr] = {
    "job": Attr(("{p}是{v}。", "{p}的职业是{v}。", "{p}是一名{v}，干了好些年了。", "{p}现在当{v}。"),
                ("{p}是做什么工作的呢？", "{p}是干哪一行的？", "{p}是干什么的来着？", "{p}平时上班具体干啥？"),
                desc=("当{a}的", "做{a}的"),
                moves=("{p}换工作了，现在当{v}。", "{p}辞职改行了，现在是{v}。", "{p}转行做{v}了。"),
                near=("{p}说最近工作压力特别大。", "{p}今天加班到很晚才走。", "{p}问我工作上顺不顺利。",
                      "{p}在考虑要不要换个工作。", "{p}问我现在做什么工作。", "{p}说想换个工作，问我有什么建议。")),
    "hometown": Attr(("{p}来自{v}。", "{p}老家是{v}的。", "{p}是{v}人。", "{p}在{v}长大。"),
                     ("{p}是哪里人？", "{p}老家在哪儿？", "{p}是从哪个地方来的？", "{p}的家乡是哪里？"),
                     desc=("老家在{a}的", "{a}来的"),
                     near=("{p}说过年要回老家。", "{p}给我带了点家乡特产。", "{p}跟我聊起小时候长大的地方。", "{p}问我老家是哪里的。", "{p}说想去我老家那边玩。")),
    "age": Attr(("{p}今年{v}岁了。", "{p}已经{v}岁啦。", "{p}刚过完{v}岁生日。"),
                ("{p}多大了？", "{p}今年几岁？", "{p}的年纪是多少？"), answer="{v}岁",
                near=("{p}说自己越来越觉得上年纪了。", "{p}看起来比实际年龄年轻。", "{p}问我今年多大了。", "{p}说最不喜欢被人问年纪。")),
    "birthday": Attr(("{p}的生日是{v}。", "{p}是{v}出生的。", "{v}是{p}的生日，得记着。"),
                     ("{p}哪天过生日？", "{p}的生日是几月几号？", "{p}什么时候生日？"),
                     near=("{p}说今年生日不想大办。", "快到{p}的生日了，得想想送什么礼物。", "{p}问我生日是哪天。", "{p}在问大家过生日想要什么。")),
    "hobby": Attr(("{p}平时喜欢{v}。", "{p}的爱好是{v}。", "{p}一有空就去{v}。", "{p}特别迷{v}。"),
                  ("{p}有什么爱好？", "{p}业余时间喜欢干嘛？", "{p}闲下来一般做什么？"),
                  desc=("喜欢{a}的", "爱{a}的"),
                  near=("{p}约我周末一起出去玩。", "{p}说最近忙得没时间玩了。", "{p}问我平时有什么爱好。", "{p}劝我培养个爱好。")),
    "pet": Attr(("{p}养了一只{v}。", "{p}家里有一只{v}。", "{p}最近在养一只{v}。"),
                ("{p}养的是什么宠物？", "{p}家里有什么小动物？", "{p}养了个啥？"),
                desc=("养{a}的", "家里有{a}的"),
                near=("{p}问我要不要一起去宠物店逛逛。", "{p}说小区里流浪的小动物越来越多了。", "{p}说想再养一只宠物。", "{p}问我养宠物麻不麻烦。")),
    "car": Attr(("{p}开的是{v}。", "{p}刚提了一辆{v}。", "{p}的车是{v}。"),
                ("{p}开什么车？", "{p}的座驾是什么？", "{p}买的是哪款车？"),
                desc=("开{a}的",),
                moves=("{p}把原来的车卖了，换了辆{v}。", "{p}换车了，新车是{v}。"),
                near=("{p}的车今天限号，只能坐地铁。", "{p}说开车上班太堵了。", "{p}问我买什么车好。", "{p}在纠结买哪款车。")),
    "phone": Attr(("{p}用的是{v}。", "{p}的手机是{v}。", "{v}是{p}的心头好。"),
                  ("{p}用的什么手机？", "{p}拿的是哪款手机？", "{p}手机是啥牌子的？"),
                  moves=("{p}换了新手机，现在用{v}。", "{p}的旧手机坏了，新买了{v}。"),
                  near=("{p}的手机屏幕摔碎了。", "{p}说手机用久了有点卡。", "{p}问我用的什么手机。", "{p}在纠结换哪款手机。")),
    "school": Attr(("{p}是{v}毕业的。", "{p}毕业于{v}。", "{p}大学读的是{v}。"),
                   ("{p}是哪个学校毕业的？", "{p}在哪儿上的大学？", "{p}的母校是哪所？"),
                   desc=("{a}毕业的",),
                   near=("{p}说要回母校参加校庆。", "{p}在张罗同学聚会。", "{p}问我是哪个学校毕业的。", "{p}跟我聊起大学时候的事。")),
    "food": Attr(("{p}最爱吃{v}。", "{p}最喜欢的食物是{v}。", "{p}说{v}百吃不厌。"),
                 ("{p}最喜欢吃什么？", "{p}爱吃啥？", "{p}口味上最偏爱什么？"),
                 desc=("爱吃{a}的",),
                 near=("和{p}商量晚饭吃什么。", "{p}说今天想吃点好的。", "{p}问我最喜欢吃什么。", "{p}问我中午吃什么。")),
    "company": Attr(("{p}在{v}上班。", "{p}就职于{v}。", "{p}是{v}的员工。"),
                    ("{p}在哪家公司？", "{p}在哪个单位工作？", "{p}给哪家公司打工？"),
                    desc=("在{a}上班的",),
                    moves=("{p}跳槽去了{v}。", "{p}从原来的公司离职了，现在在{v}上班。"),
                    near=("{p}说他们公司最近在裁员。", "{p}公司年会抽中了一台平板。", "{p}问我在哪家公司上班。", "{p}在打听哪家公司待遇好。")),
    "height": Attr(("{p}身高{v}厘米。", "{p}个子有{v}厘米。", "{p}净身高{v}厘米。"),
                   ("{p}多高？", "{p}个头有多少？", "{p}身高是多少？"), answer="{v}厘米",
                   near=("{p}买裤子总嫌短。", "{p}说最近在练身体。", "{p}问我有多高。", "{p}说自己个子不算高。")),
    "city": Attr(("{p}现在住在{v}。", "{p}一家在{v}生活。", "{p}目前定居{v}。"),
                 ("{p}现在住在哪个城市？", "{p}目前生活在哪里？", "{p}人在哪个城市？"),
                 desc=("住在{a}的", "在{a}生活的"),
                 moves=("{p}搬家了，现在住在{v}。", "{p}搬到{v}去了。"),
                 near=("{p}说这边房价太高了。", "{p}最近在看房子。", "{p}问我以后想在哪个城市生活。", "{p}说想换个城市住。")),
}
COMPARE = {"age": ("{a}和{b}谁年纪更大？", "{a}跟{b}相比，谁岁数大一点？", "{a}和{b}哪个年龄大？"),
           "height": ("{a}和{b}谁更高？", "{a}跟{b}比，谁个子高？", "{a}和{b}哪个个头高？")}
NOW = ("现在", "目前", "如今")
OPENERS = ("对了，", "话说，", "突然想起来，", "哦对，", "说起来，")            # statements
ASK_OPENERS = ("对了，", "话说，", "问一下，", "突然想起来，", "我想想，")        # questions

# Kinds of people: relatives (one of each, age range), described or named colleagues, friends and
# neighbours, classmates, and a few one-off people (kind, how the user says it, short form, age range).
ALL_ATTRS = tuple(ATTRS)
AT_WORK = tuple(a for a in ALL_ATTRS if a != "company")               # colleagues share the user's company
ABOVE = tuple(a for a in ALL_ATTRS if a not in ("company", "job"))    # nor is the boss's job news
ELDER = ("hometown", "age", "birthday", "hobby", "pet", "food", "city", "height")
FAMILY = (("叔叔", (42, 63)), ("舅舅", (42, 63)), ("姑姑", (40, 60)), ("小姨", (36, 55)), ("表姐", (26, 38)),
          ("表哥", (26, 38)), ("堂弟", (19, 28)), ("堂妹", (18, 27)), ("外婆", (68, 89)), ("爷爷", (70, 90)),
          ("姐夫", (28, 40)), ("嫂子", (27, 39)))
FEMININE = "芳娜敏静艳娟霞燕婷倩琳怡琪瑶涵桐曦丽梅兰莉佳"
CIRCLE = {"同事": "work", "老板": "work", "领导": "work", "朋友": "social", "同学": "social", "室友": "social",
          "教练": "social", "邻居": "home", "房东": "home"}   # who gets mentioned together; relatives with relatives
FAMILY_ALIAS = {"叔叔": "二叔", "舅舅": "大舅", "姑姑": "大姑", "外婆": "姥姥", "爷爷": "老爷子", "堂弟": "老弟",
                "小姨": "姨妈"}
DESCRIBED = {"同事": (("我隔壁工位的同事", "隔壁工位的同事"), ("公司新来的同事", "新来的同事"),
                     ("我们财务部的同事", "财务部的同事"), ("带我入职的同事", "带我入职的同事"),
                     ("坐我对面的同事", "坐我对面的同事")),
             "朋友": (("我在健身房认识的朋友", "健身房认识的朋友"), ("我高中时的好朋友", "高中时的好朋友"),
                     ("我网上认识的朋友", "网上认识的朋友"), ("我打球认识的朋友", "打球认识的朋友"),
                     ("我从小一起长大的朋友", "一起长大的朋友")),
             "邻居": (("我家对门的邻居", "对门的邻居"), ("我楼上的邻居", "楼上的邻居"), ("我楼下的邻居", "楼下的邻居"),
                     ("我隔壁的邻居", "隔壁的邻居"))}   # (how the user says it, the short form inside it)
SINGLES = (("老板", "我老板", "老板", (36, 56)), ("室友", "我室友", "室友", (24, 33)),
           ("教练", "我的健身教练", "健身教练", (24, 40)), ("房东", "我房东", "房东", (45, 68)),
           ("领导", "我们部门领导", "部门领导", (35, 52)))


@dataclass
class Person:
    """One person the user talks about, how the user calls them, and their facts (current and older)."""

    kind: str                          # 同事, 朋友, 大学同学, 叔叔 ...
    full: str                          # 我同事王磊 / 我叔叔 / 我隔壁工位的同事
    short: str                         # 王磊 / 叔叔 / 隔壁工位的同事
    ages: tuple[int, int]
    allowed: tuple[str, ...]
    alias: str = ""                    # another name the user calls them by: 磊哥, 小王 ...
    facts: dict[str, str] = field(default_factory=dict)
    old: dict[str, str] = field(default_factory=dict)
    locked: set[str] = field(default_factory=set)


def _value(rng: random.Random, attr: str, p: Person) -> str:
    """A plausible value of ``attr`` for this person (age range, elders' hobbies, office roles)."""
    if attr == "age":
        return str(rng.randint(*p.ages))
    if attr == "height":
        return str(rng.randint(150, 176) if p.ages[0] >= 68 else rng.randint(152, 190))
    if attr == "job" and p.kind == "同事":
        return rng.choice(OFFICE_JOBS)
    if attr == "hobby" and p.ages[0] >= 40:
        return rng.choice(OLDER_HOBBIES)
    if attr == "birthday":
        return f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日"
    pools = {"job": JOBS, "hometown": HOMETOWNS, "hobby": HOBBIES, "pet": PETS, "car": CARS, "phone": PHONES,
             "school": SCHOOLS, "food": FOODS, "company": COMPANIES, "city": CITIES}
    return rng.choice(pools[attr])


def _people(rng: random.Random) -> list[Person]:
    """Relatives, colleagues, friends, neighbours, classmates and a few one-off people, with 4-7 facts each."""
    used: set[str] = set()                   # full names and nicknames, unique in the history
    plain: dict[str, set[str]] = {}          # 小王, 老李 ...: common, unique only within a kind

    def name(kind: str) -> str:
        while True:
            r = rng.random()
            if r < 0.6:
                n = rng.choice(SURNAMES) + rng.choice(GIVEN)
            else:
                n = ("小" if r < 0.85 else "老") + rng.choice(COMMON_SURNAMES)
                if n not in plain.setdefault(kind, set()) and n not in used:
                    plain[kind].add(n)
                    return n
                continue
            if n not in used:
                used.add(n)
                return n

    def nick(nm: str) -> str:
        if rng.random() > ALIAS_SHARE or nm.endswith(("阿姨", "大爷", "叔")):
            return ""
        s, g = nm[0] if nm[0] not in "小老" else nm[1], nm[1:]
        sib = rng.choice("哥姐") if nm[0] in "小老" else "姐" if any(c in FEMININE for c in g) else "哥"
        forms = [s + sib] if nm[0] in "小老" else ["小" + s, "老" + s, s + sib, g[-1] + sib]
        forms = [f for f in forms if f not in used and not any(f in ns for ns in plain.values())]
        if not forms:
            return ""
        used.add(a := rng.choice(forms))
        return a

    out: list[Person] = []
    for rel, ages in rng.sample(FAMILY, rng.randint(8, 10)):
        allowed = ELDER if ages[0] >= 68 else ALL_ATTRS
        if rel in NAMED_RELATIVES and rng.random() < 0.5:
            g = rng.choice([g for g in FAMILY_GIVEN[NAMED_RELATIVES[rel]] if g not in used])
            used.add(g)
            out.append(Person(rel, f"我{rel}{g}", g, ages, allowed))
        else:
            alias = FAMILY_ALIAS.get(rel, "") if rng.random() < ALIAS_SHARE else ""
            out.append(Person(rel, f"我{rel}", rel, ages, allowed, alias))
    for kind, lo, hi, ages in (("同事", 7, 9, (23, 52)), ("朋友", 6, 8, (24, 36)), ("邻居", 2, 3, (25, 70))):
        n = rng.randint(lo, hi)
        k_desc = rng.randint(1, 2) if kind != "邻居" else n - 1
        for full, short in rng.sample(DESCRIBED[kind], k_desc):
            out.append(Person(kind, full, short, ages, AT_WORK if kind == "同事" else ALL_ATTRS))
        for _ in range(n - k_desc):
            if kind == "邻居":
                nm = rng.choice(SURNAMES) + rng.choice(("阿姨", "大爷", "叔"))
                while nm in used:
                    nm = rng.choice(SURNAMES) + rng.choice(("阿姨", "大爷", "叔"))
                used.add(nm)
            else:
                nm = name(kind)
            out.append(Person(kind, f"我{kind}{nm}", nm, ages, AT_WORK if kind == "同事" else ALL_ATTRS, nick(nm)))
    for _ in range(rng.randint(4, 6)):
        sub = rng.choice(("高中", "大学", "初中"))
        nm = name("同学")
        out.append(Person("同学", f"我{sub}同学{nm}", nm, (24, 34), ALL_ATTRS, nick(nm)))
    for kind, full, short, ages in rng.sample(SINGLES, rng.randint(2, 4)):
        out.append(Person(kind, full, short, ages, ABOVE if kind in ("老板", "领导") else ALL_ATTRS))
    shorts = [p.short for p in out]
    for p in out:   # two people both called 小王 are always told apart by the kind: 同事小王, 邻居小王
        if shorts.count(p.short) > 1:
            p.short = p.full[1:]
    for p in out:
        for a in rng.sample(p.allowed, rng.randint(4, min(7, len(p.allowed)))):
            p.facts[a] = _value(rng, a, p)
    return out


# ---------------------------------------------------------------------------------------------
# The user's own things
# ---------------------------------------------------------------------------------------------

@dataclass
class Fact:
    """One fact about the user's own thing: its statement, ways to ask it, and its answer."""

    tag: str
    text: str
    asks: tuple[str, ...]
    answer: str


@dataclass
class Thread:
    """A thread about one of the user's things: its facts and its fact-free mentions."""

    facts: list[Fact]
    mentions: list[str]


def _thing(rng: random.Random, kind: str, tid: int) -> Thread:
    """A thread about the user's phone, pet, car, computer or rented flat."""
    t = f"t{tid}"
    if kind == "phone":
        m, c, pr = rng.choice(PHONES), rng.choice(("黑色", "白色", "远峰蓝", "雅川青", "暗紫色")), rng.randint(30, 89) * 100 + 99
        s = rng.choice(("京东", "拼多多", "商场专柜", "一个朋友手里"))
        return Thread([Fact(f"{t}/model", f"{m}是我的心头好，天天揣在兜里。", ("我天天用的手机是哪款？", "我自己的手机是什么型号？"), m),
                       Fact(f"{t}/color", f"我的{m}是{c}的。", ("我手机是什么颜色的？",), c),
                       Fact(f"{t}/price", f"我的{m}当时花了{pr}元。", ("我的手机买的时候多少钱？", "我那部手机花了多少钱？"), f"{pr}元"),
                       Fact(f"{t}/shop", f"我的{m}是在{s}买的。", ("我的手机是从哪儿买的？",), s)],
                      ["手机又卡了，得清理一下内存。", f"给{m}换了个新手机壳。", "手机快没电了，充电宝还落在家里。",
                       "手机屏幕上有道划痕，心疼。", f"{m}的系统又推送更新了。", "手机相册满了，删了好多照片。",
                       "手机掉地上了，还好没摔坏。", f"用{m}拍的夜景还挺清楚。", "手机流量这个月又超了。",
                       "给手机贴了张新膜。", "手机总是自动关机，有点担心。", "今天刷手机刷到很晚。"])
    if kind == "pet":
        sp, breeds = rng.choice((("猫", CATS), ("狗", DOGS)))
        nm, br, age, f = (rng.choice(("豆豆", "糯米", "可乐", "团子", "布丁", "旺财", "花卷", "年糕", "奶茶")),
                          rng.choice(breeds), rng.randint(1, 9), rng.choice(("鸡胸肉", "冻干", "三文鱼", "蛋黄", "罐头")))
        return Thread([Fact(f"{t}/name", f"我家{sp}叫{nm}。", (f"我家的{sp}叫什么名字？", f"我养的{sp}名字是啥？"), nm),
                       Fact(f"{t}/breed", f"{nm}是一只{br}。", (f"我家{sp}是什么品种？", f"{nm}属于哪个品种？"), br),
                       Fact(f"{t}/age", f"{nm}今年{age}岁了。", (f"{nm}多大了？", f"我家{sp}几岁了？"), f"{age}岁"),
                       Fact(f"{t}/food", f"{nm}最爱吃{f}。", (f"{nm}最喜欢吃什么？", f"我家{sp}爱吃啥零食？"), f)],
                      [f"{nm}今天把沙发抓坏了。", f"带{nm}去打了疫苗。", f"{nm}一早就把我吵醒了。", f"给{nm}买了个新窝。",
                       f"{nm}今天特别黏人。", f"给{nm}洗了个澡，折腾了一个小时。", f"{nm}趴在窗台上晒太阳。",
                       f"{nm}最近掉毛好厉害。", f"出门前{nm}一直跟着我。", f"给{nm}拍了好多照片。",
                       f"{nm}把水碗打翻了。", f"网购的{sp}粮到了。"])
    if kind == "car":
        m, c = rng.choice(CARS), rng.choice(("白色", "黑色", "灰色", "红色", "蓝色"))
        y, km = rng.randint(2016, 2023), rng.randint(2, 15)
        return Thread([Fact(f"{t}/model", f"我开的是{m}。", ("我自己的车是什么车？", "我平时开的是哪款车？"), m),
                       Fact(f"{t}/color", f"我的车是{c}的。", ("我那辆车什么颜色？",), c),
                       Fact(f"{t}/year", f"我的车是{y}年买的。", ("我的车是哪年买的？", "我那辆车买了几年了，哪一年提的？"), f"{y}年"),
                       Fact(f"{t}/km", f"我的车已经开了{km}万公里。", ("我的车跑了多少公里了？",), f"{km}万公里")],
                      ["车子今天去洗了。", f"{m}该保养了。", "早上开车堵了四十分钟。", "停车场的车位又被占了。",
                       "车里的空调不太凉了。", "今天加油花了三百多。", "车限号，只好坐地铁。", "给车换了个新脚垫。",
                       "开车的时候听了一路的歌。", "车被贴了张罚单，郁闷。", f"{m}的车险快到期了。"])
    if kind == "computer":
        m = rng.choice(("MacBook Air", "ThinkPad X1", "华为MateBook 14", "戴尔XPS 13", "小米笔记本Pro", "联想小新Pro"))
        pr, y = rng.randint(45, 129) * 100, rng.randint(2019, 2023)
        return Thread([Fact(f"{t}/model", f"我的笔记本是{m}。", ("我用的是什么电脑？", "我的笔记本是哪个牌子的？"), m),
                       Fact(f"{t}/price", f"我这台{m}花了{pr}元。", ("我的电脑多少钱买的？",), f"{pr}元"),
                       Fact(f"{t}/year", f"我的{m}是{y}年买的。", ("我的笔记本是哪年买的？",), f"{y}年")],
                      ["电脑风扇声音越来越大了。", f"{m}的电池不太行了。", "笔记本又要更新系统。",
                       "电脑突然蓝屏了，文件差点没保存。", "给笔记本买了个支架。", "键盘上有个键不太灵了。",
                       "电脑里的照片该备份了。", "笔记本带出门太重了。", "在电脑上追了两集剧。", "电脑清了一下灰。"])
    area = rng.choice(("朝阳区望京", "浦东张江", "南山区科技园", "天河区岗顶", "海淀区五道口", "武侯区玉林", "西湖区文三路"))
    rent, fl = rng.randint(25, 90) * 100, rng.randint(2, 28)
    return Thread([Fact(f"{t}/area", f"我租的房子在{area}。", ("我租的房子在哪一带？", "我现在住的地方在哪个片区？"), area),
                   Fact(f"{t}/rent", f"我每个月房租{rent}元。", ("我一个月房租多少钱？", "我租房每月要交多少？"), f"{rent}元"),
                   Fact(f"{t}/floor", f"我住在{fl}楼。", ("我住在几楼？",), f"{fl}楼")],
                  ["房东说下个月要来看看房子。", "家里的热水器又坏了。", "租的房子隔音太差。", "小区门口在修路。",
                   "家里的灯泡坏了一个。", "楼道里堆满了快递箱子。", "电梯又在检修，只能爬楼梯。", "交了这个月的水电费。",
                   "在想要不要续租。", "家里的洗衣机声音好大。", "阳台上的花开了。"])


# ---------------------------------------------------------------------------------------------
# Noise
# ---------------------------------------------------------------------------------------------

PERSON_MENTIONS = ("{p}今天请我喝了杯奶茶。", "刚在楼下碰到{p}，聊了几句。", "{p}给我推荐了一家小馆子。",
                   "中午和{p}一起吃的饭。", "{p}在朋友圈发了几张旅游照片。", "{p}问我周末有没有空。",
                   "{p}最近好像挺忙的。", "跟{p}打了半小时电话。", "{p}今天没怎么说话，好像不太开心。",
                   "{p}说下周要请几天假。", "{p}在群里发了个红包。", "{p}帮我带了份早餐。", "{p}借了我一本书。",
                   "{p}约我下个月一起去旅游。", "收到{p}寄来的快递。", "{p}夸我今天衣服好看。", "和{p}吐槽了一下最近的事。",
                   "{p}给我发了个搞笑视频。", "{p}说最近在减肥。", "{p}让我帮忙看一份材料。", "陪{p}去逛了会儿街。",
                   "{p}说想找时间聚一聚。", "{p}给我点了个赞。", "今天又想起{p}说过的那个笑话。",
                   "{p}发消息问我到家没有。", "{p}今天穿了件新外套。", "{p}推荐我看一部纪录片。", "和{p}约了周六见面。",
                   "{p}说最近睡眠不太好。", "{p}感冒了，嗓子都哑了。", "帮{p}取了个快递。", "{p}给我分享了一首歌。",
                   "{p}最近在学做饭。", "{p}请我帮忙挑礼物。", "{p}说周末要去看演唱会。", "{p}在群里问有没有人拼车。",
                   "{p}给我转了一篇文章。", "跟{p}视频聊了一会儿。", "{p}说想换个发型。", "{p}今天心情特别好。")
PAIR_MENTIONS = ("{p}和{q}今天一起来找我吃饭。", "{p}说{q}最近挺忙的。", "{p}跟{q}好像闹了点别扭。",
                 "和{p}、{q}一起拼了个外卖。", "{p}托我给{q}带个东西。", "{p}问我认不认识{q}。",
                 "{p}和{q}周末约了去爬山。", "{p}在群里@了{q}。", "{p}说{q}人挺好的。", "{p}和{q}原来早就认识。",
                 "在楼下看到{p}和{q}在聊天。", "{p}让我问问{q}有没有空。")
PLAIN = ("有点累，想早点睡。", "心情不错。", "今天效率好低。", "好困啊。", "有点焦虑，项目快到截止日期了。",
         "终于把报告交了，松了口气。", "在排队买咖啡。", "刚开完会。", "准备去吃午饭。", "在回家的路上。",
         "刚健身完，浑身酸痛。", "在超市买了点水果。", "晚上看了一集纪录片。", "在整理房间。", "外卖到了。",
         "在等电梯。", "人好多，挤得不行。", "刚洗完澡。", "给家里打了个电话。", "今天步数破两万了。",
         "又忘了带工牌。", "睡前刷了会儿短视频。", "下午犯困，喝了第二杯咖啡。", "今天的会议开了三个小时。",
         "把这周的账记了一下。", "想去海边度个假。", "周末想睡个懒觉。", "书桌太乱了，收拾了一下。",
         "牙有点疼，得约个牙医。", "快递又放错地方了。", "在想晚上做什么菜。", "今天工作上挨了批评，有点郁闷。",
         "下班路上听了一期播客。", "终于把拖了很久的事情办完了。", "看了场电影，还行。", "在给手机充电。",
         "公司新来了两个同事。", "同事们在讨论年终奖。", "和几个朋友建了个群。", "同学群里今天特别热闹。",
         "楼上邻居家在装修，吵死了。", "家里亲戚周末要来串门。", "老同学突然找我借钱，有点尴尬。",
         "朋友圈里好多人在晒娃。", "同事推荐的那部剧挺好看。", "不知道晚上吃什么好。", "周末去哪儿玩还没想好。",
         "这个月花了多少钱都不敢算。", "想不起来把钥匙放哪儿了。", "也不知道什么时候能放假。", "纠结买哪款手机好。",
         "不知道该送什么生日礼物。", "大家中午都在聊各自的爱好。", "饭桌上大家在聊各自老家是哪里的。",
         "问了一圈也没人知道那家店在哪儿。", "有人问我是做什么工作的，一时不知道怎么说。", "在想明年要不要换个城市生活。")
SLOTTED = ("今天{w}。", "外面{w}，不太想出门。", "天气预报说明天{w}。", "晚饭吃了{food}。", "中午点了份{food}外卖。",
           "路上看到一辆{car}，挺好看的。", "刷到{phone}的评测视频，有点心动。", "新闻说{city}要降温了。",
           "在看去{city}的机票。", "{company}又上热搜了。", "楼下新开了一家{food}店。", "想学{hobby}，不知道难不难。",
           "小区里有只{pet}好可爱。", "{prov}的朋友寄来一箱水果。", "听说{school}今年的录取分数线又涨了。",
           "刷到一个{job}的采访视频，挺有意思。", "在网上看了半天{car}的测评。", "路过一家宠物店，里面有只{pet}。")

PLACES = {"morning": ("家里", "地铁上", "公交车上", "小区楼下", "早餐店", "出租车上"),
          "work": ("公司", "办公室", "会议室", "工位上", "公司楼下的便利店", "茶水间", "客户那边"),
          "lunch": ("公司食堂", "楼下餐厅", "面馆", "快餐店"),
          "evening": ("地铁上", "超市", "健身房", "餐厅", "商场", "回家路上", "公园"),
          "night": ("家里", "卧室", "阳台", "沙发上"),
          "weekend": ("家里", "商场", "公园", "咖啡店", "电影院", "菜市场", "朋友家", "高铁上", "健身房")}
STYLES = ("{year}-{month:02d}-{day:02d} {weekday} {hh:02d}:{mm:02d} 在{place}：{text}",    # writer.stamp templates
          "[{month}月{day}日 {weekday} {hh:02d}:{mm:02d}｜{place}] {text}",
          "{month}/{day}（{weekday}）{hh:02d}:{mm:02d} @{place} {text}",
          "（{year}.{month:02d}.{day:02d} {weekday} {hh:02d}:{mm:02d}，{place}）{text}",
          "{year}年{month}月{day}日 {weekday} {hh:02d}:{mm:02d}，在{place}。{text}")
WEEKDAYS = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
REMARKS = ("我也是最近才知道", "说起来还挺巧", "上次聊天时提到的", "之前听人说过", "这个我记得很清楚",
           "当时还跟我聊了好久", "记一下免得忘了", "我一直以为不是呢", "我差点忘了", "跟我想的不太一样")
FILLERS = (("今天在{pl}跟同事聊天时突然想到，", ""), ("刚才刷手机看到朋友圈里一条新闻，顺便问一下，", ""),
           ("最近工作太忙，脑子都乱了，", "我有点记不清了。"), ("下午开会的时候走神了，想起个事：", ""),
           ("等会儿要去超市买点水果，先问一句，", ""), ("", "好像之前说过，帮我回忆一下。"),
           ("晚上在{pl}吃饭的时候大家聊到这个，", "你还记得吗？"), ("天气{w}，在家闲着没事，", ""),
           ("我在地铁上刷短视频，看到一个挺有意思的，想起来", "这个我之前肯定说过。"),
           ("周末准备约朋友出去玩，出门前问一下，", ""), ("刚给家里打完电话，聊着聊着想到，", "对吧？"),
           ("早上在早餐店排队的时候，", "我怎么突然想不起来了。"))


def _noise(rng: random.Random) -> str:
    """Small talk: moods, weather, errands, and remarks sharing words with facts (a car seen, a dish eaten)."""
    if rng.random() < 0.55:
        return rng.choice(PLAIN)
    return rng.choice(SLOTTED).format(
        w=rng.choice(WEATHER), food=rng.choice(FOODS), car=rng.choice(CARS), phone=rng.choice(PHONES),
        city=rng.choice(CITIES), company=rng.choice(COMPANIES), hobby=rng.choice(HOBBIES), pet=rng.choice(PETS),
        prov=rng.choice(tuple(PROVINCES)), school=rng.choice(SCHOOLS), job=rng.choice(JOBS))


# ---------------------------------------------------------------------------------------------
# Planning: counting groups and updates change the facts before anything is written
# ---------------------------------------------------------------------------------------------

@dataclass
class CountPlan:
    """A counting question and the people whose statements answer it."""

    question: str
    members: list[Person]
    attr: str


def _plan_count(rng: random.Random, people: list[Person], kind: str, attr: str) -> CountPlan:
    """Make 2-4 people of ``kind`` share a fact (region, cat/dog, city) and no other of that kind have it."""
    group = [p for p in people if p.kind == kind]
    if attr == "hometown":
        region = rng.choice(tuple(REGIONS))
        good = tuple(h for h in HOMETOWNS if h.startswith(REGIONS[region]))
        q = rng.choice((f"我有几个{kind}老家是{region}的？", f"我{kind}里面有几个是{region}人？"))
    elif attr == "pet":
        sp, good = rng.choice((("猫", CATS), ("狗", DOGS)))
        q = rng.choice((f"我{kind}里面有几个养{sp}的？", f"我有几个{kind}家里养了{sp}？"))
    else:
        c = rng.choice(CITIES)
        good = (c,)
        q = rng.choice((f"我有几个{kind}住在{c}？", f"我的{kind}里有几个人在{c}生活？"))
    bad = tuple(v for v in {"hometown": HOMETOWNS, "pet": PETS, "city": CITIES}[attr] if v not in good)
    members = rng.sample(group, rng.randint(2, 4))
    for p in group:
        p.locked.add(attr)
        if p in members:
            p.facts[attr] = rng.choice(good)
        elif attr in p.facts and p.facts[attr] in good:
            p.facts[attr] = rng.choice(bad)
    return CountPlan(q, members, attr)


def _plan_updates(rng: random.Random, people: list[Person], n: int) -> list[tuple[Person, str]]:
    """Give ``n`` people a fact that changes later (job, company, car, phone, city); keep the older value."""
    cands = [(p, a) for p in people for a in p.facts if ATTRS[a].moves and a not in p.locked]
    picked: list[tuple[Person, str]] = []
    for p, a in rng.sample(cands, len(cands)):
        if len(picked) == n:
            break
        if any(q is p for q, _ in picked):
            continue
        old = p.facts[a]
        while p.facts[a] == old:
            p.facts[a] = _value(rng, a, p)
        p.old[a] = old
        p.locked.add(a)
        picked.append((p, a))
    return picked


# ---------------------------------------------------------------------------------------------
# Writing the history
# ---------------------------------------------------------------------------------------------

Item = tuple[str, str]   # (statement text, tag or "")


def _person_items(rng: random.Random, p: Person, pid: int, n_mentions: int, others: list[Person]) -> list[Item]:
    """A person's thread: facts, plain mentions, near-misses and remarks naming someone else too."""
    def ref() -> str:
        r = rng.random()
        if p.alias and r < ALIAS_USE:
            return p.alias
        return p.full if rng.random() < 0.6 else p.short

    def say(a: str, v: str, who: str) -> str:
        return rng.choice(ATTRS[a].says).format(p=who, v=v)

    n_near = max(1, round(n_mentions * NEAR_SHARE))
    near_pool = [t for a in p.facts for t in ATTRS[a].near]
    texts = rng.sample(PERSON_MENTIONS, min(n_mentions - n_near, len(PERSON_MENTIONS)))
    texts += rng.sample(near_pool, min(n_near, len(near_pool)))
    body: list[tuple[str, str]] = [(a, "") for a in p.facts if a not in p.old] + [("", t) for t in texts]
    rng.shuffle(body)
    items: list[Item] = []
    for k, (a, m) in enumerate(body):
        who = p.full if k == 0 else ref()
        if a:
            items.append((say(a, p.facts[a], who), f"p{pid}/{a}"))
        elif others and rng.random() < PAIR_SHARE:
            o = rng.choice(others)
            items.append((rng.choice(PAIR_MENTIONS).format(p=who, q=o.short if rng.random() < 0.5 else o.full), ""))
        else:
            items.append((m.format(p=who), ""))
    if p.alias:
        intro = rng.choice(("{f}，我从小就喊{a}。", "{f}，家里人都叫{a}。") if p.short == p.kind else
                           ("{f}，平时大家都管{s}叫{a}。", "{f}的外号是{a}。", "跟{f}混熟了，现在都直接喊{a}。"))
        items.insert(rng.randint(0, 1), (intro.format(f=p.full, s=p.short, a=p.alias), ""))
    for a, old in p.old.items():   # the older fact in the first half, the change near the end
        items.insert(rng.randint(1, len(items) // 2), (say(a, old, ref()), f"p{pid}/{a}/old"))
        items.insert(len(items) - rng.randint(0, 1),
                     (rng.choice(ATTRS[a].moves).format(p=ref(), v=p.facts[a]), f"p{pid}/{a}"))
    return items


def _interleave(rng: random.Random, threads: list[list[Item]], n_noise: int) -> list[Item]:
    """Threads keep their own order; plain noise goes anywhere."""
    keyed: list[tuple[float, int, Item]] = []
    for k, items in enumerate(threads):
        keys = sorted(rng.random() for _ in items)
        late = sum(x > 1 - TAIL for x in keys)   # the late slots go to the thread's last plain mentions
        movable = [j for j, it in enumerate(items) if not it[1] and j > 1][-late:] if late else []
        items = [it for j, it in enumerate(items) if j not in movable] + [items[j] for j in movable]
        keyed += [(x, k, it) for x, it in zip(keys, items)]
    keyed += [(rng.random(), -1, (_noise(rng), "")) for _ in range(n_noise)]
    keyed.sort(key=lambda e: (e[0], e[1]))
    return [it for _, _, it in keyed]


def _clock(rng: random.Random, n: int) -> list[tuple[datetime, str]]:
    """Times over 3-7 days from 07:00 to 23:40, and places that follow the time of day and the weekday."""
    start = datetime(rng.choice((2023, 2024)), rng.randint(1, 12), rng.randint(1, 28))
    days = rng.randint(3, 7)
    weights = [rng.uniform(0.7, 1.3) for _ in range(days)]
    counts = [int(n * w / sum(weights)) for w in weights]
    counts[-1] += n - sum(counts)
    out: list[tuple[datetime, str]] = []
    place = ""
    for d, c in enumerate(counts):
        day = start + timedelta(days=d)
        for minute in sorted(rng.randint(7 * 60, 23 * 60 + 40) for _ in range(c)):
            h = minute // 60
            slot = ("weekend" if day.weekday() >= 5 else "morning" if h < 9 else "lunch" if h == 12
                    else "work" if h < 18 else "evening" if h < 21 else "night")
            if place not in PLACES[slot] or rng.random() < 0.3:
                place = rng.choice(PLACES[slot])
            out.append((day + timedelta(minutes=minute), place))
    return out


# ---------------------------------------------------------------------------------------------
# Questions
# ---------------------------------------------------------------------------------------------

def _ask(rng: random.Random, p: Person, a: str, now: bool = False) -> str:
    """A question about one fact of ``p``, naming them the way the user might (full, short or nickname)."""
    r = rng.random()
    who = p.alias if p.alias and r < ALIAS_USE / 2 else p.full if r < 0.7 or p.short == p.kind else p.short
    q = rng.choice(ATTRS[a].asks).format(p=who)
    if now and not any(w in q for w in NOW):
        q = q.replace(who, who + rng.choice(NOW), 1)
    return q


def _answer(a: str, v: str) -> str:
    return ATTRS[a].answer.format(v=v)


def generate_life_log(seed: int) -> Conversation:
    """One history of about 40 interleaved threads of one user's statements, with its questions."""
    rng = random.Random(seed)
    people = _people(rng)
    pairs = [(k, a) for k in ("同事", "朋友", "同学") for a in ("hometown", "pet", "city")]
    counts = [_plan_count(rng, people, k, a) for k, a in rng.sample(pairs, rng.randint(*N_COUNT))]
    updates = _plan_updates(rng, people, rng.randint(*N_UPDATE))
    kinds = rng.sample(("phone", "pet", "car", "computer", "flat"), rng.randint(3, 5))
    things = [_thing(rng, k, i) for i, k in enumerate(kinds)]

    target = rng.randint(500, 980)
    noise = round(target * rng.uniform(*NOISE_SHARE))
    n_facts = sum(len(p.facts) + 2 * len(p.old) for p in people) + sum(len(t.facts) for t in things)
    per = max(3, round((target - noise - n_facts) / (len(people) + len(things))))
    threads = [_person_items(rng, p, i, rng.randint(per - 2, per + 2),
                             [o for o in people if o is not p and CIRCLE.get(o.kind) == CIRCLE.get(p.kind)])
               for i, p in enumerate(people)]
    for th in things:
        items: list[Item] = [(f.text, f.tag) for f in th.facts]
        items += [(m, "") for m in rng.sample(th.mentions, min(len(th.mentions), rng.randint(per - 2, per + 2)))]
        rng.shuffle(items)
        threads.append(items)
    noise = max(noise // 2, target - sum(len(t) for t in threads))   # small talk fills up to the target size
    order = _interleave(rng, threads, noise)
    clock = _clock(rng, len(order))
    style = rng.choice(STYLES)
    with_ts = (seed + seed // 100) % 2 == 0   # alternates, so about half of a set's histories carry one
    log = LogWriter(f"zl{seed}-{{:04d}}")
    by_id = log.by_id
    for (text, tag), (ts, pl) in zip(order, clock):
        if rng.random() < CHATTY[0]:
            text = rng.choice(OPENERS) + text
        if tag and rng.random() < REMARK_SHARE:
            text = text[:-1] + "，" + rng.choice(REMARKS) + "。"
        log.add(stamp(style, ts, WEEKDAYS, place=pl, text=text), timestamp=ts if with_ts else None,
                tags=(tag,) if tag else ())
    pid = {id(p): i for i, p in enumerate(people)}

    def ev(p: Person, a: str) -> str:
        return log.id_of(f"p{pid[id(p)]}/{a}")

    questions: list[Question] = []
    taken: set[int] = set()
    for c in counts:
        names = "、".join(next(r for r in (p.short, p.alias) if r and r in by_id[ev(p, c.attr)]) for p in c.members)
        questions.append(question(c.question, [ev(p, c.attr) for p in c.members], f"{len(c.members)}个：{names}",
                                  "counting"))
    for p, a in updates:
        taken.add(id(p))
        questions.append(question(_ask(rng, p, a, now=True), [ev(p, a)], _answer(a, p.facts[a]), "update",
                                  [log.id_of(f"p{pid[id(p)]}/{a}/old")]))
    free = [p for p in rng.sample(people, len(people)) if id(p) not in taken]
    # multi-hop: a person of a shared kind picked by a fact no other of that kind has (or had)
    n_hop = rng.randint(*N_HOP)
    for p in list(free):
        if n_hop == 0:
            break
        same = [o for o in people if o.kind == p.kind and o is not p]
        if not same:
            continue
        keys = [a for a in p.facts if ATTRS[a].desc and a not in p.old
                and all(o.facts.get(a) != p.facts[a] and o.old.get(a) != p.facts[a] for o in same)]
        targets = [a for a in p.facts if a not in p.old]
        if not keys or len(targets) < 2:
            continue
        ka = rng.choice(keys)
        ta = rng.choice([a for a in targets if a != ka])
        desc = rng.choice(ATTRS[ka].desc).format(a=_answer(ka, p.facts[ka]))
        who = rng.choice(("我那个", "那个", "我那位")) + desc + p.kind
        questions.append(question(rng.choice(ATTRS[ta].asks).format(p=who), [ev(p, ka), ev(p, ta)],
                                  _answer(ta, p.facts[ta]), "multi_hop"))
        free.remove(p)
        n_hop -= 1
    # comparison of two people's ages or heights
    for _ in range(rng.randint(*N_COMPARE)):
        a = rng.choice(("age", "height"))
        pool = [p for p in people if a in p.facts and a not in p.old and id(p) not in taken]
        if len(pool) < 2:
            continue
        x, y = rng.sample(pool, 2)
        if x.facts[a] == y.facts[a]:
            continue
        win = x if int(x.facts[a]) > int(y.facts[a]) else y
        q = rng.choice(COMPARE[a]).format(a=x.full, b=y.full if rng.random() < 0.7 else y.short)
        questions.append({"question": q, "evidence": [ev(x, a), ev(y, a)], "category": "comparison",
                          "answer": next(r for r in (win.short, win.alias) if r and r in by_id[ev(win, a)])})
        taken.update((id(x), id(y)))
    # the rest: one question per person or thing left, some wrapped in unrelated words
    singles: list[tuple[str, str, str]] = []
    for p in free:
        if id(p) not in taken:
            a = rng.choice([a for a in p.facts if a not in p.old])
            singles.append((_ask(rng, p, a), ev(p, a), _answer(a, p.facts[a])))
    for th in things:
        f = rng.choice(th.facts)
        singles.append((rng.choice(f.asks), log.id_of(f.tag), f.answer))
    for k, (q, e, ans) in enumerate(rng.sample(singles, len(singles))):
        cat = "distractor" if k < len(singles) * DISTRACT_SHARE else "simple"
        if cat == "distractor":
            pre, post = rng.choice(FILLERS)
            q = pre.format(pl=rng.choice(PLACES["evening"]), w=rng.choice(WEATHER)) + q + post
        questions.append(question(q, [e], ans, cat))
    for qq in questions:   # the way people ask: "对了，…" / "你还记得…吗？"
        if qq["category"] != "distractor" and rng.random() < CHATTY[1]:
            if rng.random() < 0.35:
                qq["question"] = "你还记得" + qq["question"].rstrip("？").removesuffix("呢").removesuffix("来着") + "吗？"
            else:
                qq["question"] = rng.choice(ASK_OPENERS) + qq["question"]
    rng.shuffle(questions)
    for qq in questions:   # every answer can be read off its evidence
        assert all(e in by_id for e in qq["evidence"])
        if qq["category"] != "counting":
            assert any(qq["answer"] in by_id[e] for e in qq["evidence"]), qq
        else:
            said = "".join(by_id[e] for e in qq["evidence"])
            assert all(n in said for n in qq["answer"].split("：")[1].split("、")), qq
    return log.conversation(questions)


def life_log_set(seeds: tuple[int, ...], split: str) -> DevSet:
    """Three histories per seed (``seed * 100 + k``, k = 0..2)."""
    return seeded_set("zh-lifelog", split, seeds, 3, generate_life_log)
