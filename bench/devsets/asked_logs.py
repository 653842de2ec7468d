"""Logs asked as people ask (``zh-asked`` / ``en-asked``): noisy, compound, relational, item, counting and
computed questions over one user's interleaved statements (build_context v3).

One history: about 40 threads of one user's short statements interleaved over 8-12 days, every turn role
``user`` and stamped with its time and place (``[2024年04月02日 周二 14:57 广东深圳] …`` /
``[Tue 2024-04-02 14:57, Austin TX] …``):

- people of the user's life: some by a relation there is one of (姑父, my uncle), their name stated in a
  turn of its own ("我姑父的名字叫王建国。"); some of a relation there are several of (同事, coworker), always
  named ("我同事李娜"); each with a few facts (hobby, job, birthday, hometown, phone, e-mail), each fact
  stated once, in a turn that names the person by relation or by name, never both the fact and the other
  fact; chatty turns about them and near-miss turns (their words, not the fact: "姑父问我生日想要什么礼物");
- the user's items (耳机, phone, robot vacuum): one turn names the model, follow-ups speak of it by the
  model's name only ("WH-1000XM5降噪真不错……"), near-misses speak of the kind of item;
- events with a place (several events share a place) and a date;
- small talk (the subway, hotpot, the rain): the words a noisy question wraps its question in.

Dates are spelled several ways (06月21日, 6月21号, 六月二十一日; June 21, 21 June, 6/21).

Question kinds (``category``): ``simple`` (one fact), ``noisy`` (a simple or relational question wrapped in
small talk), ``compound`` (two or three questions joined by 另外 / 还有 / 顺便问一下 / also / and another
thing), ``relational`` (a fact of the person picked out by another fact: two evidence turns when the person
is a relation, joined through the relation word or the name), ``items`` (how is my X: the model's turn and
its follow-ups), ``counting`` (how many events were held in P: every turn stating an event's place; how many
people were born in June: every birthday turn of that month; which people come from P), ``computed``
(an answer computed from a retrieved fact: a birthday's season, the characters or letters of a name,
retrieved as a relational question is).

Every template and word list is our own (CC0). A (language, seed) pair fixes a history: ``python -m
bench.devsets asked zh 1`` prints one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .model import Conversation, DevSet, Question
from .wordy import said_at_length
from .writer import LogWriter, day_times, interleave, options, question, seeded_set

__all__ = ["CATEGORIES", "HISTORIES_PER_SEED", "asked_log_set", "generate_asked_log"]

HISTORIES_PER_SEED = 3
CATEGORIES = ("simple", "noisy", "compound", "relational", "items", "counting", "computed")
ATTRS = ("hobby", "job", "birthday", "hometown", "phone", "email")


# --------------------------------------------------------------------------------------- numbers and dates

_ZH_DIGITS = "零一二三四五六七八九"


def zh_number(n: int) -> str:
    """1..99 in Chinese numerals (二十一, 十二, 六)."""
    if n < 10:
        return _ZH_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _ZH_DIGITS[tens]) + "十" + (_ZH_DIGITS[ones] if ones else "")


def zh_date(m: int, d: int, rng: random.Random) -> str:
    return rng.choice((f"{m:02d}月{d:02d}日", f"{m}月{d}号", f"{zh_number(m)}月{zh_number(d)}日", f"{m}月{d}日",
                       f"{m:02d}月{d}日"))


def zh_month(m: int, rng: random.Random) -> str:
    return rng.choice((f"{zh_number(m)}月份", f"{m}月", f"{m:02d}月", f"{zh_number(m)}月"))


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def en_date(m: int, d: int, rng: random.Random) -> str:
    suffix = "th" if 10 <= d % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
    return rng.choice((f"{MONTHS[m - 1]} {d}", f"{d} {MONTHS[m - 1]}", f"{m}/{d}", f"{MONTHS[m - 1][:3]} {d}",
                       f"the {d}{suffix} of {MONTHS[m - 1]}", f"{m:02d}/{d:02d}"))


def en_month(m: int, rng: random.Random) -> str:
    return rng.choice((MONTHS[m - 1], MONTHS[m - 1][:3] + ".", MONTHS[m - 1]))


# ---------------------------------------------------------------------------------------------- languages

@dataclass(frozen=True)
class Attr:
    values: tuple[str, ...]
    state: tuple[str, ...]      # {who} {v}
    ask: tuple[str, ...]        # {who}
    cond: tuple[str, ...]       # picks a person out by this fact: {v}
    near: tuple[str, ...]       # {who}: the fact's words without the fact


@dataclass(frozen=True)
class Lang:
    code: str
    single_relations: tuple[str, ...]
    several_relations: tuple[str, ...]
    names: tuple[str, ...]
    attrs: dict[str, Attr]
    name_state: tuple[str, ...]          # {who} {v}: a relation's name
    name_ask: tuple[str, ...]            # {who}
    ask_after_cond: dict[str, tuple[str, ...]]   # attr -> the asked part after a condition ({pro})
    name_len_ask: tuple[str, ...]        # {who}: how many characters / letters in the name
    name_len_after_cond: tuple[str, ...]
    season_ask: tuple[str, ...]          # {who}
    season_after_cond: tuple[str, ...]
    fillers: tuple[str, ...]             # {who}
    items: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...]  # kind, models, follow-ups {m}, near
    item_state: tuple[str, ...]          # {c} {m}
    item_ask: tuple[str, ...]            # {c}
    events: tuple[str, ...]
    event_places: tuple[str, ...]
    event_state: tuple[str, ...]         # {e} {p}
    event_date: tuple[str, ...]          # {e} {d}
    event_fillers: tuple[str, ...]       # {e}
    count_events: tuple[str, ...]        # {p}
    count_birthdays: tuple[str, ...]     # {m}
    which_hometown: tuple[str, ...]      # {p}
    chitchat: tuple[str, ...]
    small_talk: tuple[str, ...]          # sentences a noisy question wraps itself in
    announce: tuple[str, ...]            # turns of phrase that announce the real question
    joiners: tuple[str, ...]             # compound: what joins two questions
    cities: tuple[str, ...]
    weekdays: tuple[str, ...]
    stamp: str
    intro: tuple[str, ...] = field(default=())   # {rel} {name}


ZH = Lang(
    code="zh",
    single_relations=options("姑父|舅舅|表哥|表姐|上司|室友|邻居|嫂子|姨妈|师傅|导师|发小|岳母|堂弟"),
    several_relations=options("同事|朋友|同学|客户"),
    names=options("王建国|李娜|张伟|刘洋|陈静|杨帆|赵磊|黄丽|周杰|吴敏|徐涛|孙悦|马超|朱琳|胡斌|郭峰|何欢|林晓|高远|罗丹|"
             "宋佳|唐亮|韩梅|冯刚|邓雨|欧阳明|司马婷|曹颖|彭飞|曾琪|萧然|田野|董洁|袁野|潘虹|蒋勤|蔡明辉|余晖|杜鹃|"
             "叶青|魏来|沈浩然|吕薇|苏航|卢鹏|丁宁|任静|姚远|钟鸣|谭晶|陆川|范冰冰|方圆|石磊|廖凡|邹静怡|熊伟|金鑫|"
             "白露|秦岚|上官云|诸葛亮平"),
    attrs={
        "hobby": Attr(
            options("钓鱼|打羽毛球|下围棋|爬山|摄影|弹吉他|游泳|跑马拉松|画油画|养多肉|打乒乓球|滑雪|做木工|集邮|跳广场舞|"
               "种花|骑行|练书法|打篮球|拉二胡"),
            options("{who}特别喜欢{v}。|{who}平时最大的爱好就是{v}。|{who}一有空就去{v}。|{who}迷上了{v}，周末都泡在上面。|"
               "{who}这几年爱上了{v}。"),
            options("{who}的爱好是什么？|{who}平时喜欢干什么？|{who}业余时间爱做什么？|{who}有什么兴趣爱好？"),
            options("那个爱好是{v}的人|那个喜欢{v}的人|平时爱{v}的那位|那个特别爱{v}的人"),
            options("{who}说他也想找个新爱好。|{who}问我平时周末喜欢干嘛。|{who}说最近没时间玩了。")),
        "job": Attr(
            options("律师|牙医|会计|护士|厨师|建筑师|消防员|飞行员|中学老师|记者|兽医|药剂师|程序员|翻译|警察|设计师|"
               "快递员|银行柜员|健身教练|导游"),
            options("{who}是一名{v}。|{who}干{v}这行十几年了。|{who}的工作是{v}。|{who}毕业以后一直当{v}。|"
               "听说{who}是{v}，怪不得那么忙。"),
            options("{who}是做什么工作的？|{who}的职业是什么？|{who}是干什么的？|{who}从事什么行业？"),
            options("那个职业是{v}的人|那个当{v}的人|那个做{v}的人|那位{v}"),
            options("{who}说最近工作压力很大。|{who}在考虑要不要换工作。|{who}今天加班到很晚。|{who}抱怨单位食堂不好吃。")),
        "birthday": Attr(
            (),
            options("{who}的生日是{v}。|{who}，其生日是{v}。|{who}是{v}出生的。|{who}过生日是在{v}。|{who}生于{v}。"),
            options("{who}的生日是哪天？|{who}什么时候过生日？|{who}是几月几号出生的？|{who}的生日是几号？"),
            options("那个{v}过生日的人|那个生日是{v}的人"),
            options("{who}问我生日想要什么礼物。|{who}说生日那天不想大办。|给{who}挑生日礼物挑了半天。")),
        "hometown": Attr(
            options("四川成都|湖南长沙|山东青岛|浙江温州|广东汕头|黑龙江哈尔滨|云南大理|江西九江|河南洛阳|福建泉州|"
               "湖北宜昌|陕西西安|广西桂林|安徽黄山|四川绵阳|山东烟台|湖南岳阳"),
            options("{who}的老家在{v}。|{who}是{v}人。|{who}从小在{v}长大。|{who}老家是{v}的。"),
            options("{who}的家乡是哪里？|{who}老家是哪儿的？|{who}是哪里人？|{who}的家乡在什么地方？"),
            options("那个老家在{v}的人|那个{v}人|那个家乡是{v}的人"),
            options("{who}说想回老家看看。|{who}春节要回老家。|{who}说老家的菜最好吃。")),
        "phone": Attr(
            (),
            options("{who}的手机号是{v}。|{who}的电话是{v}。|{who}换了新号码：{v}。|记一下{who}的电话，{v}。"),
            options("{who}的电话号码是多少？|{who}的手机号是多少？|怎么给{who}打电话？"),
            options("那个手机号是{v}的人|那个电话是{v}的人"),
            options("{who}说手机又没电了。|{who}让我有事打电话。|{who}的电话一直占线。")),
        "email": Attr(
            (),
            options("{who}的邮箱是{v}。|{who}的电子邮箱：{v}。|{who}让我把材料发到{v}。"),
            options("{who}的邮箱是什么？|{who}的电子邮箱地址是多少？|给{who}发邮件发到哪个地址？"),
            options("那个邮箱是{v}的人|用{v}这个邮箱的人"),
            options("{who}说邮箱满了收不到邮件。|{who}问我有没有收到他的邮件。")),
    },
    name_state=options("{who}的名字叫{v}。|{who}叫{v}。|{who}全名是{v}。|{who}大名{v}。"),
    name_ask=options("{who}叫什么名字？|{who}的名字是什么？|{who}全名叫什么？"),
    ask_after_cond={
        "hobby": options("{pro}的爱好是什么？|{pro}平时喜欢干什么？"),
        "job": options("{pro}是做什么工作的？|{pro}的职业是什么？"),
        "birthday": options("{pro}的生日是哪天？|{pro}什么时候过生日？"),
        "hometown": options("{pro}的家乡是哪里？|{pro}老家在哪儿？"),
        "phone": options("{pro}的电话是多少？|{pro}的手机号是多少？"),
        "email": options("{pro}的邮箱是什么？|{pro}的电子邮箱是多少？"),
        "name": options("{pro}叫什么名字？|{pro}的名字是什么？"),
    },
    name_len_ask=options("{who}的名字有几个字？|{who}的全名是几个字？"),
    name_len_after_cond=options("{pro}的名字有几个字？|{pro}的全名有几个字？"),
    season_ask=options("{who}的生日在哪个季节？|{who}是哪个季节出生的？"),
    season_after_cond=options("{pro}的生日在哪个季节？|{pro}是什么季节出生的？"),
    fillers=options("{who}今天打电话来问我最近怎么样。|{who}说周末要加班。|{who}给我带了些水果。|和{who}一起吃了午饭。|"
               "{who}最近心情不太好。|{who}搬家了，说新房子离地铁近。|{who}又在朋友圈晒娃了。|{who}约我下周去喝茶。|"
               "{who}感冒了，请了两天假。|{who}推荐我看一部电影。"),
    items=(
        ("耳机", options("索尼WH-1000XM5|Bose QC45|森海塞尔Momentum4|AirPods Pro"),
         options("{m}降噪真不错，就是戴久了有点夹头。|{m}的续航能撑两天。|{m}连手机有时候会断开。|{m}音质比我想的好。"),
         options("地铁上好多人戴着耳机。|同事推荐我买个降噪耳机。")),
        ("手机", options("华为Mate60|小米14|iPhone15Pro|OPPO Find X7"),
         options("{m}拍照效果挺好的。|{m}最近有点发烫。|{m}的电池一天一充就够。|{m}系统更新以后变卡了。"),
         options("手机屏幕碎了的人真多。|商场里手机在打折。")),
        ("笔记本电脑", options("ThinkPad X1 Carbon|MacBook Air M2|联想小新Pro16|戴尔XPS13"),
         options("{m}的键盘手感很舒服。|{m}跑大程序风扇呼呼响。|{m}带出差一点都不重。|{m}屏幕有一个坏点。"),
         options("表哥问我笔记本电脑怎么选。|公司要给大家换笔记本电脑。")),
        ("扫地机器人", options("石头G20|科沃斯T20|追觅X30"),
         options("{m}每天上午自动打扫一遍。|{m}老是卡在沙发底下。|{m}拖地拖得挺干净。|{m}的尘盒要两天倒一次。"),
         options("邻居家的扫地机器人把猫吓坏了。|扫地机器人到底值不值得买？")),
        ("相机", options("富士X-T5|索尼A7M4|佳能R6"),
         options("{m}拍夜景有点噪点。|{m}的复古外观很好看。|{m}电池不太耐用，得多备两块。"),
         options("朋友想借相机去旅游。|相机店老板说二手相机也不错。")),
        ("手表", options("华为GT4|Apple Watch S9|佳明Forerunner265"),
         options("{m}测心率挺准。|{m}一周充一次电。|{m}的表带有点硌手。"),
         options("同事戴的手表看起来很贵。|手表店在搞活动。")),
        ("电动车", options("雅迪DE3|小牛NQi|九号E100"),
         options("{m}充一次电能跑五十公里。|{m}刹车有点软。|{m}停小区楼下被贴了条。"),
         options("小区要统一管理电动车充电。|电动车新国标又改了。")),
        ("空气净化器", options("小米4Pro|布鲁雅尔7440|飞利浦AC3858"),
         options("{m}晚上开睡眠模式很安静。|{m}的滤芯该换了。|{m}开一会儿屋里空气就好多了。"),
         options("最近雾霾严重，空气净化器卖断货了。|办公室也买了台空气净化器。")),
    ),
    item_state=options("我用的{c}是{m}。|我新买的{c}是{m}。|我现在的{c}是{m}，上个月入手的。|我的{c}换成了{m}。"),
    item_ask=options("我的{c}怎么样？|我用的{c}好用吗？|我那个{c}用着如何？|说说我的{c}吧，用起来怎么样？"),
    events=options("同学聚会|公司年会|表姐的婚礼|读书分享会|马拉松比赛|音乐节|行业展会|新品发布会|团建活动|校友会|"
              "亲戚的满月酒|摄影展|技术沙龙|家族聚餐"),
    event_places=options("浙江杭州|江苏苏州|上海|广东深圳|四川成都|北京|湖北武汉"),
    event_state=options("{e}定在{p}举办。|{e}的地点是{p}。|今年的{e}在{p}办。|{e}最后选在了{p}。|{e}要去{p}参加。"),
    event_date=options("{e}的时间定在{d}。|{e}是{d}那天。|{e}安排在{d}。"),
    event_fillers=options("{e}的流程还没定下来。|{e}要穿正装吗？有点纠结。|{e}的群里消息刷个不停。|为了{e}请了一天假。"),
    count_events=options("有几个活动是在{p}举办的？|在{p}办的活动有几个？|一共有多少个活动在{p}举行？|哪些活动是在{p}举办的？"),
    count_birthdays=options("有几个人是{m}过生日的？|{m}过生日的有几个人？|哪些人的生日在{m}？|有多少人是{m}出生的？"),
    which_hometown=options("哪些人的老家在{p}？|有几个人是{p}人？|老家是{p}的有几个人？"),
    chitchat=options("地铁上人好多，挤得不行。|晚上吃了火锅，辣得过瘾。|又下雨了，出门忘带伞。|楼下新开了一家奶茶店，排队的人好多。|"
                "昨天熬夜追剧了，今天好困。|这两天天气忽冷忽热的。|早上闹钟没响，差点迟到。|周末想去公园走走。|"
                "今天的外卖送得特别慢。|股票又跌了，心累。|小区停水了一上午。|楼上装修吵了一整天。|中午吃的麻辣烫一般般。|"
                "今天地铁又晚点了十分钟。|火锅店排了一个小时的队。|周末好像又要下雨。|最近老是失眠。|咖啡喝多了有点心慌。"),
    small_talk=options("哎呀，今天地铁挤死了……|晚上想去吃火锅……|周末好像又要下雨……|最近天气忽冷忽热的，烦。|"
                  "昨天熬夜追剧了，好困啊。|楼下奶茶店又在排队。|今天外卖送得好慢啊。|你说周末会不会下雨呢？|"
                  "股票又跌了，唉。|早上差点迟到，闹钟没响。|上周同事过生日，我们去唱了歌……|最近老家的亲戚总打电话来。|"
                  "新买的充电宝不太好用。|这周工作好多，名字都记不住了。"),
    announce=options("对了，我真正想问的是：|说正事，|言归正传，|其实我想问的是，|问你个事儿：|哦对了，|我想知道，|"),
    joiners=options("另外，|还有，|顺便问一下，|另外还想问，|还有一个问题，"),
    cities=options("广东深圳|北京|上海|浙江杭州|四川成都"),
    weekdays=options("周一|周二|周三|周四|周五|周六|周日"),
    stamp="[{year}年{month:02d}月{day:02d}日 {weekday} {hh:02d}:{mm:02d} {city}] ",
    intro=options("我{rel}{name}|{rel}{name}"),
)

EN = Lang(
    code="en",
    single_relations=options("uncle|aunt|boss|roommate|neighbor|sister-in-law|mentor|landlord|grandpa|stepbrother|"
                        "godmother|cousin|brother-in-law|piano teacher"),
    several_relations=options("coworker|friend|classmate|client"),
    names=options("Robert Hall|Lina Park|Ben Carter|Marcus Webb|Olivia Stone|Priya Nair|Tom Reyes|Chloe Martin|Noah Fisher|"
             "Ava Brooks|Ethan Cole|Mia Foster|Lucas Grant|Zoe Hayes|Owen Price|Ella Ward|Jack Turner|Grace Kim|"
             "Leo Bennett|Ruby Shaw|Sam Ortiz|Nora Quinn|Felix Moore|Iris Lane|Hugo Bell|Maya Patel|Aiden Ross|"
             "Clara Fox|Diego Santos|Hannah Lee|Ivan Petrov|June Walsh|Kai Tanaka|Laura Diaz|Milo Evans"),
    attrs={
        "hobby": Attr(
            options("fishing|badminton|chess|hiking|photography|guitar|swimming|marathon running|oil painting|pottery|"
               "table tennis|skiing|woodworking|stamp collecting|gardening|cycling|calligraphy|rock climbing|"
               "birdwatching|knitting"),
            options("{who} really loves {v}.|{who}'s biggest passion is {v}.|{who} spends every free weekend on {v}.|"
               "{who} got hooked on {v} a few years ago.|{who} is crazy about {v}."),
            options("What is {who}'s hobby?|What does {who} like to do in free time?|What does {who} do for fun?"),
            options("The person whose hobby is {v}|The one who loves {v}|The person who is into {v}"),
            options("{who} said they want a new hobby.|{who} asked what I do on weekends for fun.|"
               "{who} has had no free time lately.")),
        "job": Attr(
            options("lawyer|dentist|accountant|nurse|chef|architect|firefighter|pilot|high school teacher|journalist|vet|"
               "pharmacist|software engineer|translator|police officer|designer|electrician|bank teller|"
               "personal trainer|tour guide"),
            options("{who} works as a {v}.|{who} has been a {v} for over ten years.|{who} is a {v}.|"
               "{who} became a {v} right after college.|Turns out {who} is a {v}, no wonder they're so busy."),
            options("What does {who} do for a living?|What is {who}'s job?|What is {who}'s profession?"),
            options("The person who works as a {v}|The one who is a {v}|The {v} I know"),
            options("{who} says work has been really stressful.|{who} is thinking about changing jobs.|"
               "{who} worked late again today.")),
        "birthday": Attr(
            (),
            options("{who}'s birthday is {v}.|{who} was born on {v}.|{who} celebrates their birthday on {v}.|"
               "Note: {who}, birthday {v}."),
            options("When is {who}'s birthday?|What day was {who} born?|When does {who} celebrate their birthday?"),
            options("The person whose birthday is {v}|The one born on {v}"),
            options("{who} asked what I want for my birthday.|{who} doesn't want a big birthday party.|"
               "Spent ages picking a birthday present for {who}.")),
        "hometown": Attr(
            options("Denver, Colorado|Austin, Texas|Portland, Maine|Savannah, Georgia|Boise, Idaho|Tulsa, Oklahoma|"
               "Omaha, Nebraska|Fresno, California|Duluth, Minnesota|Tacoma, Washington|Dayton, Ohio|Reno, Nevada|"
               "Mobile, Alabama|Eugene, Oregon|Spokane, Washington|Akron, Ohio"),
            options("{who} grew up in {v}.|{who} is from {v}.|{who}'s hometown is {v}.|{who} was raised in {v}."),
            options("Where is {who} from?|What is {who}'s hometown?|Where did {who} grow up?"),
            options("The person from {v}|The one who grew up in {v}"),
            options("{who} wants to visit home soon.|{who} is going home for the holidays.|"
               "{who} says the food back home is the best.")),
        "phone": Attr(
            (),
            options("{who}'s phone number is {v}.|{who}'s cell is {v}.|{who} got a new number: {v}.|"
               "Saving {who}'s number: {v}."),
            options("What is {who}'s phone number?|How do I call {who}?|What's {who}'s cell number?"),
            options("The person whose number is {v}|The one with the number {v}"),
            options("{who}'s phone died again.|{who} told me to call if anything comes up.|{who}'s line was busy all day.")),
        "email": Attr(
            (),
            options("{who}'s email is {v}.|{who}'s email address: {v}.|{who} asked me to send the files to {v}."),
            options("What is {who}'s email?|What's {who}'s email address?|Where do I email {who}?"),
            options("The person whose email is {v}|The one using {v}"),
            options("{who} says their inbox is full.|{who} asked if I got their email.")),
    },
    name_state=options("{who}'s name is {v}.|{who} is called {v}.|{who}'s full name is {v}."),
    name_ask=options("What is {who}'s name?|What's {who} called?|What is {who}'s full name?"),
    ask_after_cond={
        "hobby": options("what is {pro} hobby?|what does {pro2} do for fun?"),
        "job": options("what is {pro} job?|what does {pro2} do for a living?"),
        "birthday": options("when is {pro} birthday?|when was {pro2} born?"),
        "hometown": options("where is {pro2} from?|what is {pro} hometown?"),
        "phone": options("what is {pro} phone number?|how do I call {pro3}?"),
        "email": options("what is {pro} email?|what is {pro} email address?"),
        "name": options("what is {pro} name?|what is {pro} full name?"),
    },
    name_len_ask=options("How many letters are in {who}'s first name?|How many letters does {who}'s first name have?"),
    name_len_after_cond=options("how many letters are in {pro} first name?|how many letters does {pro} first name have?"),
    season_ask=options("In which season is {who}'s birthday?|What season was {who} born in?"),
    season_after_cond=options("in which season is {pro} birthday?|what season was {pro2} born in?"),
    fillers=options("{who} called today to check in on me.|{who} has to work this weekend.|{who} brought me some fruit.|"
               "Had lunch with {who}.|{who} seems a bit down lately.|{who} moved, says the new place is near the subway.|"
               "{who} posted baby photos again.|{who} invited me for tea next week.|{who} caught a cold and took two days off.|"
               "{who} recommended a movie to me."),
    items=(
        ("headphones", options("Sony WH-1000XM5|Bose QC45|Sennheiser Momentum 4|AirPods Pro"),
         options("The {m} noise cancelling is great, but they squeeze my head after a while.|The {m} battery lasts two days.|"
            "The {m} keep dropping the connection to my phone.|The {m} sound better than I expected."),
         options("Everyone on the subway wears headphones.|A coworker told me to get noise-cancelling headphones.")),
        ("phone", options("Pixel 8|iPhone 15 Pro|Galaxy S24|OnePlus 12"),
         options("The {m} takes great photos.|My {m} runs hot lately.|The {m} battery gets me through a day.|"
            "The {m} got sluggish after the update."),
         options("So many people have cracked phone screens.|Phones are on sale at the mall.")),
        ("laptop", options("ThinkPad X1 Carbon|MacBook Air M2|Dell XPS 13|Framework 13"),
         options("The {m} keyboard feels great.|The {m} fan roars on big builds.|The {m} is light enough for trips.|"
            "The {m} screen has a dead pixel."),
         options("My cousin asked me how to pick a laptop.|Work is replacing everyone's laptop.")),
        ("robot vacuum", options("Roborock S8|Roomba j7|Eufy X10"),
         options("The {m} cleans every morning on its own.|The {m} keeps getting stuck under the couch.|"
            "The {m} mops pretty well.|The {m} bin needs emptying every two days."),
         options("The neighbor's robot vacuum scared their cat.|Are robot vacuums even worth it?")),
        ("camera", options("Fujifilm X-T5|Sony A7 IV|Canon R6"),
         options("The {m} is noisy in night shots.|The {m} retro look is lovely.|The {m} eats batteries, I carry spares."),
         options("A friend wants to borrow a camera for a trip.|The camera shop guy says used cameras are fine.")),
        ("watch", options("Garmin Forerunner 265|Apple Watch S9|Pixel Watch 2"),
         options("The {m} heart rate readings are accurate.|The {m} lasts a week per charge.|The {m} strap pinches a bit."),
         options("My coworker's watch looks expensive.|The watch store is having a sale.")),
        ("e-bike", options("Rad Power RadCity|VanMoof S5|Aventon Level"),
         options("The {m} goes 30 miles on a charge.|The {m} brakes feel soft.|The {m} got a ticket parked downstairs."),
         options("The building wants e-bike charging rules.|E-bike laws changed again.")),
        ("air purifier", options("Coway Airmega|Blueair 211|Levoit Core 400S"),
         options("The {m} is very quiet in sleep mode.|The {m} filter needs replacing.|The {m} clears the room air fast."),
         options("Air purifiers sold out during the smoke days.|The office bought an air purifier too.")),
    ),
    item_state=options("My {c} is the {m}.|I just bought the {m} as my new {c}.|I use the {m} as my {c} now, got it last month.|"
                  "I switched my {c} to the {m}."),
    item_ask=options("How is my {c}?|Is my {c} any good?|How's my {c} working out?|What do I think of my {c}?"),
    events=options("class reunion|company party|cousin's wedding|book club meetup|marathon|music festival|trade show|"
              "product launch|team offsite|alumni dinner|baby shower|photo exhibition|tech meetup|family reunion"),
    event_places=options("Seattle|Chicago|Boston|San Diego|Nashville|Denver|Atlanta"),
    event_state=options("The {e} will be held in {p}.|The {e} is happening in {p}.|This year's {e} is in {p}.|"
                   "They picked {p} for the {e}.|I'm going to {p} for the {e}."),
    event_date=options("The {e} is set for {d}.|The {e} falls on {d}.|The {e} is scheduled for {d}."),
    event_fillers=options("The {e} schedule still isn't final.|Do I need a suit for the {e}? Torn.|"
                     "The {e} group chat won't stop buzzing.|Took a day off for the {e}."),
    count_events=options("How many events are held in {p}?|How many of the events take place in {p}?|"
                    "Which events are happening in {p}?"),
    count_birthdays=options("How many people have birthdays in {m}?|Who has a birthday in {m}?|How many people were born in {m}?"),
    which_hometown=options("Which people are from {p}?|How many people grew up in {p}?"),
    chitchat=options("The subway was packed this morning.|Had hotpot for dinner, so spicy.|Raining again, forgot my umbrella.|"
                "A new bubble tea shop opened downstairs, huge line.|Stayed up binge-watching a show, so tired.|"
                "The weather keeps flipping between hot and cold.|Alarm didn't go off, almost late.|"
                "Want to walk in the park this weekend.|Delivery was super slow today.|Stocks dropped again, ugh.|"
                "No water in the building all morning.|Upstairs renovation noise all day.|Lunch was meh.|"
                "The train was ten minutes late again.|Waited an hour for the hotpot place.|"
                "Looks like rain again this weekend.|Can't sleep well lately.|Too much coffee, feeling jittery."),
    small_talk=options("Ugh, the subway was so packed today...|Thinking of hotpot for dinner...|"
                  "Looks like it's going to rain again this weekend...|The weather keeps flipping, annoying.|"
                  "Stayed up too late watching a show, so tired.|The bubble tea line downstairs is crazy again.|"
                  "Do you think it'll rain this weekend?|Stocks dropped again, sigh.|Almost late this morning, alarm failed.|"
                  "A coworker had a birthday last week, we went to karaoke...|My relatives back home keep calling lately.|"
                  "My new power bank is kind of bad.|So much work this week I can't even remember names."),
    announce=options("Anyway, what I really want to ask is: |Oh right, |But seriously, |My actual question: |"
                "Quick question: |So, |"),
    joiners=options("Also, |And another thing: |By the way, |Oh, and |One more: "),
    cities=options("Austin TX|Seattle|Chicago|Boston|Denver"),
    weekdays=options("Mon|Tue|Wed|Thu|Fri|Sat|Sun"),
    stamp="[{weekday} {year}-{month:02d}-{day:02d} {hh:02d}:{mm:02d}, {city}] ",
    intro=options("my {rel} {name}"),
)

LANGS = {"zh": ZH, "en": EN}
_SEASON = {12: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 3}


def _season(lang: Lang, month: int) -> str:
    return ("冬春夏秋" if lang.code == "zh" else ("winter", "spring", "summer", "autumn"))[_SEASON[month]]


# ------------------------------------------------------------------------------------------ people, threads

@dataclass
class Person:
    rel: str
    name: str
    named: bool                   # referred to by name (several of the relation) or by the relation only
    facts: dict[str, str] = field(default_factory=dict)    # attr -> value (birthday: "m-d")
    he: bool = True


Spec = tuple[str, tuple[object, ...]]    # turn text, tags


def _first_name_len(lang: Lang, name: str) -> int:
    return len(name) if lang.code == "zh" else len(name.split()[0])


def _phone(rng: random.Random, lang: Lang) -> str:
    if lang.code == "zh":
        n = f"1{rng.choice('3589')}{rng.randrange(10 ** 9):09d}"
        return rng.choice((n, f"{n[:3]}-{n[3:7]}-{n[7:]}", f"{n[:3]} {n[3:7]} {n[7:]}"))
    a, b, c = rng.randrange(200, 999), rng.randrange(200, 999), rng.randrange(10 ** 4)
    return rng.choice((f"({a}) {b}-{c:04d}", f"{a}-{b}-{c:04d}", f"{a}.{b}.{c:04d}"))


_PINYIN = options("wang|li|zhang|liu|chen|yang|zhao|huang|zhou|wu|xu|sun|ma|zhu|hu|guo|he|lin|gao|luo")


def _email(rng: random.Random, lang: Lang, p: Person, k: int) -> str:
    if lang.code == "zh":
        user = f"{rng.choice(_PINYIN)}{rng.choice(_PINYIN)}{rng.randrange(10, 99)}"
    else:
        user = f"{p.name.split()[0].lower()}.{rng.choice(('w', 'k', 'j', 'r'))}{k}"
    return f"{user}@{rng.choice(('163.com', 'qq.com', 'gmail.com', 'outlook.com', 'foxmail.com'))}"


def _date_text(lang: Lang, md: str, rng: random.Random) -> str:
    m, d = map(int, md.split("-"))
    return zh_date(m, d, rng) if lang.code == "zh" else en_date(m, d, rng)


def _make_people(lang: Lang, rng: random.Random) -> list[Person]:
    names = list(lang.names)
    rng.shuffle(names)
    people: list[Person] = []
    for rel in rng.sample(lang.single_relations, rng.randint(8, 10)):
        people.append(Person(rel, names.pop(), named=False, he=rng.random() < 0.5))
    for rel in lang.several_relations:
        for _ in range(rng.randint(2, 4)):
            people.append(Person(rel, names.pop(), named=True, he=rng.random() < 0.5))
    pools = {a: list(lang.attrs[a].values) for a in ("hobby", "job", "hometown")}
    for pool in pools.values():
        rng.shuffle(pool)
    # A month a few people share: birthday counting questions need more than one.
    shared_month = rng.randint(1, 12)
    used_days: set[str] = set()
    for k, p in enumerate(people):
        for a in ATTRS:
            if rng.random() > {"hobby": 0.7, "job": 0.7, "birthday": 0.6, "hometown": 0.6, "phone": 0.35,
                               "email": 0.3}[a]:
                continue
            if a in pools:
                if not pools[a]:
                    continue
                # Hometowns repeat across people (a "which people are from P" question); the rest are unique.
                v = pools[a].pop() if a != "hometown" or rng.random() < 0.6 or not p.facts else \
                    rng.choice(lang.attrs[a].values)
                p.facts[a] = v
            elif a == "birthday":
                m = shared_month if rng.random() < 0.3 else rng.randint(1, 12)
                md = f"{m}-{rng.randint(1, 28)}"
                while md in used_days:
                    md = f"{m}-{rng.randint(1, 28)}"
                used_days.add(md)
                p.facts[a] = md
            elif a == "phone":
                p.facts[a] = _phone(rng, lang)
            else:
                p.facts[a] = _email(rng, lang, p, k)
        if len(p.facts) < 2:
            p.facts.setdefault("hobby", pools["hobby"].pop() if pools["hobby"] else "钓鱼")
            p.facts.setdefault("birthday", f"{shared_month}-{rng.randint(1, 28)}")
    return people


def _ref(lang: Lang, p: Person, rng: random.Random, first: bool = False) -> str:
    """How a turn names a person: a relation alone by relation; a named one by relation and name, or name."""
    if lang.code == "zh":
        if not p.named:
            return rng.choice((f"我{p.rel}", p.rel, f"我{p.rel}")) if not first else f"我{p.rel}"
        return rng.choice(lang.intro).format(rel=p.rel, name=p.name) if first or rng.random() < 0.3 else p.name
    if not p.named:
        return f"my {p.rel}"
    if first or rng.random() < 0.3:
        return rng.choice(lang.intro).format(rel=p.rel, name=p.name)
    return rng.choice((p.name, p.name.split()[0]))


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _fmt(template: str, **kw: str) -> str:
    text = template.format(**kw)
    return _cap(text)


def _person_thread(lang: Lang, pi: int, p: Person, rng: random.Random) -> list[Spec]:
    specs: list[Spec] = []
    first = True

    def who() -> str:
        nonlocal first
        w = _ref(lang, p, rng, first)
        first = False
        return w

    facts: list[Spec] = []
    if not p.named:
        facts.append((_fmt(rng.choice(lang.name_state), who="{who}", v=p.name), (("p", pi, "name"),)))
    for a, v in p.facts.items():
        shown = _date_text(lang, v, rng) if a == "birthday" else v
        facts.append((rng.choice(lang.attrs[a].state).replace("{v}", shown), (("p", pi, a),)))
    chat: list[Spec] = [(t, ()) for t in rng.sample(lang.fillers, rng.randint(3, 6))]
    near: list[Spec] = [(rng.choice(lang.attrs[a].near), ()) for a in rng.sample(list(p.facts), min(len(p.facts), rng.randint(1, 3)))]
    order: list[Spec] = facts + chat + near
    rng.shuffle(order)
    # The first turn introduces the person (by relation and name): a chatty turn if there is one.
    for k, (_t, tags) in enumerate(order):
        if not tags:
            order.insert(0, order.pop(k))
            break
    for t, tags in order:
        specs.append((_fmt(t, who=who()), tags))
    return specs


def _item_thread(lang: Lang, ii: int, kind: tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]],
                 rng: random.Random) -> tuple[list[Spec], str]:
    c, models, follows, nears = kind
    m = rng.choice(models)
    specs: list[Spec] = [(_fmt(rng.choice(lang.item_state), c=c, m=m), (("i", ii),))]
    for f in rng.sample(follows, rng.randint(2, 3)):
        specs.append((_fmt(f, m=m), (("i", ii),)))
    near = [(t, ()) for t in nears]
    return specs, m if not near else m


def _event_thread(lang: Lang, ei: int, e: str, p: str, rng: random.Random) -> list[Spec]:
    m, d = rng.randint(1, 12), rng.randint(1, 28)
    dt = zh_date(m, d, rng) if lang.code == "zh" else en_date(m, d, rng)
    specs: list[Spec] = [(_fmt(rng.choice(lang.event_state), e=e, p=p), (("e", ei, "place"),)),
                         (_fmt(rng.choice(lang.event_date), e=e, d=dt), (("e", ei, "date"),))]
    specs += [(_fmt(t, e=e), ()) for t in rng.sample(lang.event_fillers, rng.randint(1, 2))]
    first, rest = specs[0], specs[1:]
    rng.shuffle(rest)
    return [first] + rest if rng.random() < 0.6 else rest[:1] + [first] + rest[1:]


# ------------------------------------------------------------------------------------------------ questions

@dataclass
class Plan:
    text: str
    evidence: list[object]       # tags
    answer: str
    category: str


def _who_q(lang: Lang, p: Person, rng: random.Random) -> str:
    if lang.code == "zh":
        return f"我{p.rel}" if not p.named else rng.choice((f"我{p.rel}{p.name}", p.name, f"{p.rel}{p.name}"))
    return f"my {p.rel}" if not p.named else rng.choice((p.name, f"my {p.rel} {p.name}", p.name.split()[0]))


def _ask_fact(lang: Lang, p: Person, pi: int, a: str, rng: random.Random) -> Plan:
    w = _who_q(lang, p, rng)
    tmpl = rng.choice(lang.name_ask if a == "name" else lang.attrs[a].ask)
    return Plan(_fmt(tmpl, who=w), [("p", pi, a)], p.name if a == "name" else p.facts[a], "simple")


def _pro(lang: Lang, p: Person) -> dict[str, str]:
    if lang.code == "zh":
        return {"pro": "他" if p.he else "她"}
    return {"pro": "his" if p.he else "her", "pro2": "he" if p.he else "she", "pro3": "him" if p.he else "her"}


def _cond_text(lang: Lang, p: Person, a: str, rng: random.Random) -> str:
    v = p.facts[a]
    shown = _date_text(lang, v, rng) if a == "birthday" else v
    return rng.choice(lang.attrs[a].cond).format(v=shown)


def _unique(people: list[Person], a: str, p: Person) -> bool:
    return sum(1 for q in people if q.facts.get(a) == p.facts.get(a)) == 1


def _relational(lang: Lang, people: list[Person], rng: random.Random, computed: bool = False) -> Plan | None:
    cands = [(pi, p) for pi, p in enumerate(people)
             if any(a in p.facts and _unique(people, a, p) for a in ("hobby", "job", "hometown", "email", "birthday"))]
    if not cands:
        return None
    pi, p = rng.choice(cands)
    by = rng.choice([a for a in ("hobby", "job", "hometown", "email", "birthday") if a in p.facts and _unique(people, a, p)])
    cond = _cond_text(lang, p, by, rng)
    sep = "，" if lang.code == "zh" else ", "
    if computed:
        options = [x for x in ("name_len", "season") if x != "season" or ("birthday" in p.facts and by != "birthday")]
        what = rng.choice(options)
        if what == "name_len":
            tmpl, target, ans = rng.choice(lang.name_len_after_cond), "name", str(_first_name_len(lang, p.name))
        else:
            m = int(p.facts["birthday"].split("-")[0])
            tmpl, target, ans = rng.choice(lang.season_after_cond), "birthday", _season(lang, m)
    else:
        targets = [a for a in p.facts if a != by] + (["name"] if not p.named else [])
        if not targets:
            return None
        target = rng.choice(targets)
        tmpl = rng.choice(lang.ask_after_cond[target])
        ans = p.name if target == "name" else p.facts[target]
    text = cond + sep + tmpl.format(**_pro(lang, p))
    # A named person's condition turn names them: the name is the bridge, and a question of their name
    # is answered by the condition turn alone.
    ev: list[object] = [("p", pi, by)]
    if not (target == "name" and p.named):
        ev.append(("p", pi, target))
    return Plan(text, ev, ans, "computed" if computed else "relational")


def _noisy(lang: Lang, inner: Plan, rng: random.Random) -> Plan:
    pre = " ".join(rng.sample(lang.small_talk, rng.randint(2, 4))) if lang.code == "en" else \
        "".join(rng.sample(lang.small_talk, rng.randint(2, 4)))
    post = rng.choice(lang.small_talk) if rng.random() < 0.5 else ""
    sp = "" if lang.code == "zh" else " "
    q = inner.text
    if lang.code == "en" and not q.startswith(("I ", "My ")):
        q = q[:1].lower() + q[1:]
    parts = [pre, rng.choice(lang.announce) + q]
    if post:
        parts.append(("另外，" if lang.code == "zh" else "Also, ") + post)
    return Plan(sp.join(parts), inner.evidence, inner.answer, "noisy")


def _compound(lang: Lang, parts: list[Plan], rng: random.Random) -> Plan:
    sp = "" if lang.code == "zh" else " "
    text = parts[0].text
    for part in parts[1:]:
        j = rng.choice(lang.joiners)
        t = part.text
        if lang.code == "en":
            t = t[:1].lower() + t[1:] if not t.startswith(("I ", "My ")) else t
        if rng.random() < 0.3:  # the first part without its question mark
            text = text.rstrip("？?") + ("，" if lang.code == "zh" else ",")
        text = text + sp + j + t
    ev: list[object] = [e for part in parts for e in part.evidence]
    return Plan(text, list(dict.fromkeys(ev)), " / ".join(p.answer for p in parts), "compound")


def _plans(lang: Lang, people: list[Person], items: list[tuple[str, str]], events: list[tuple[str, str]],
           rng: random.Random) -> list[Plan]:
    plans: list[Plan] = []
    facts = [(pi, a) for pi, p in enumerate(people) for a in list(p.facts) + (["name"] if not p.named else [])]
    simple = rng.sample(facts, min(len(facts), 16))
    sp = iter(simple)
    for _ in range(4):
        pi, a = next(sp)
        plans.append(_ask_fact(lang, people[pi], pi, a, rng))
    for _ in range(5):
        rel = _relational(lang, people, rng)
        if rel:
            plans.append(rel)
    for _ in range(5):
        if rng.random() < 0.6:
            pi, a = next(sp)
            inner = _ask_fact(lang, people[pi], pi, a, rng)
        else:
            inner = _relational(lang, people, rng) or _ask_fact(lang, people[simple[0][0]], simple[0][0], simple[0][1], rng)
        plans.append(_noisy(lang, inner, rng))
    for _ in range(4):
        parts = []
        for _ in range(rng.choice((2, 2, 3))):
            if rng.random() < 0.75:
                pi, a = next(sp, simple[rng.randrange(len(simple))])
                parts.append(_ask_fact(lang, people[pi], pi, a, rng))
            else:
                parts.append(_relational(lang, people, rng) or _ask_fact(lang, people[simple[1][0]], simple[1][0], simple[1][1], rng))
        plans.append(_compound(lang, parts, rng))
    for ii in rng.sample(range(len(items)), min(4, len(items))):
        c, _m = items[ii]
        plans.append(Plan(_fmt(rng.choice(lang.item_ask), c=c), [("i", ii)], _m, "items"))
    # Counting: events by place (every event's place turn), birthdays by month, people by hometown.
    places = [p for _e, p in events]
    for p in sorted(dict.fromkeys(places), key=places.count, reverse=True)[:2]:
        tmpl = rng.choice(lang.count_events)
        # "Which events / how many events": every turn stating an event's place is needed to be sure.
        plans.append(Plan(tmpl.format(p=p), [("e", ei, "place") for ei in range(len(events))],
                          str(places.count(p)), "counting"))
    months: dict[int, list[int]] = {}
    for pi, person in enumerate(people):
        if "birthday" in person.facts:
            months.setdefault(int(person.facts["birthday"].split("-")[0]), []).append(pi)
    for m, who in sorted(months.items(), key=lambda kv: -len(kv[1]))[:2]:
        if len(who) < 2:
            continue
        mt = zh_month(m, rng) if lang.code == "zh" else en_month(m, rng)
        plans.append(Plan(rng.choice(lang.count_birthdays).format(m=mt), [("p", pi, "birthday") for pi in who],
                          str(len(who)), "counting"))
    towns: dict[str, list[int]] = {}
    for pi, person in enumerate(people):
        if "hometown" in person.facts:
            towns.setdefault(person.facts["hometown"], []).append(pi)
    for town, who in towns.items():
        if len(who) >= 2:
            plans.append(Plan(rng.choice(lang.which_hometown).format(p=town), [("p", pi, "hometown") for pi in who],
                              str(len(who)), "counting"))
            break
    # Computed: a birthday's season, a name's length; asked of a relation, or of a person picked out by a fact.
    for _ in range(4):
        if rng.random() < 0.75:
            plan = _relational(lang, people, rng, computed=True)
            if plan:
                plans.append(plan)
                continue
        pool = [(k, x) for k, x in enumerate(people) if not x.named or "birthday" in x.facts]
        ci, one = rng.choice(pool)
        w = _who_q(lang, one, rng)
        if "birthday" in one.facts and (one.named or rng.random() < 0.5):
            m = int(one.facts["birthday"].split("-")[0])
            plans.append(Plan(_fmt(rng.choice(lang.season_ask), who=w), [("p", ci, "birthday")], _season(lang, m),
                              "computed"))
        else:
            plans.append(Plan(_fmt(rng.choice(lang.name_len_ask), who=w), [("p", ci, "name")],
                              str(_first_name_len(lang, one.name)), "computed"))
    return plans


# ------------------------------------------------------------------------------------------------- history

def generate_asked_log(lang_code: str, seed: int, with_timestamps: bool | None = None) -> Conversation:
    """One history and its questions (see the module); ``with_timestamps`` default: odd seeds."""
    lang = LANGS[lang_code]
    rng = random.Random(f"asked-{lang_code}-{seed}")
    people = _make_people(lang, rng)
    threads: list[list[Spec]] = [_person_thread(lang, pi, p, rng) for pi, p in enumerate(people)]
    items: list[tuple[str, str]] = []
    for ii, kind in enumerate(rng.sample(lang.items, rng.randint(5, 7))):
        specs, m = _item_thread(lang, ii, kind, rng)
        threads.append(specs)
        items.append((kind[0], m))
        for t in kind[3]:
            threads.append([(t, ())])
    places = rng.sample(lang.event_places, 3)
    events: list[tuple[str, str]] = []
    for ei, e in enumerate(rng.sample(lang.events, rng.randint(6, 8))):
        p = places[0] if ei < 2 else rng.choice(places)
        events.append((e, p))
        threads.append(_event_thread(lang, ei, e, p, rng))
    # Small talk, in short runs of its own.
    chat = list(lang.chitchat)
    rng.shuffle(chat)
    while chat:
        k = rng.randint(1, 3)
        threads.append([(t, ()) for t in chat[:k]])
        chat = chat[k:]
    # Repeat some small talk: a log has the same complaints more than once.
    for t in rng.choices(lang.chitchat, k=24):
        threads.append([(t, ())])
    rng.shuffle(threads)
    order = interleave(rng, threads, stay=0.2)
    days = rng.randint(8, 12)
    start = datetime(2024, rng.randint(1, 10), rng.randint(1, 20), 0, 0)
    times = day_times(len(order), start, days, lambda k: rng.sample(range(7 * 60, 23 * 60), k))
    stamped = with_timestamps if with_timestamps is not None else bool(seed % 2)
    home = rng.choice(lang.cities)
    log = LogWriter(ids="t{:04d}")
    for (text, tags), when in zip(order, times):
        city = home if rng.random() < 0.85 else rng.choice(lang.cities)
        prefix = lang.stamp.format(year=when.year, month=when.month, day=when.day,
                                   weekday=lang.weekdays[when.weekday()], hh=when.hour, mm=when.minute, city=city)
        log.add(prefix + text, timestamp=when if stamped else None, tags=tags)
    questions: list[Question] = []
    for pl in _plans(lang, people, items, events, rng):
        ids = list(dict.fromkeys(i for tag in pl.evidence for i in log.tagged.get(tag, [])))
        if ids:
            questions.append(question(pl.text, ids, pl.answer, pl.category))
    return log.conversation(questions)


def asked_log_set(lang: str, seeds: Sequence[int], split: str, at_length: bool = False) -> DevSet:
    """``zh-asked`` / ``en-asked``: ``HISTORIES_PER_SEED`` histories per seed; ``at_length``: the same logs with
    every turn said at length (``zh-asked-long`` / ``en-asked-long``, see ``wordy``)."""
    if at_length:
        return seeded_set(f"{lang}-asked-long", split, seeds, HISTORIES_PER_SEED,
                          lambda s: said_at_length(generate_asked_log(lang, s), lang, s))
    return seeded_set(f"{lang}-asked", split, seeds, HISTORIES_PER_SEED, lambda s: generate_asked_log(lang, s))
