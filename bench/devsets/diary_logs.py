"""zh-diary: Chinese personal-fact diary logs, a final unseen check of build_context's selection.

Written from the issue's description only, without reading the selection code (context/) or the other
generators in this directory. Every template, name and value below is our own (CC0).

One history is one user's short statements, about 40 unrelated threads interleaved by time over 3-5
days, 580-880 turns (about 32-48k cl100k tokens), every turn role ``user`` and prefixed with its time,
district and place (``【2024年5月14日 周三 07:42 · 上海市杨浦区 · 家里厨房】我叔叔是厨师长。``). A thread is one
person or one of the user's own matters (a move, a course, a purchase, a trip, an exam...):

- 14-21 people known by a relation word alone (叔叔, 嫂子, 室友, 房东, 同事, 朋友...), often shared by
  two or three of them (three "我同事", two "我叔叔"): such a person is asked about only by a kind of
  fact no one else known by that word has;
- the rest told apart by how the user knows them (``健身房认识的朋友``, in two wordings), most of them
  also by a nickname introduced once (``坐我对面的同事叫刘洋，大家都喊他小刘。``) and used in half or
  more of their turns;
- now and then a relation is said in other words (``我老板`` for 领导, ``姥爷`` for 外公);
- a person has 3-6 facts of 17 kinds (job, employer, hometown, home, age, birthday, school, hobby, pet,
  car, phone, food, drink, singer, children, habit, trip plan), each said in one of several wordings
  (a third with a chatty second sentence), sometimes said again later in other words, sometimes
  changed (``小刘换车了，...``);
- most of a thread is chatter that mentions the person without any fact, plus turns that touch a fact's
  topic in a question's words but without its value (``叔叔问我做什么工作比较有前途。``); 6-9 people are
  talked about all the time; some turns mention two people, some nobody.

Plain BM25 packed greedily (bench.quality.bm25_baseline), seeds 1-8 and 21-28 (48 histories):
0.59 / 0.73 / 0.82 at 1k / 2k / 4k tokens, calibrated against the issue's held-out figures (0.607 /
0.727); the selection was never run while this generator was written.

Questions (``category``): ``single`` (one fact, asked in words of its own), ``alias`` (the question names
the person one way, the fact turn the other: evidence is the fact turn and the introduction),
``restated`` (evidence both wordings of a fact), ``update`` (evidence the change; ``superseded`` the
older statement), ``pair`` (two facts, of one person or of two: two evidence turns, answer
``v1；v2``), ``own`` (one of the user's own matters).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from .model import Conversation, DevSet, Question
from .writer import LogWriter, day_times, interleave, question, seeded_set, stamp

__all__ = ["CATEGORIES", "HISTORIES_PER_SEED", "diary_log_set", "generate_diary_log", "statement_of"]

HISTORIES_PER_SEED = 3
CATEGORIES = ("single", "alias", "restated", "update", "pair", "own")
MIN_TURNS, MAX_TURNS = 500, 900
_WEEKDAYS = "一二三四五六日"


def statement_of(content: str) -> str:
    """The statement part of a turn: what follows the 【time · place】 prefix."""
    return content.split("】", 1)[1]


# --------------------------------------------------------------------------------------------------
# Facts about people. {p}: how the person is referred to, {v}: the value, {o}: the older value (updates),
# {ta}: 他/她. A question template must not repeat the statement's wording of the value.

@dataclass(frozen=True)
class Kind:
    values: tuple[str, ...]
    says: tuple[str, ...]            # first statement
    again: tuple[str, ...]           # the same fact later, in other words
    asks: tuple[str, ...]            # questions
    near: tuple[str, ...]            # the topic without the value
    change: tuple[str, ...] = ()     # the fact changes ({o} -> {v})
    now_asks: tuple[str, ...] = ()   # questions about the current value
    both: tuple[str, ...] = ()       # one question about two people {a} and {b}


KINDS: dict[str, Kind] = {
    "job": Kind(
        values=("厨师长", "牙科医生", "中学物理老师", "出租车司机", "律师", "会计", "护士", "消防员", "建筑设计师",
                "程序员", "房产中介", "兽医", "摄影师", "外卖骑手", "银行柜员", "药剂师", "民航机长", "电工",
                "同声传译", "幼儿园老师", "心理咨询师", "快递站站长"),
        says=("{p}是{v}。", "{p}的工作是{v}，干了快十年了。", "{p}当{v}好几年了，挺辛苦的。",
              "说起来{p}是{v}，平时忙得脚不沾地。", "{p}一直在做{v}，{ta}说还挺喜欢这一行。"),
        again=("{p}今天又加班了，当{v}就是这样，节假日也难休息。", "{p}说做{v}这些年，最大的收获是耐心。",
               "{p}吐槽说{v}这活儿越来越不好干了。"),
        asks=("{p}是做什么工作的呢？", "{p}是干哪一行的？", "{p}的职业是什么来着？", "{p}靠什么吃饭的？"),
        near=("{p}说最近工作压力挺大，天天睡不好。", "{p}问我做什么工作比较有前途。", "{p}在考虑要不要换个工作。", "{p}说这一行越来越卷了。", "{p}说自己的职业病又犯了，腰疼。"),
        change=("{p}转行了，不当{o}了，现在是{v}。", "{p}辞掉了{o}的活儿，改行做{v}了。"),
        now_asks=("{p}现在是做什么工作的？", "{p}如今干的是哪一行？"),
        both=("{a}和{b}各自是做什么工作的？",),
    ),
    "employer": Kind(
        values=("华为", "腾讯", "中国银行", "协和医院", "顺丰", "海底捞", "比亚迪", "京东", "国家电网", "字节跳动",
                "招商银行", "美团", "中石化", "宜家", "网易", "海尔", "南方航空", "小米"),
        says=("{p}在{v}上班。", "{p}去年进了{v}，待遇还不错。", "{p}现在在{v}工作，离家挺远的。",
              "{p}是{v}的员工，已经待了三年多。"),
        again=("{p}说{v}今年效益不错，年终奖发得多。", "{p}给我看了{v}的工牌，照片拍得好丑。",
               "{p}说{v}的食堂比外面饭馆还好吃。"),
        asks=("{p}在哪家单位？", "{p}是哪个公司的？", "{p}供职于哪里？", "{p}的东家是谁？"),
        near=("{p}说公司最近在裁员，人心惶惶。", "{p}上班的地方离地铁站还要走二十分钟。", "{p}抱怨单位的打卡制度太严。", "{p}说公司哪家都差不多，都得加班。"),
        change=("{p}跳槽了，从{o}去了{v}。", "{p}离开{o}了，新东家是{v}。"),
        now_asks=("{p}现在在哪家公司？", "{p}跳槽后去了哪儿？"),
    ),
    "hometown": Kind(
        values=("黑龙江哈尔滨", "四川成都", "湖南长沙", "广东潮汕", "山东青岛", "云南大理", "江苏苏州", "陕西西安",
                "福建厦门", "内蒙古呼和浩特", "浙江温州", "河南洛阳", "新疆乌鲁木齐", "吉林延边", "贵州遵义",
                "广西桂林", "甘肃天水", "安徽黄山", "江西景德镇", "河北保定"),
        says=("{p}来自{v}。", "{p}老家在{v}。", "{p}是{v}人，口音一听就听出来了。", "{p}从小在{v}长大。"),
        again=("{p}给我带了些{v}的特产，味道很正宗。", "{p}说春节要回{v}，票还没抢到。",
               "{p}说{v}这个季节最舒服。"),
        asks=("{p}是哪里人？", "{p}的家乡在哪儿？", "{p}是从哪个地方来的？", "{p}祖籍是哪里的？"),
        near=("{p}说好久没回老家了，有点想家。", "{p}问我家乡有什么好吃的。", "{p}说过年不打算回家了。", "{p}问我是哪里人，我说猜猜看。"),
        both=("{a}和{b}老家分别在哪？", "{a}和{b}各是哪里人？"),
    ),
    "home": Kind(
        values=("朝阳区望京", "海淀区五道口", "浦东张江", "天河区珠江新城", "南山区科技园", "西湖区文三路",
                "武侯区玉林", "江北区观音桥", "鼓楼区湖南路", "雁塔区小寨", "通州区梨园", "闵行区莘庄", "宝安区西乡"),
        says=("{p}住在{v}。", "{p}家在{v}，离我这儿挺远。", "{p}在{v}租了套一居室。"),
        again=("{p}说{v}那边晚上很热闹。", "{p}邀请我周末去{v}找{ta}玩。"),
        asks=("{p}家住哪儿？", "{p}住在哪一片？", "{p}住的地方在哪个区？"),
        near=("{p}说住的地方隔音太差了。", "{p}在找房子，说房租太贵。", "{p}说住在哪儿都不如住得离公司近。"),
        change=("{p}搬家了，从{o}搬到了{v}。", "{p}不住{o}了，新家在{v}。"),
        now_asks=("{p}现在住在哪里？", "{p}搬家以后住哪儿了？"),
    ),
    "age": Kind(
        values=(),   # by relation: see _ages
        says=("{p}今年{v}了。", "{p}{v}，看着比实际年轻。", "{p}已经{v}了，真看不出来。"),
        again=("{p}感慨说自己都{v}了，得注意身体。", "{p}说{v}的人熬夜真熬不动了。"),
        asks=("{p}多大年纪了？", "{p}现在几岁？", "{p}今年多大？"),
        near=("{p}说年纪大了记性不好。", "{p}问我多大了，我没好意思说。", "{p}说到了这个年纪，头发都少了。"),
        both=("{a}和{b}分别多大？", "{a}和{b}各自几岁？"),
    ),
    "birthday": Kind(
        values=("1月9日", "2月14日", "3月21日", "4月3日", "5月28日", "6月16日", "7月7日", "8月30日", "9月12日",
                "10月25日", "11月11日", "12月24日", "3月5日", "8月8日"),
        says=("{p}的生日是{v}。", "{p}是{v}出生的，到时候得记得送礼物。", "{p}生日在{v}，我记在日历上了。"),
        again=("{v}那天是{p}生日，得提前订蛋糕。", "想想{v}给{p}送什么好，{ta}那天过生日。"),
        asks=("{p}哪天过生日？", "{p}是几月几号出生的？", "{p}的生辰是哪天？"),
        near=("{p}问我生日想要什么礼物。", "{p}说今年生日不想大办。", "{p}问我几月几号有空，想约个饭。"),
        both=("{a}和{b}的生日分别是哪天？",),
    ),
    "school": Kind(
        values=("浙江大学", "武汉大学", "北京师范大学", "中山大学", "哈尔滨工业大学", "四川大学", "厦门大学",
                "南开大学", "华中科技大学", "同济大学", "兰州大学", "中国传媒大学", "西南财经大学", "东北师范大学"),
        says=("{p}毕业于{v}。", "{p}是{v}毕业的。", "{p}当年考上了{v}，全家都高兴坏了。"),
        again=("{p}回{v}参加校庆去了。", "{p}说{v}的樱花开了，发了一堆照片。"),
        asks=("{p}在哪所学校读的书？", "{p}的母校是哪所？", "{p}大学上的哪一所？"),
        near=("{p}说读书那会儿天天逃课。", "{p}在群里发了好多学校的老照片。", "{p}说想回母校看看。", "{p}问我大学学的什么专业。"),
    ),
    "hobby": Kind(
        values=("钓鱼", "攀岩", "下围棋", "拍鸟", "弹吉他", "打羽毛球", "养多肉", "跑马拉松", "做陶艺", "玩剧本杀",
                "练书法", "滑雪", "骑行", "打台球", "潜水", "织毛衣"),
        says=("{p}特别喜欢{v}。", "{p}一到周末就去{v}。", "{p}最近迷上了{v}，天天研究。", "{p}的爱好是{v}。"),
        again=("{p}周末又去{v}了，乐此不疲。", "{p}说{v}能让人忘掉烦恼。"),
        asks=("{p}平时有什么爱好？", "{p}空闲时间喜欢干嘛？", "{p}业余时间都玩些什么？"),
        near=("{p}说最近太忙，空闲时间都没了。", "{p}问我平时周末都干嘛。", "{p}说想培养个爱好，还没想好。"),
        change=("{p}不怎么{o}了，现在改成{v}了。",),
        now_asks=("{p}最近的新爱好是什么？",),
        both=("{a}和{b}平时各有什么爱好？",),
    ),
    "pet": Kind(
        values=("柯基", "布偶猫", "金毛", "鹦鹉", "橘猫", "边牧", "乌龟", "仓鼠", "垂耳兔", "哈士奇", "英短蓝猫",
                "柴犬", "泰迪"),
        says=("{p}养了一只{v}。", "{p}家里有只{v}，宝贝得不得了。", "{p}前阵子领养了一只{v}。"),
        again=("{p}家那只{v}又把沙发咬坏了。", "{p}发来一段{v}的视频，太可爱了。"),
        asks=("{p}家里养了什么小动物？", "{p}有宠物吗？是什么？", "{p}家的毛孩子是什么品种？"),
        near=("{p}给我看了好多别人家的宠物视频。", "{p}说想再养一只，家里人不同意。", "{p}问我养什么小动物比较省心。"),
    ),
    "car": Kind(
        values=("比亚迪汉", "特斯拉Model 3", "丰田凯美瑞", "理想L7", "五菱宏光", "大众帕萨特", "小鹏P7", "本田思域",
                "宝马X3", "蔚来ET5", "奥迪A4L", "吉利星越", "问界M7", "马自达CX-5"),
        says=("{p}开的是{v}。", "{p}刚提了一辆{v}。", "{p}的车是{v}，开了三年了。"),
        again=("{p}那辆{v}又送去保养了。", "{p}开着{v}载我去了趟郊区。"),
        asks=("{p}开什么车？", "{p}的座驾是什么？", "{p}开的哪款车？"),
        near=("{p}说开车上班太堵了。", "{p}在考虑换车，还没拿定主意。", "{p}的驾照今年要换证了。", "{p}问我开什么车省油。"),
        change=("{p}换车了，把{o}卖了，新车是{v}。", "{p}不开{o}了，换了辆{v}。"),
        now_asks=("{p}现在开的是什么车？", "{p}换了什么新车？"),
        both=("{a}和{b}各开什么车？",),
    ),
    "phone": Kind(
        values=("华为Mate60", "iPhone 15", "小米14", "OPPO Find X7", "vivo X100", "荣耀Magic6", "三星Galaxy S24",
                "一加12", "红米K70", "iPhone 13 mini", "华为P70"),
        says=("{p}用的手机是{v}。", "{v}是{p}的心头好。", "{p}拿的是{v}，说拍照特别好。"),
        again=("{p}的{v}屏幕摔裂了，心疼坏了。", "{p}说{v}续航一天没问题。"),
        asks=("{p}用的是什么手机？", "{p}手机是什么牌子的？", "{p}平时用哪款机子？"),
        near=("{p}的手机又没电了，联系不上。", "{p}问我手机用着顺不顺手。", "{p}说手机该换了，不知道买什么牌子。"),
        change=("{p}换手机了，{o}给了{ta}妈，自己用上了{v}。",),
        now_asks=("{p}现在用什么手机？",),
    ),
    "food": Kind(
        values=("螺蛳粉", "北京烤鸭", "麻辣小龙虾", "兰州拉面", "酸菜鱼", "煲仔饭", "锅包肉", "肠粉", "羊肉泡馍",
                "重庆火锅", "生煎包", "潮汕牛肉火锅", "过桥米线", "烤冷面"),
        says=("{p}最爱吃{v}。", "{p}说{v}百吃不厌。", "{p}的最爱是{v}，一周能吃三回。"),
        again=("{p}又拉着我去吃{v}，这周第三次了。", "{p}说找到一家超正宗的{v}。"),
        asks=("{p}最喜欢吃什么？", "{p}口味上偏爱哪道菜？", "{p}嘴馋的时候想吃啥？"),
        near=("{p}说最近在减肥，晚饭都不吃了。", "{p}问我中午吃什么。", "{p}说喜欢吃的东西太多了，选不出来。"),
    ),
    "drink": Kind(
        values=("冰美式", "铁观音", "珍珠奶茶", "青岛啤酒", "椰汁", "普洱茶", "酸梅汤", "燕京啤酒", "茉莉花茶",
                "生椰拿铁", "二锅头"),
        says=("{p}最爱喝{v}。", "{p}每天都要来一杯{v}。", "{p}只喝{v}，别的都不爱。"),
        again=("{p}一天不喝{v}就浑身难受。", "给{p}带了杯{v}，{ta}高兴坏了。"),
        asks=("{p}平时喝什么？", "{p}喜欢哪种饮品？"),
        near=("{p}说最近要戒掉饮料。", "{p}请大家喝东西。", "{p}问我平时爱喝点什么。"),
    ),
    "singer": Kind(
        values=("周杰伦", "五月天", "陈奕迅", "邓紫棋", "毛不易", "李健", "孙燕姿", "林俊杰", "薛之谦", "王菲",
                "许嵩", "张学友", "蔡依林"),
        says=("{p}是{v}的铁粉。", "{p}最喜欢听{v}的歌。", "{p}手机里全是{v}的专辑。"),
        again=("{p}抢到了{v}演唱会的门票，激动得不行。", "{p}在车上循环播放{v}。"),
        asks=("{p}最爱听谁的歌？", "{p}追的是哪位歌手？", "{p}是哪个歌手的粉丝？"),
        near=("{p}说最近没什么好听的新歌。", "{p}问我听不听演唱会。", "{p}让我推荐几首歌听听。"),
    ),
    "kids": Kind(
        values=(),   # by relation: see _kids
        says=("{p}家有{v}。", "{p}有{v}，平时都是{ta}接送。", "{p}说家里{v}，每天忙得团团转。"),
        again=("{p}说家里{v}，周末根本出不了门。",),
        asks=("{p}有几个孩子？", "{p}家里孩子是什么情况？"),
        near=("{p}说带孩子比上班还累。", "{p}问我什么时候要孩子。", "{p}说孩子的事情一点都不省心。"),
    ),
    "habit": Kind(
        values=("每天早上五点起床跑步", "睡前一定要泡脚", "每天写日记", "从来不吃早饭", "每晚十点前睡觉",
                "饭后必须散步半小时", "每周六去爬山", "每天冥想二十分钟"),
        says=("{p}有个习惯，{v}。", "{p}雷打不动{v}。", "{p}坚持{v}好多年了。"),
        again=("{p}说{v}这个习惯让{ta}受益很多。",),
        asks=("{p}有什么生活习惯？", "{p}每天固定要做的事是什么？"),
        near=("{p}说作息太乱了想调整一下。", "{p}说想养成个好习惯。"),
    ),
    "trip": Kind(
        values=("去日本看樱花", "去新疆自驾", "去三亚潜水", "去西藏徒步", "去泰国过春节", "去冰岛看极光",
                "去敦煌看壁画", "去云南骑行", "去青海湖环湖"),
        says=("{p}打算{v}。", "{p}计划下个月{v}，攻略都做好了。", "{p}说今年一定要{v}。"),
        again=("{p}又在念叨{v}的事，机票都看好了。",),
        asks=("{p}准备去哪儿玩？", "{p}的出游计划是什么？", "{p}想去哪里旅行？"),
        near=("{p}说好想出去旅游散散心。", "{p}问我有没有推荐的旅游地方。", "{p}说今年哪儿都没去成。"),
    ),
}
KIND_NAMES = tuple(KINDS)

# --------------------------------------------------------------------------------------------------
# People.

SURNAMES = ("刘", "王", "陈", "张", "李", "赵", "周", "吴", "孙", "郑", "黄", "何", "林", "徐", "马", "高", "罗",
            "梁", "宋", "唐", "许", "韩", "冯", "邓", "曹", "彭", "曾", "田", "董", "袁", "潘", "蒋", "杜", "沈")
GIVEN = {"m": ("洋", "伟", "杰", "磊", "涛", "浩", "鹏", "强", "斌", "峰", "宇", "军", "凯", "波"),
         "f": ("静", "丽", "敏", "婷", "娜", "芳", "雪", "琳", "颖", "倩", "佳", "璐", "欣", "蕾")}

# Relations several people share, each with ways the user knows them (variants of one phrase).
SHARED: dict[str, tuple[tuple[str, ...], ...]] = {
    "同事": (("坐我对面的同事", "对面工位的同事"), ("隔壁组的同事", "隔壁组那个同事"), ("新来的同事", "刚入职的那个同事"),
           ("财务部的同事", "财务部那位同事"), ("一起出差过的同事", "上次一起出差的同事"),
           ("带我入职的同事", "带过我的那个老同事")),
    "朋友": (("健身房认识的朋友", "健身房的那个朋友"), ("打羽毛球认识的朋友", "羽毛球球友"), ("高中最好的朋友", "高中那个铁哥们"),
           ("驴友群里认识的朋友", "驴友群那个朋友"), ("读书会认识的朋友", "读书会那个朋友"), ("以前合租的朋友", "前合租室友")),
    "同学": (("大学同学", "大学同寝室的同学"), ("高中同学", "高中同桌"), ("初中同学", "初中那个同学"), ("研究生同学", "读研时的同学")),
    "邻居": (("楼上的邻居", "楼上那家邻居"), ("对门的邻居", "对门那家"), ("隔壁单元的邻居", "隔壁单元那位")),
    "领导": (("现在的领导", "我们部门领导"), ("以前公司的领导", "老东家的领导")),
    "客户": (("广州的客户", "广州那个客户"), ("做外贸的客户", "那个外贸客户"), ("合作最久的客户", "老客户")),
}
SHARED_WEIGHTS = {"同事": 5, "朋友": 5, "同学": 3, "邻居": 2, "领导": 2, "客户": 2}
# Relation words several people are known by and nothing else (the user just says "我同事").
BARE_WEIGHTS = {"同事": 4, "朋友": 4, "同学": 2, "邻居": 2, "领导": 2, "叔叔": 2, "表哥": 2, "舅舅": 1, "客户": 1}
# Other words people use for the same relation (a question asks with the usual one).
SYNONYMS = {"叔叔": ("我叔", "我爸的弟弟"), "舅舅": ("我老舅", "我妈的弟弟"), "姑姑": ("我姑妈", "我爸的妹妹"),
            "小姨": ("我姨妈", "我妈的妹妹"), "外公": ("我姥爷", "姥爷"), "奶奶": ("我奶", "老太太"),
            "姐夫": ("我姐的老公", "我姐家那位"), "嫂子": ("我哥的媳妇", "嫂嫂"), "表姐": ("我姨家的姐姐",),
            "表哥": ("我表兄", "姑妈家的哥哥"), "堂弟": ("我叔家的弟弟",), "表妹": ("我姨家的妹妹",),
            "干妈": ("我干娘",), "发小": ("从小一起长大的哥们",), "领导": ("我老板", "老板", "我上司"),
            "同事": ("公司里一个同组的", "一起共事的人"), "朋友": ("我一哥们", "我闺蜜"), "邻居": ("隔壁那家", "住隔壁的"),
            "同学": ("老同学",), "室友": ("跟我合租的", "合租的那位"), "健身教练": ("我的私教", "私教"),
            "合伙人": ("一起开店的搭档", "我搭档"), "客户": ("甲方", "甲方那边的人"), "师傅": ("带我的老师傅",)}
GENDER = {"叔叔": "m", "表哥": "m", "舅舅": "m"}
# One-of-a-kind relations: (relation, gender).
SINGLE = (("叔叔", "m"), ("舅舅", "m"), ("姑姑", "f"), ("小姨", "f"), ("表姐", "f"), ("堂弟", "m"), ("表妹", "f"),
          ("姐夫", "m"), ("嫂子", "f"), ("外公", "m"), ("奶奶", "f"), ("干妈", "f"), ("室友", "m"), ("房东", "f"),
          ("健身教练", "m"), ("发小", "m"), ("师傅", "m"), ("合伙人", "f"), ("表哥", "m"), ("舅妈", "f"))


@dataclass
class Person:
    rel: str
    gender: str
    qual: tuple[str, ...] = ()   # variants of "how the user knows them" (shared relations)
    full: str = ""               # full name, if introduced
    nick: str = ""               # nickname, if named

    @property
    def ta(self) -> str:
        return "他" if self.gender == "m" else "她"

    def named_forms(self) -> list[str]:
        """Ways of naming the person that carry the nickname (empty if unnamed or one of a kind)."""
        if not self.nick:
            return []
        return [self.nick, f"{self.rel}{self.nick}", f"我{self.rel}{self.nick}"]

    def plain_forms(self) -> list[str]:
        """Ways that carry the relation and how the user knows them, but no name."""
        if self.qual:
            return list(self.qual)
        return [f"我{self.rel}", self.rel]

    def ask_form(self, rng: random.Random, named: bool) -> str:
        if named and self.nick:
            return rng.choice([f"我{self.rel}{self.nick}", self.nick, f"{self.rel}{self.nick}"])
        if not self.qual:
            return f"我{self.rel}"
        q = self.qual[0]
        return "我" + q if "我" not in q and rng.random() < 0.3 else q


# --------------------------------------------------------------------------------------------------
# The user's own matters: facts whose questions carry the matter's own words.

@dataclass(frozen=True)
class MatterFact:
    values: tuple[str, ...]
    says: tuple[str, ...]
    asks: tuple[str, ...]


@dataclass(frozen=True)
class Matter:
    facts: dict[str, MatterFact]
    chatter: tuple[str, ...]
    near: tuple[str, ...]


MATTERS: dict[str, Matter] = {
    "move": Matter(
        facts={
            "where": MatterFact(("龙华区民治", "昌平区回龙观", "松江区九亭", "余杭区未来科技城", "番禺区大石"),
                                ("我终于定了新家，在{v}。", "新家选在{v}，通勤要一个小时。"),
                                ("我的新家在哪一片？", "我搬家搬到哪儿去了？")),
            "date": MatterFact(("6月8日", "7月20日", "9月1日", "10月12日"),
                               ("搬家公司约好了，{v}上门。", "定了{v}搬家，到时候请两天假。"),
                               ("我哪天搬家？", "搬家的日子定在几号？")),
            "rent": MatterFact(("月租4800元", "月租3600元", "月租5200元", "月租2900元"),
                               ("新家{v}，押一付三。", "跟房东谈好了，新家{v}，水电另算。"),
                               ("我新家的房租是多少？", "新家每个月要交多少钱？")),
        },
        chatter=("打包打到半夜，东西怎么这么多。", "搬家的纸箱还没买齐。", "旧家具不知道怎么处理，挂闲鱼上了。",
                 "看了一天房，腿都走断了。", "中介又打电话来推房子。", "新家的窗帘还没选好。", "新家楼下有个菜市场，挺方便。",
                 "新家的网还没装好，用手机热点凑合。", "搬家前得把旧房子打扫干净，押金才能退。", "给新家买了一盆绿萝。"),
        near=("房租又要涨了，真头疼。", "搬家真是太折腾人了，再也不想搬了。", "朋友问我新家在哪，我说改天请他来玩。",
              "哪天有空得去新家量一下尺寸。"),
    ),
    "course": Matter(
        facts={
            "subject": MatterFact(("日语", "油画", "游泳", "钢琴", "Python编程", "普拉提", "粤语"),
                                  ("我报了个{v}班，想给自己充充电。", "下定决心报班学{v}了，学费已经交了。"),
                                  ("我报的是什么班？", "我最近报班学的是什么？")),
            "when": MatterFact(("每周三晚上", "每周六上午", "每周二和周四晚上", "每周日下午"),
                               ("{s}课排在{v}，不能再约别的事了。", "{s}班上课时间是{v}，一次两小时。"),
                               ("我的{s}课是什么时候上？", "我学{s}一般安排在哪天？")),
            "teacher": MatterFact(("秦老师", "殷老师", "骆老师", "钟老师"),
                                  ("教我们{s}的是{v}，讲得特别细。", "这期{s}班的任课老师是{v}，人很和气。"),
                                  ("我{s}班的老师是谁？", "谁在教我{s}？")),
        },
        chatter=("今天的{s}课又拖堂了。", "{s}课后作业有点难，写到十一点。", "{s}班上有个同学特别用功。",
                 "{s}课迟到了五分钟，好尴尬。", "学{s}比想象的难多了。", "把{s}课的笔记整理了一遍。"),
        near=("想学点新东西，还没想好学什么。", "培训班的广告发到我手机上了。", "同事问我报的班什么时候上课。",
              "报班的钱花得有点心疼。"),
    ),
    "purchase": Matter(
        facts={
            "item": MatterFact(("扫地机器人", "投影仪", "按摩椅", "空气净化器", "洗碗机"),
                               ("下单了一台{v}，期待到货。", "咬咬牙下单买了{v}，希望别吃灰。"),
                               ("我最近下单买了个什么电器？", "我前几天网购下单的大件是什么？")),
            "price": MatterFact(("3999元", "2899元", "6499元", "1799元"),
                                ("那台{s}花了{v}，赶上了满减。", "{s}付款{v}，比线下便宜不少。"),
                                ("我买{s}花了多少钱？", "我那台{s}的价格是多少？")),
            "shop": MatterFact(("京东自营", "拼多多百亿补贴", "天猫旗舰店", "苏宁门店"),
                               ("{s}是在{v}下的单，说是后天送到。", "{s}最后选了{v}，售后有保障。"),
                               ("我的{s}是在哪个平台买的？", "我从哪里买的{s}？")),
        },
        chatter=("{s}的快递显示已经到本市了。", "{s}的安装师傅约了明天下午。", "{s}说明书看了半天没看懂。",
                 "用了几天{s}，感觉还行。", "{s}的包装箱太大了，楼道都放不下。"),
        near=("家电降价了，有点后悔买早了。", "朋友问我那东西好不好用。", "同事问我买的东西花了多少钱。",
              "在哪个平台买家电最便宜，每次都要比半天。"),
    ),
    "trip": Matter(
        facts={
            "dest": MatterFact(("桂林阳朔", "青岛崂山", "成都都江堰", "西安兵马俑", "厦门鼓浪屿"),
                               ("假期打算去{v}旅游几天。", "订好了去{v}的旅游行程，超期待。"),
                               ("我假期去哪旅游？", "我这次旅游的目的地是哪儿？")),
            "leave": MatterFact(("5月1日", "10月2日", "8月15日", "12月30日"),
                                ("去{s}的机票买好了，{v}出发。", "{v}那天一早出发去{s}，得五点起。"),
                                ("我哪天出发去{s}？", "我去{s}是几号走？")),
            "hotel": MatterFact(("全季酒店", "亚朵酒店", "一家江景民宿", "如家"),
                                ("{s}住的地方订了{v}，离景点近。", "在{s}订了{v}，评价还不错。"),
                                ("我在{s}住哪儿？", "我去{s}订的住处是哪家？")),
        },
        chatter=("去{s}的行李箱还没收拾。", "查了一下{s}的天气，可能会下雨。", "在小红书上看了一晚上{s}的攻略。",
                 "跟领导请好假了，可以安心去{s}了。"),
        near=("好想出去旅游啊，上班上得好累。", "同事问我假期有什么安排。", "朋友问我旅游住哪儿比较好。"),
    ),
    "dentist": Matter(
        facts={
            "when": MatterFact(("下周四下午三点", "周六上午十点", "下周一早上九点"),
                               ("牙疼得厉害，约了{v}看牙。", "看牙预约在{v}，千万别忘了。"),
                               ("我看牙约在什么时候？", "我看牙是几点的号？")),
            "clinic": MatterFact(("瑞尔齿科", "市口腔医院", "拜博口腔"),
                                 ("看牙约的是{v}，朋友推荐的。", "去{v}看牙，离公司近。"),
                                 ("我去哪家医院看牙？", "我看牙挂的是哪家？")),
        },
        chatter=("左边的大牙又隐隐作痛。", "喝冷水牙酸得不行。", "看牙前得先拍个片子。"),
        near=("听说洗牙其实对牙齿挺好的。", "同事说看牙去哪家医院都差不多贵。"),
    ),
    "project": Matter(
        facts={
            "name": MatterFact(("星河计划", "蓝鲸项目", "灯塔二期"),
                               ("我被拉进了{v}，接下来有得忙了。", "领导让我负责{v}的对接，又多一个项目。"),
                               ("我被拉进的那个项目叫什么？", "领导让我对接的项目是哪个？")),
            "due": MatterFact(("6月30日", "月底", "下周五"),
                              ("{s}的交付日期是{v}，时间很紧。", "甲方要求{s}在{v}之前上线。"),
                              ("{s}什么时候要交付？", "{s}最晚哪天上线？")),
        },
        chatter=("{s}今天开了四个会，什么活都没干。", "{s}的需求又改了，白干一天。", "为了{s}晚上九点才下班。",
                 "{s}的周报写完了。"),
        near=("最近手上的活太多了，忙不过来。", "领导问我项目什么时候能交。"),
    ),
    "exam": Matter(
        facts={
            "which": MatterFact(("雅思", "注册会计师", "法律职业资格", "驾照科目二"),
                                ("我报名了{v}考试，得开始复习了。", "决定今年考{v}，给自己一点压力。"),
                                ("我报名的是什么考试？", "我今年要考的是哪个？")),
            "date": MatterFact(("8月24日", "9月7日", "11月2日"),
                               ("{s}考试定在{v}，还有不到三个月。", "准考证上写的{s}考试是{v}。"),
                               ("我的{s}考试是哪天？", "{s}几号考？")),
        },
        chatter=("今天刷了两套{s}的题，错了一大半。", "{s}的复习资料买了一堆，还没拆封。", "{s}的网课听得我直犯困。"),
        near=("一想到考试就焦虑。", "同事问我考试哪天，我说还早。"),
    ),
}

# --------------------------------------------------------------------------------------------------
# Chatter.

ABOUT = ("今天跟{p}吃了顿午饭。", "{p}给我发了一堆表情包。", "{p}问我周末有没有空。", "和{p}聊了快一个小时。",
         "{p}最近心情不太好，我安慰了{ta}几句。", "{p}说下次请我喝咖啡。", "{p}帮我带了份早餐，人真好。",
         "在楼下碰见{p}了。{ta}看着气色不错。", "{p}朋友圈发了张自拍，P得有点过。", "{p}借了我一本书，还没看完。",
         "{p}又迟到了，大家都习惯了。", "给{p}打了个电话，没人接。", "{p}今天请假了，不知道怎么了。",
         "{p}推荐了一部电视剧给我。", "{p}说话还是那么直。", "跟{p}约了下周一起吃饭。",
         "{p}发消息问我最近怎么样。我说还行吧。", "{p}今天穿了件新外套，挺好看的。", "想起来还欠{p}一顿饭。",
         "{p}在群里发了个红包，我抢了两块钱。", "{p}说最近有点感冒。", "{p}和我吐槽了半天生活琐事。",
         "跟{p}视频了一会儿，{ta}那边信号不好。", "{p}帮我修好了电脑。", "{p}说想换个发型。",
         "{p}今天特别开心，也不知道遇到什么好事了。", "陪{p}逛了一下午，脚都走酸了。", "{p}转发了一篇文章给我。",
         "{p}跟我借了五百块，说月底还。", "好久没见{p}了，有点想{ta}。", "{p}送了我一盒月饼。",
         "{p}今天话特别少。", "{p}在朋友圈晒娃。", "{p}邀请我去参加聚会，我还没答应。",
         "{p}问我晚上吃什么。", "不知道{p}最近在忙什么。", "{p}问我哪天有空出来坐坐。", "{p}说这周末哪儿也不去了。",
         "{p}又在群里问大家有什么好玩的。", "{p}给我推荐了一家店，说是什么网红店。", "{p}说最近睡得不好。",
         "{p}找我帮个忙，我答应了。", "跟{p}说了我最近的烦心事。", "{p}今天居然早早就睡了。",
         "{p}的语音消息太长了，我懒得听。", "{p}约我下班一起走。", "{p}今天看起来有点累。")
TOGETHER = ("今天约了{a}和{b}一起吃火锅。", "{a}和{b}居然认识，世界真小。", "{a}跟{b}在群里吵起来了，我夹在中间好尴尬。",
            "周末和{a}、{b}去爬了山。", "{a}托我给{b}带个东西。", "{a}说{b}最近有点奇怪。", "{a}和{b}都给我点赞了。",
            "在商场碰到{a}，{ta}正和{b}一起逛街。".replace("{ta}", "他们"), "{a}问我{b}的微信号。",
            "把{a}介绍给{b}认识了，他们聊得挺投机。", "{a}和{b}都说下周要请我吃饭。", "{a}在{b}那儿喝多了。")
TAILS = ("我还挺意外的。", "之前一直不知道。", "{ta}自己挺满意的。", "这是{ta}昨天跟我说的。", "听着挺不错。",
         "难怪呢。", "我得记下来。", "说完{ta}自己先笑了。")
GENERIC = ("今天又下雨了，出门忘带伞。", "中午不知道吃什么好，纠结了半天。", "地铁上人挤人，差点没下去车。",
           "晚上看了一部电影，还挺感人的。", "今天步数一万二，达标了。", "同事们都在讨论年终奖。",
           "楼下新开了一家面包店。", "手机内存又满了，得清理一下。", "今天起晚了，早饭都没吃。",
           "把衣柜整理了一遍，扔了好多旧衣服。", "最近失眠，一点多才睡着。", "周末什么都不想干，躺了一天。",
           "外卖超时了四十分钟。", "天气转凉了，该换厚被子了。", "今天心情不错，阳光很好。",
           "买了束花放在桌上。", "冰箱里的菜快放坏了。", "朋友圈里大家都在晒旅游照片。",
           "下班路上堵了一个小时。", "给爸妈打了个电话，家里一切都好。", "又胖了两斤，得控制饮食了。",
           "今天的工作效率特别低。", "小区里的桂花开了，好香。", "洗衣机有点漏水，得找人修。",
           "晚上煮了碗面，凑合吃了。", "今天发工资了，开心。", "邻居家装修，吵了一上午。",
           "领导今天开会讲了两个小时。", "跟朋友们约了周末爬山，不知道能不能成行。", "客户临时改了需求，烦。")

AREAS = ("上海市徐汇区", "上海市静安区", "上海市杨浦区", "上海市长宁区", "上海市普陀区", "上海市虹口区", "上海市黄浦区",
         "上海市宝山区")
HOME_PLACES = ("家里卧室", "家里厨房", "家里客厅", "阳台", "家里沙发上", "小区门口早餐店", "小区花园")
WORK_PLACES = ("公司工位", "会议室", "公司食堂", "公司楼下便利店", "茶水间")
PLACES = {
    "morning": ("家里卧室", "家里厨房", "地铁4号线上", "公交车上", "小区门口早餐店", "出租车上"),
    "work": ("公司工位", "会议室", "公司食堂", "公司楼下便利店", "茶水间", "客户公司"),
    "evening": ("家里客厅", "健身房", "小区花园", "超市", "家附近的面馆", "阳台", "地铁上"),
    "weekend": ("商场", "公园", "父母家", "咖啡馆", "电影院", "菜市场", "图书馆", "家里沙发上"),
}


# --------------------------------------------------------------------------------------------------
# Building a history.

@dataclass
class _Line:
    text: str                       # statement without prefix
    key: str = ""                   # a fact's key, e.g. "p3.job", "p3.job.again", "p3.intro"


@dataclass
class _Thread:
    lines: list[_Line] = field(default_factory=list)


class _Values:
    """Draws values of one kind without repeats within a history (cycling if a list runs out)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.left: dict[str, list[str]] = {}

    def draw(self, kind: str, pool: tuple[str, ...]) -> str:
        if not self.left.get(kind):
            self.left[kind] = list(pool)
            self.rng.shuffle(self.left[kind])
        return self.left[kind].pop()


def _people(rng: random.Random, n: int) -> list[Person]:
    """One-of-a-kind relatives and acquaintances, several people known only by a relation word others share
    too ("我同事", "我叔叔" for two or three different people), and people told apart by how the user knows
    them and often by a nickname."""
    people: list[Person] = []
    singles = list(SINGLE)
    rng.shuffle(singles)
    for rel, g in singles[:rng.randint(5, 8)]:
        people.append(Person(rel, g))
    rels = sorted(BARE_WEIGHTS)
    for _ in range(rng.randint(9, 13)):
        rel = rng.choices(rels, weights=[BARE_WEIGHTS[r] for r in rels])[0]
        people.append(Person(rel, GENDER.get(rel) or rng.choice("mf")))
    shared_left = {rel: list(quals) for rel, quals in SHARED.items()}
    for quals in shared_left.values():
        rng.shuffle(quals)
    used_names: set[str] = set()
    rels = sorted(SHARED_WEIGHTS)
    while len(people) < n:
        rel = rng.choices(rels, weights=[SHARED_WEIGHTS[r] for r in rels])[0]
        if not shared_left[rel]:
            continue
        qual = shared_left[rel].pop()
        g = rng.choice("mf")
        p = Person(rel, g, qual=qual)
        if rng.random() < 0.7:  # named: full name and nickname, unique in the history
            while True:
                s, given = rng.choice(SURNAMES), rng.choice(GIVEN[g])
                nick = rng.choice((f"小{s}", f"老{s}", f"{s}{'哥' if g == 'm' else '姐'}", f"阿{given}"))
                if s + given not in used_names and nick not in used_names:
                    break
            used_names.update((s + given, nick))
            p.full, p.nick = s + given, nick
        people.append(p)
    rng.shuffle(people)
    return people


def _askable(people: list[Person], facts: dict[str, dict[str, object]]) -> set[str]:
    """Fact keys a question can ask about with one answer: a person known only by a relation word is asked
    only about a kind of fact no one else known by that word has."""
    holders: dict[tuple[str, str], int] = {}
    for info in facts.values():
        p = info["person"]
        assert isinstance(p, Person)
        if not p.qual:
            holders[(p.rel, str(info["kind"]))] = holders.get((p.rel, str(info["kind"])), 0) + 1
    out = set()
    for key, info in facts.items():
        p = info["person"]
        assert isinstance(p, Person)
        if p.qual or holders[(p.rel, str(info["kind"]))] == 1:
            out.add(key)
    return out


ELDERS = ("外公", "奶奶")
SENIORS = ("叔叔", "舅舅", "姑姑", "小姨", "干妈", "房东", "师傅", "领导", "客户")


def _ages(person: Person) -> tuple[str, ...]:
    """Ages that fit the relation."""
    if person.rel in ELDERS:
        return ("68岁", "71岁", "74岁", "77岁", "80岁", "83岁")
    if person.rel in SENIORS:
        return ("39岁", "42岁", "45岁", "47岁", "50岁", "53岁", "56岁", "59岁")
    return ("22岁", "24岁", "26岁", "27岁", "29岁", "30岁", "32岁", "34岁", "36岁")


def _kids(person: Person) -> tuple[str, ...]:
    """Children that fit the relation's generation."""
    if person.rel in ELDERS:
        return ("三个孩子", "两儿一女", "一儿一女")
    if person.rel in SENIORS:
        return ("一个上初中的儿子", "一个读大学的女儿", "一儿一女", "两个女儿", "一对双胞胎儿子")
    return ("一个刚满月的女儿", "一对双胞胎儿子", "一儿一女", "两个女儿", "一个上幼儿园的儿子")


def _fill(template: str, p: str, ta: str, v: str = "", o: str = "") -> str:
    return template.format(p=p, ta=ta, v=v, o=o)


def _subject(rng: random.Random, person: Person, named_share: float) -> tuple[str, bool]:
    """How one statement refers to the person; True if by name."""
    if person.nick and rng.random() < named_share:
        return rng.choice(person.named_forms()), True
    if not person.qual and person.rel in SYNONYMS and rng.random() < 0.22:   # "我老板" for "我领导"
        return rng.choice(SYNONYMS[person.rel]), False
    return rng.choice(person.plain_forms()), False


def _person_thread(rng: random.Random, idx: int, person: Person, values: _Values,
                   facts_out: dict[str, dict[str, object]], heavy: bool) -> _Thread:
    """One person's thread in order: introduction, facts (some restated, some changed), chatter, near misses.
    A ``heavy`` person (a close friend, the boss) comes up all the time."""
    th = _Thread()
    pid = f"p{idx}"
    ta = person.ta
    if person.nick:
        intro = rng.choice(("{q}叫{f}，大家都喊{ta}{n}。", "{q}就是{f}，我平时叫{ta}{n}。",
                            "说起{q}，{ta}叫{f}，熟了以后都喊{n}。"))
        th.lines.append(_Line(intro.format(q=person.qual[0], f=person.full, ta=ta, n=person.nick), f"{pid}.intro"))
    kinds = rng.sample(KIND_NAMES, rng.randint(3, 6))
    body: list[_Line] = []
    later: list[_Line] = []
    for kind in kinds:
        spec = KINDS[kind]
        pool = _ages(person) if kind == "age" else _kids(person) if kind == "kids" else spec.values
        v = values.draw(f"{kind}:{pool[0]}", pool)
        subj, named = _subject(rng, person, 0.65)
        key = f"{pid}.{kind}"
        said = _fill(rng.choice(spec.says), subj, ta, v)
        if rng.random() < 0.35 and said.count("。") == 1:
            said += _fill(rng.choice(TAILS), subj, ta)
        body.append(_Line(said, key))
        info: dict[str, object] = {"person": person, "kind": kind, "value": v, "named": named}
        r = rng.random()
        if spec.change and r < 0.3:
            nv = values.draw(f"{kind}:{pool[0]}", pool)
            s2, _ = _subject(rng, person, 0.65)
            later.append(_Line(_fill(rng.choice(spec.change), s2, ta, nv, v), key + ".change"))
            info.update(new=nv)
        elif r < 0.55:
            s2, _ = _subject(rng, person, 0.5)
            later.append(_Line(_fill(rng.choice(spec.again), s2, ta, v), key + ".again"))
            info.update(again=True)
        for _ in range(rng.choice((1, 2, 3) if heavy else (0, 1, 1, 2, 2))):
            s3, _ = _subject(rng, person, 0.5)
            later.append(_Line(_fill(rng.choice(spec.near), s3, ta)))
        facts_out[key] = info
    # A few near misses about kinds the person has no fact of.
    for kind in rng.sample([k for k in KIND_NAMES if k not in kinds], rng.randint(0, 2)):
        s3, _ = _subject(rng, person, 0.5)
        later.append(_Line(_fill(rng.choice(KINDS[kind].near), s3, ta)))
    n_chat = rng.randint(20, 34) if heavy else rng.randint(2, 7)
    chatter = [_Line(_fill(t, _subject(rng, person, 0.5)[0], ta)) for t in rng.choices(ABOUT, k=n_chat)]
    # Facts come early-ish; chatter is spread over the whole thread; changes and restatements come after.
    rng.shuffle(later)
    first = body + chatter[: len(chatter) // 2]
    rng.shuffle(first)
    rest = later + chatter[len(chatter) // 2:]
    rng.shuffle(rest)
    # keep each change/restatement after its first statement
    th.lines += _after_firsts(first + rest)
    return th


def _together(rng: random.Random, people: list[Person], heavy: set[int]) -> list[_Line]:
    """Turns about two people at once (close people more often)."""
    weights = [4 if i in heavy else 1 for i in range(len(people))]
    out = []
    for _ in range(rng.randint(40, 70)):
        a, b = rng.choices(range(len(people)), weights=weights, k=2)
        if a == b:
            continue
        pa, _ = _subject(rng, people[a], 0.5)
        pb, _ = _subject(rng, people[b], 0.5)
        out.append(_Line(rng.choice(TOGETHER).format(a=pa, b=pb.removeprefix("我"))))
    return out


def _after_firsts(lines: list[_Line]) -> list[_Line]:
    """Move any '.change' / '.again' line that precedes its first statement to just after it."""
    out: list[_Line] = []
    pending: dict[str, list[_Line]] = {}
    seen: set[str] = set()
    for ln in lines:
        base = ln.key.rsplit(".", 1)[0] if ln.key.endswith((".change", ".again")) else ""
        if base and base not in seen:
            pending.setdefault(base, []).append(ln)
            continue
        out.append(ln)
        if ln.key:
            seen.add(ln.key)
            out += pending.pop(ln.key, [])
    return out


def _matter_thread(rng: random.Random, name: str, values: _Values) -> tuple[_Thread, dict[str, str]]:
    m = MATTERS[name]
    th = _Thread()
    got: dict[str, str] = {}
    facts = []
    for fk, f in m.facts.items():
        v = values.draw(f"{name}.{fk}", f.values)
        got[fk] = v
        subject = got[next(iter(m.facts))]   # the matter's first fact names it ("日语", "投影仪")
        facts.append(_Line(rng.choice(f.says).format(v=v, s=subject), f"u.{name}.{fk}"))
    subject = got[next(iter(m.facts))]
    chatter = [_Line(t.format(s=subject)) for t in rng.sample(m.chatter, min(len(m.chatter), rng.randint(3, 6)))]
    chatter += [_Line(t) for t in rng.sample(m.near, min(len(m.near), rng.randint(1, 3)))]
    lines = facts + chatter
    rng.shuffle(lines)
    th.lines = lines
    return th, got


def _trim(rng: random.Random, threads: list[_Thread], most: int) -> None:
    """Drop chatter (lines without a key) at random until the threads hold at most ``most`` lines."""
    spare = [(i, j) for i, t in enumerate(threads) for j, ln in enumerate(t.lines) if not ln.key]
    excess = sum(len(t.lines) for t in threads) - most
    if excess <= 0:
        return
    drop = set(rng.sample(spare, min(excess, len(spare))))
    for i, t in enumerate(threads):
        t.lines = [ln for j, ln in enumerate(t.lines) if (i, j) not in drop]


def _times(rng: random.Random, n: int) -> list[datetime]:
    days = rng.randint(3, 5)
    start = datetime(2024, rng.randint(3, 11), rng.randint(1, 25))
    return day_times(n, start, days, lambda k: [rng.randint(6 * 60 + 30, 23 * 60 + 50) for _ in range(k)])


def _place(rng: random.Random, t: datetime) -> str:
    if t.weekday() >= 5 and 9 <= t.hour < 20:
        slot = "weekend"
    elif t.hour < 9:
        slot = "morning"
    elif t.hour < 18:
        slot = "work"
    else:
        slot = "evening"
    return rng.choice(PLACES[slot])


_PREFIX = "【{year}年{month}月{day}日 周{weekday} {hh:02d}:{mm:02d} · {area} · {place}】"   # a writer.stamp template


def _interleave(rng: random.Random, threads: list[_Thread], generic: list[_Line]) -> list[_Line]:
    """Merge threads keeping each one's order (a fair merge), and now and then the user keeps talking
    about the same thing for a turn or two."""
    return interleave(rng, [t.lines for t in threads] + [[g] for g in generic], stay=0.15)


def generate_diary_log(seed: int) -> Conversation:
    """One Chinese diary log with its questions; the same seed gives the same log."""
    rng = random.Random(f"zh-diary/{seed}")
    values = _Values(rng)
    n_threads = rng.randint(38, 42)
    matter_names = rng.sample(sorted(MATTERS), rng.randint(5, 7))
    people = _people(rng, n_threads - len(matter_names))
    facts: dict[str, dict[str, object]] = {}
    heavy = set(rng.sample(range(len(people)), rng.randint(6, 9)))
    threads = [_person_thread(rng, i, p, values, facts, i in heavy) for i, p in enumerate(people)]
    threads.append(_Thread(_together(rng, people, heavy)))
    matter_facts: dict[str, dict[str, str]] = {}
    for name in matter_names:
        th, got = _matter_thread(rng, name, values)
        threads.append(th)
        matter_facts[name] = got
    target = rng.randint(580, 880)
    _trim(rng, threads, target - 30)
    used = sum(len(t.lines) for t in threads)
    generic = [_Line(rng.choice(GENERIC)) for _ in range(max(30, target - used))]
    lines = _interleave(rng, threads, generic)
    times = _times(rng, len(lines))
    areas = rng.sample(AREAS, 4)   # home, work, and elsewhere
    log = LogWriter("t{:04d}", first=1)
    for ln, t in zip(lines, times):
        place = _place(rng, t)
        area = areas[0] if place in HOME_PLACES else areas[1] if place in WORK_PLACES else rng.choice(areas)
        log.add(stamp(_PREFIX, t, _WEEKDAYS, area=area, place=place) + ln.text, tags=(ln.key,) if ln.key else ())
    conv = log.conversation()
    conv.questions = _questions(rng, people, facts, matter_facts, log, lines)
    _check(conv)
    return conv


def _questions(rng: random.Random, people: list[Person], facts: dict[str, dict[str, object]],
               matter_facts: dict[str, dict[str, str]], log: LogWriter, lines: list[_Line]) -> list[Question]:
    key_id = log.id_of
    qs: list[Question] = []
    text_of = {ln.key: ln.text for ln in lines if ln.key}
    by_person: dict[int, list[str]] = {}
    for key in facts:
        by_person.setdefault(int(key.split(".")[0][1:]), []).append(key)
    askable = _askable(people, facts)
    for idx, person in enumerate(people):
        keys = [k for k in by_person[idx] if k in askable]
        if not keys:
            continue
        asked = rng.sample(keys, min(len(keys), 2 if rng.random() < 0.35 else 1))
        for key in asked:
            info = facts[key]
            kind = str(info["kind"])
            spec = KINDS[kind]
            named = bool(info["named"])
            ev = [key_id(key)]
            superseded: list[str] = []
            if "new" in info:
                cat, answer = "update", str(info["new"])
                ev = [key_id(key + ".change")]
                superseded = [key_id(key)]
                tmpl = rng.choice(spec.now_asks)
                ask_named = _ask_named(rng, person, text_of[key + ".change"])
            elif "again" in info and rng.random() < 0.6:
                cat, answer = "restated", str(info["value"])
                ev.append(key_id(key + ".again"))
                tmpl = rng.choice(spec.asks)
                ask_named = named if person.nick else False
            else:
                answer = str(info["value"])
                tmpl = rng.choice(spec.asks)
                ask_named = named
                cat = "single"
                if person.nick and rng.random() < 0.5:   # ask the other way round: needs the introduction
                    ask_named = not named
                    cat = "alias"
                    ev.append(key_id(f"p{idx}.intro"))
            qs.append(question(tmpl.format(p=person.ask_form(rng, ask_named)), ev, answer, cat, superseded))
    # Two facts of one person in one question.
    for idx in rng.sample(range(len(people)), min(len(people), rng.randint(3, 5))):
        person = people[idx]
        plain = [k for k in by_person[idx] if "new" not in facts[k] and k in askable]
        if len(plain) < 2:
            continue
        k1, k2 = rng.sample(plain, 2)
        named = bool(facts[k1]["named"]) and bool(facts[k2]["named"])
        if person.nick and bool(facts[k1]["named"]) != bool(facts[k2]["named"]):
            continue  # one of the two would need the introduction as well; keep pairs at two turns
        q1 = rng.choice(KINDS[str(facts[k1]["kind"])].asks).format(p=person.ask_form(rng, named))
        q2 = rng.choice(KINDS[str(facts[k2]["kind"])].asks).format(p=person.ta)
        qs.append(question(q1 + q2, [key_id(k1), key_id(k2)], f"{facts[k1]['value']}；{facts[k2]['value']}", "pair"))
    # One kind of fact about two people.
    pairs_made = 0
    for kind in rng.sample(KIND_NAMES, len(KIND_NAMES)):
        spec = KINDS[kind]
        holders = [k for k in facts if facts[k]["kind"] == kind and "new" not in facts[k] and k in askable]
        if not spec.both or len(holders) < 2 or pairs_made >= 4:
            continue
        k1, k2 = rng.sample(holders, 2)
        a, b = (facts[k]["person"] for k in (k1, k2))
        assert isinstance(a, Person) and isinstance(b, Person)
        if a.rel == b.rel and not a.qual and not b.qual:
            continue
        qa = a.ask_form(rng, bool(facts[k1]["named"]))
        qb = b.ask_form(rng, bool(facts[k2]["named"]))
        qs.append(question(rng.choice(spec.both).format(a=qa, b=qb.removeprefix("我")), [key_id(k1), key_id(k2)],
                           f"{facts[k1]['value']}；{facts[k2]['value']}", "pair"))
        pairs_made += 1
    # The user's own matters.
    for name, got in matter_facts.items():
        for fk in rng.sample(sorted(got), 1 if rng.random() < 0.75 else 2):
            subject = got[next(iter(MATTERS[name].facts))]
            qs.append(question(rng.choice(MATTERS[name].facts[fk].asks).format(s=subject), [key_id(f"u.{name}.{fk}")],
                               got[fk], "own"))
    rng.shuffle(qs)
    return qs


def _ask_named(rng: random.Random, person: Person, change_text: str) -> bool:
    """Ask about a changed fact the way the change was told (updates are not alias questions)."""
    return bool(person.nick) and person.nick in change_text


def _check(conv: Conversation) -> None:
    assert MIN_TURNS <= len(conv.history) <= MAX_TURNS, len(conv.history)
    for q in conv.questions:
        assert q["category"] in CATEGORIES
        parts = q["answer"].split("；")
        stmts = [statement_of(conv.by_id[e]) for e in q["evidence"]]
        for part in parts:
            assert any(part in s for s in stmts), (q, stmts)
        for old in q.get("superseded", []):
            assert old in conv.by_id


def diary_log_set(seeds: list[int] | tuple[int, ...], split: str) -> DevSet:
    """``HISTORIES_PER_SEED`` diary logs per seed, named "zh-diary"."""
    return seeded_set("zh-diary", split, seeds, HISTORIES_PER_SEED, generate_diary_log)
