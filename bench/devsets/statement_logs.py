"""Generated statement logs: one user's short statements about ~40 unrelated threads.

Each thread is one person of the user's life (uncle, colleague, boss...) or one of the
user's own things; many threads are about the same kinds of people, with different facts
and names. Threads are interleaved by time over a few days, each turn is prefixed with its
time and place, and every turn has role ``user``. A question asks one thread's fact and
names the evidence turn. Everything here is our own templates (CC0); a seed fixes a history.

Run ``python -m bench.devsets log zh 1`` to print one history and its questions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from .model import Conversation, Question
from .writer import LogWriter, cap, question, stamp

THREADS = 40
DAYS = 4
QUESTIONS = 14


@dataclass(frozen=True)
class Fact:
    """One kind of fact: values, ways to state it ({who} {v}) and ways to ask it ({who})."""

    values: tuple[str, ...]
    statements: tuple[str, ...]
    questions: tuple[str, ...]


def _f(values: str, statements: str, questions: str) -> Fact:
    return Fact(tuple(values.split("|")), tuple(statements.split("|")), tuple(questions.split("|")))


class Spec(TypedDict):
    """A language's pools; most are "|"-separated strings."""

    relations: str
    names: str
    places: str
    facts: list[Fact]
    fillers: str
    pronoun_fillers: str
    who: list[str]
    prefix: str


ZH: Spec = {
    "relations": "叔叔|阿姨|同事|老板|邻居|室友|同学|朋友",
    "names": "张伟|李娜|王强|刘洋|陈静|杨帆|赵磊|黄丽|周杰|吴敏|徐涛|孙悦|马超|朱琳|胡斌|郭峰|何欢|林晓|高远|罗丹|"
             "宋佳|唐亮|韩梅|冯刚|邓超|曹颖|彭飞|曾琪|萧然|田野|董洁|袁野|潘虹|蒋勤|蔡明|余晖|杜鹃|叶青|程程|魏来",
    "places": "公司|家里|地铁上|咖啡馆|健身房|超市|公园|医院|学校|餐厅|出租车上|高铁站",
    "facts": [
        _f("厨师长|中学老师|出租车司机|软件工程师|护士|会计|律师|消防员|药剂师|摄影师|建筑师|快递员",
           "{who}是{v}。|{who}现在是一名{v}。|{who}做{v}已经十年了。",
           "{who}是做什么工作的呢？|{who}的职业是什么？"),
        _f("黑龙江哈尔滨|四川成都|广东汕头|浙江温州|湖南长沙|山东青岛|云南大理|江苏苏州|福建厦门|陕西西安",
           "{who}来自{v}。|{who}老家在{v}。",
           "{who}是哪里人？|{who}来自哪里？"),
        _f("钓鱼|下围棋|跑马拉松|弹吉他|养多肉|打羽毛球|摄影|爬山|做陶艺|练书法",
           "{who}最喜欢{v}。|{who}业余时间都在{v}。",
           "{who}平时有什么爱好？|{who}喜欢做什么？"),
        _f("比亚迪汉|特斯拉Model 3|大众帕萨特|丰田凯美瑞|蔚来ES6|五菱宏光",
           "{who}开的是{v}。|{who}刚买了一辆{v}。",
           "{who}开什么车？|{who}的车是什么牌子？"),
        _f("橘猫|柯基|金毛|鹦鹉|仓鼠|布偶猫|乌龟",
           "{who}养了一只{v}。|{who}家里有一只{v}。",
           "{who}养了什么宠物？"),
        _f("火锅|饺子|烤鸭|螺蛳粉|小龙虾|寿司|煎饼果子",
           "{who}特别爱吃{v}。|{who}每周都要吃一次{v}。",
           "{who}爱吃什么？|{who}最喜欢的食物是什么？"),
        _f("三月五日|六月十八日|九月九日|十二月一日|七月二十日|一月八日",
           "{who}的生日是{v}。",
           "{who}的生日是哪天？|{who}什么时候过生日？"),
        _f("华为Mate60|iPhone 15|小米14|OPPO Find X7|vivo X100",
           "{who}用的手机是{v}。|{v}是{who}的心头好。",
           "{who}用什么手机？"),
    ],
    "fillers": "今天和{who}一起吃了午饭。|{who}说下周要出差。|{who}最近心情不错。|刚给{who}打了个电话。|"
               "{who}昨晚很晚才睡。|{who}让我帮忙搬东西。|{who}今天请假了。|和{who}聊了很久。|"
               "{who}说最近工作太累了。|{who}问我哪里有好吃的。|{who}换了一个新手机壳。|{who}的车送去保养了。|"
               "{who}在找新的爱好。|{who}说想回老家看看。|{who}给我推荐了一家餐厅。|{who}的宠物生病了。",
    "pronoun_fillers": "他说那边天气很冷。|她刚发来一张照片。|他最近在减肥。|她说周末要加班。|他问我借了一本书。",
    "who": ["我{rel}", "我{rel}{name}"],
    "prefix": "{month}月{day}日 {hh:02d}:{mm:02d} 在{place}：",   # a writer.stamp template
}

EN: Spec = {
    "relations": "uncle|aunt|colleague|boss|neighbour|roommate|classmate|friend",
    "names": "Tom|Anna|Mark|Lucy|Peter|Grace|David|Emma|Jack|Olivia|Sam|Chloe|Ben|Nora|Leo|Ruth|Adam|Iris|"
             "Owen|Maya|Hugo|Ella|Ivan|Lena|Noah|Zoe|Felix|Mia|Oscar|Ada|Rex|Tess|Gus|Vera|Neil|Joy|Abe|"
             "Kim|Roy|Bea",
    "places": "the office|home|the subway|a cafe|the gym|the supermarket|the park|the hospital|school|"
              "a restaurant|a taxi|the station",
    "facts": [
        _f("head chef|high-school teacher|taxi driver|software engineer|nurse|accountant|lawyer|"
           "firefighter|pharmacist|photographer|architect|courier",
           "{who} is a {v}.|{who} works as a {v} now.|{who} has been a {v} for ten years.",
           "What does {who} do for a living?|What is {who}'s job?"),
        _f("Harbin|Chengdu|Leeds|Porto|Osaka|Denver|Krakow|Dublin|Adelaide|Quebec",
           "{who} comes from {v}.|{who} grew up in {v}.",
           "Where is {who} from?|Which city does {who} come from?"),
        _f("fishing|playing go|running marathons|playing the guitar|growing succulents|badminton|"
           "photography|hiking|pottery|calligraphy",
           "{who} loves {v}.|{who} spends every free hour on {v}.",
           "What is {who}'s hobby?|What does {who} like doing?"),
        _f("a BYD Han|a Tesla Model 3|a VW Passat|a Toyota Camry|a Nio ES6|a Ford Fiesta",
           "{who} drives {v}.|{who} just bought {v}.",
           "What car does {who} drive?|Which car does {who} have?"),
        _f("ginger cat|corgi|golden retriever|parrot|hamster|ragdoll cat|tortoise",
           "{who} has a {v}.|{who} keeps a {v} at home.",
           "What pet does {who} have?"),
        _f("hot pot|dumplings|roast duck|river-snail noodles|crayfish|sushi|pancakes",
           "{who} adores {v}.|{who} eats {v} every week.",
           "What food does {who} love?|What is {who}'s favourite food?"),
        _f("March 5|June 18|September 9|December 1|July 20|January 8",
           "{who}'s birthday is on {v}.",
           "When is {who}'s birthday?"),
        _f("a Huawei Mate 60|an iPhone 15|a Xiaomi 14|a Pixel 8|a Galaxy S24",
           "{who} uses {v}.|{who} swears by {v}.",
           "What phone does {who} use?"),
    ],
    "fillers": "Had lunch with {who} today.|{who} says there is a business trip next week.|"
               "{who} seems in a good mood lately.|Just called {who}.|{who} went to bed very late last night.|"
               "{who} asked me to help move some boxes.|{who} took the day off.|Talked with {who} for ages.|"
               "{who} says work is exhausting lately.|{who} asked me where to eat tonight.|"
               "{who} got a new phone case.|{who}'s car is in for service.|{who} is looking for a new hobby.|"
               "{who} wants to visit the city they come from.|{who} recommended a restaurant to me.|"
               "{who}'s pet is ill.",
    "pronoun_fillers": "He says it is freezing over there.|She just sent me a photo.|He is on a diet again.|"
                       "She has to work this weekend.|He borrowed a book from me.",
    "who": ["my {rel}", "my {rel} {name}"],
    "prefix": "{monthname} {day}, {hh:02d}:{mm:02d}, at {place}: ",
}
LANGS: dict[str, Spec] = {"zh": ZH, "en": EN}


def generate_log(lang: str, seed: int, *, with_timestamps: bool = False,
                 threads: int = THREADS, questions: int = QUESTIONS) -> Conversation:
    """One history of ``threads`` interleaved threads and up to ``questions`` questions."""
    spec = LANGS[lang]
    rng = random.Random(f"{lang}-{seed}")
    relations = spec["relations"].split("|")
    names = spec["names"].split("|")
    places = spec["places"].split("|")
    facts: list[Fact] = spec["facts"]
    start = datetime(2024, rng.randint(1, 11), rng.randint(1, 20), 7, 0)
    span = timedelta(days=DAYS) - timedelta(hours=8)

    # Threads: a person each; relations repeat (several colleagues), names do not.
    people = []
    used_names = rng.sample(names, k=min(threads, len(names)))
    for t in range(threads):
        rel = rng.choice(relations)
        name = used_names[t % len(used_names)]
        people.append((rel, name))
    rel_count: dict[str, int] = {}
    for rel, _ in people:
        rel_count[rel] = rel_count.get(rel, 0) + 1

    events: list[tuple[datetime, int, str, tuple[str, str, Fact] | None]] = []
    question_pool: list[tuple[int, int, str, str]] = []  # (thread, event index, question, answer)
    for t, (rel, name) in enumerate(people):
        # Relations often repeat across threads; the person is named only sometimes, so
        # some questions match several people of the same kind (as in real logs).
        named = rng.random() < 0.4
        who = spec["who"][1 if named else 0].format(rel=rel, name=name)
        kinds = rng.sample(range(len(facts)), k=rng.randint(2, 4))
        items: list[tuple[str, tuple[str, str, Fact] | None]] = []
        for k in kinds:
            fact = facts[k]
            v = rng.choice(fact.values)
            items.append((cap(rng.choice(fact.statements).format(who=who, v=v)), (who, v, fact)))
        for _ in range(rng.randint(8, 14)):
            if rng.random() < 0.25:
                items.append((rng.choice(spec["pronoun_fillers"].split("|")), None))
            else:
                items.append((cap(rng.choice(spec["fillers"].split("|")).format(who=who)), None))
        rng.shuffle(items)
        times = sorted(start + timedelta(seconds=rng.uniform(0, span.total_seconds())) for _ in items)
        for when, (text, fact_of) in zip(times, items):
            # Keep every turn inside waking hours: push night times to the next morning.
            if when.hour >= 23 or when.hour < 7:
                when = when.replace(hour=7 + when.hour % 7)
            events.append((when, t, text, fact_of))
    events.sort(key=lambda e: e[0])
    log = LogWriter("T{}")
    for i, (when, t, text, fact_of) in enumerate(events):
        log.add(stamp(spec["prefix"], when, place=rng.choice(places)) + text,
                timestamp=when.isoformat() if with_timestamps else None)
        if fact_of is not None:
            who, v, fact = fact_of
            question_pool.append((t, i, cap(rng.choice(fact.questions).format(who=who)), v))
    # One question per thread at most, asked at the end of the log.
    rng.shuffle(question_pool)
    asked: set[int] = set()
    out: list[Question] = []
    for t, i, q, v in question_pool:
        if t in asked:
            continue
        asked.add(t)
        out.append(question(q, [f"T{i}"], v, 0))
        if len(out) >= questions:
            break
    return log.conversation(out)

