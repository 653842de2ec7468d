"""LoCoMo-shaped chats between two old friends catching up over months ("en-reunion").

Shape: two friends (A is role ``user``, B ``assistant``) talk in 23-30 dated sessions over months (gaps of days,
sometimes weeks), about 550-650 turns and 13-16k tokens (cl100k_base) per conversation; a turn is ``{"role",
"content": "<Speaker>: <text>", "timestamp": <its session's datetime>, "id": "D<session>:<turn>"}``. Each friend
has storylines (a pet, a hobby class, a trip, a sibling's wedding or baby; A three and B two of: job change,
charity race, move, a child's club, a play) told in pieces across sessions, often in answer to the other ("How
did the audition go?" / "I got the part!"); both usually have a pet, a hobby and a trip, with different facts and
phrasings. Most turns are reactions, encouragement, catching up on the storylines (news holding no asked fact)
and small talk; some share a photo ("[shares a photo of ...]"); events are told relative to the session date.

Questions (28-39 a conversation), LoCoMo's categories mixed about 25/25/20/30 %: 1 multi-hop (turns from several
sessions or both friends), 2 temporal (a date worked out from the session date and "last weekend", "in June"...),
3 open-domain / inference ("Would X enjoy a walking holiday?"), 4 single-hop. Each names its friend, is often
worded apart from its evidence and lists the ids of the turns holding the answer. Plain BM25 finds about 0.6 /
0.68 of the evidence at 1k / 2k tokens, near real LoCoMo conversations.

Deterministic (only ``random.Random(seed)``). Every template, name and value here is our own work, released under
CC0 (public domain); nothing is copied from LoCoMo or any other data set.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from .model import Conversation, DevSet, Question, Turn
from .writer import ChatWriter, question, seeded_set

Beat = Callable[[], None]
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# --------------------------------------------------------------------------------------------------- values
FRIENDS = (("Maya", "f"), ("Jonah", "m"), ("Priya", "f"), ("Theo", "m"), ("Lena", "f"), ("Marcus", "m"),
           ("Ines", "f"), ("Callum", "m"), ("Rosa", "f"), ("Dev", "m"), ("Hannah", "f"), ("Owen", "m"),
           ("Sofia", "f"), ("Felix", "m"), ("Nadia", "f"), ("Elliot", "m"), ("Greta", "f"), ("Samir", "m"),
           ("Tessa", "f"), ("Ruben", "m"), ("Aisha", "f"), ("Miles", "m"), ("Clara", "f"), ("Jasper", "m"))
WOMEN = ("Beth", "Dana", "Edie", "Gwen", "Isla", "Mina", "Opal", "Pia", "Sade", "Uma", "Vera", "Yara", "Cleo",
         "Dora", "Maren", "Lottie")
MEN = ("Arjun", "Colm", "Farid", "Hugo", "Kofi", "Lars", "Nico", "Rafe", "Tomas", "Wes", "Zeke", "Bram", "Emil",
       "Quentin", "Ansel", "Joss")
PET_NAMES = ("Biscuit", "Pickle", "Mochi", "Waffles", "Juniper", "Pepper", "Bramble", "Noodle", "Olive", "Ziggy",
             "Mabel", "Turnip", "Clementine", "Rusty", "Pumpkin", "Sprout")
PETS = (("dog", "puppy", ("beagle", "border collie", "corgi", "greyhound", "Labrador", "dachshund"),
         ("roll over", "give a high-five", "play dead", "carry the post in from the door"),
         ("a sock", "half a corn cob", "a chunk of tennis ball")),
        ("cat", "kitten", ("tabby", "Maine Coon", "Siamese", "ginger", "tortoiseshell"),
         ("open the treat drawer", "come when I whistle", "walk on a harness"),
         ("a hair tie", "a piece of tinsel", "a rubber band")))
HOBBIES = (  # name, the class, first piece, second piece, the show, "what" question, two inference qs, answer
    ("pottery", "a wheel-throwing class at the community studio", "a lopsided speckled mug", "a set of four blue bowls",
     "the studio's winter sale", "What craft did {p} take up?", "Would {p} enjoy a visit to a ceramics museum?",
     "Would {p} want a wheel of {her} own at home?", "Likely yes; {she} throws mugs and bowls in a clay class"),
    ("painting", "a Tuesday-night watercolour course", "a little painting of the harbour at dusk",
     "a portrait of my grandmother", "a café's art wall downtown", "What kind of art is {p} learning?",
     "Would {p} appreciate a set of good brushes as a gift?", "Would {p} enjoy a watercolour weekend retreat?",
     "Likely yes; {she} paints watercolours"),
    ("woodworking", "a beginner woodworking course at the makerspace", "a walnut cutting board",
     "a small oak bookshelf", "the makerspace open day", "What hands-on hobby did {p} pick up?",
     "Would {p} be handy at fixing a wobbly table?", "Would {p} like a nice set of woodworking chisels?",
     "Probably yes; {she} builds furniture in a woodworking course"),
    ("knitting", "a beginners' knitting circle at the library café", "a slightly wonky striped scarf",
     "a cable-knit jumper", "the craft fair at the town hall", "What has {p} been learning to make with yarn?",
     "Would {p} enjoy a wool festival?", "Would {p} enjoy a weekend knitting retreat?",
     "Likely yes; {she} knits scarves and jumpers"),
    ("photography", "an evening photography course at the college", "a shot of fog over the river",
     "a series of portraits of market traders", "a group exhibition at the library",
     "What creative skill has {p} been working on?", "Would {p} enjoy a photo walk through the old town?",
     "Would {p} visit a photography exhibition?", "Likely yes; {she} takes photography classes"),
    ("baking", "a sourdough workshop at the bakery on Fenn Street", "a loaf with a proper crust",
     "a batch of cardamom knots", "the farmers' market bake-off", "What has {p} been learning to make in the kitchen?",
     "Would {p} like a baking stone for {her} birthday?", "Would {p} enjoy a sourdough masterclass?",
     "Likely yes; {she} bakes sourdough and entered a bake-off"))
RACES = (("a 10k", "run", "ran", "in 54 minutes"), ("a half marathon", "run", "ran", "in two hours and eight minutes"),
         ("a 60-mile bike ride", "ride", "rode", "in just under five hours"),
         ("a two-mile open-water swim", "swim", "swam", "in an hour and ten minutes"))
CAUSES = ("the children's hospital", "a dementia charity", "the local animal rescue", "a food bank",
          "a cancer research charity", "a mental health helpline")
OLD_JOBS = ("an accountant at a big firm", "a night-shift nurse", "a bank teller", "a sales rep for a paint company",
            "a call-centre supervisor", "a high-school chemistry teacher", "a hotel receptionist")
NEW_JOBS = (("a junior UX designer", "Brightwell Analytics"), ("a school librarian", "Maple Street Primary"),
            ("a park ranger", "the county parks service"), ("a data analyst", "Northgate Logistics"),
            ("a community health worker", "the Tidewater Clinic"), ("a sous-chef", "Copperleaf Kitchen"),
            ("a QA tester", "Bluefern Games"))
TRIPS = (  # place, highlight, photo, two inference questions, answer
    ("Lisbon", "rode the old yellow trams up the hills and ate far too many custard tarts",
     "a tiled building at sunset",
     "Would {p} enjoy a city break in Porto?", "Would {p} enjoy riding a historic tram in another city?",
     "Likely yes; {she} loved exploring Lisbon"),
    ("Iceland", "stood in a field at 1am watching the northern lights", "green sky over a black beach",
     "Would {p} like a winter trip somewhere remote and cold?", "Would {p} travel to see the northern lights again?",
     "Likely yes; {she} loved Iceland"),
    ("Kyoto", "walked through thousands of red gates on a hillside shrine", "a temple garden in the rain",
     "Would {p} be interested in a Japanese cooking class?", "Would {p} enjoy visiting more shrines and temples?",
     "Likely yes; {she} loved Kyoto"),
    ("the Scottish Highlands", "hiked up a munro in sideways rain", "a misty glen with a tiny stone bothy",
     "Would {p} enjoy a walking holiday?", "Would {p} enjoy hiking in the Alps?",
     "Likely yes; {she} hiked in the Highlands"),
    ("Crete", "swam in a cove you can only reach by boat", "turquoise water and white rocks",
     "Would {p} enjoy a beach holiday?", "Would {p} enjoy a boat trip along a rocky coast?",
     "Likely yes; {she} loved swimming in Crete"),
    ("Vancouver Island", "went out on a boat and saw orcas", "a fin breaking the water",
     "Would {p} enjoy a wildlife-watching tour?", "Would {p} want to see orcas again?",
     "Likely yes; {she} went whale watching"),
    ("Marrakech", "got lost in the souks and took a tagine-cooking class", "a pile of spice cones",
     "Would {p} enjoy a cooking holiday?", "Would {p} enjoy another cooking class abroad?",
     "Likely yes; {she} took a cooking class in Marrakech"),
    ("the Dolomites", "did a hut-to-hut hike for four days", "jagged peaks above a meadow",
     "Would {p} enjoy a mountain trek?", "Would {p} do another long hike?",
     "Likely yes; {she} did a hut-to-hut hike in the Dolomites"))
CITIES = ("Leeds", "Bristol", "Portland", "Halifax", "Dundee", "Tucson", "Norwich", "Sheffield", "Asheville", "Galway",
          "Duluth", "Exeter")
PLAYS = (("Twelfth Night", ("Viola", "Malvolio")), ("Our Town", ("the Stage Manager", "Emily")),
         ("The Importance of Being Earnest", ("Lady Bracknell", "Algernon")),
         ("A Midsummer Night's Dream", ("Puck", "Bottom")), ("Little Shop of Horrors", ("Audrey", "Seymour")))
KID_CLUBS = (("swim team", "won a ribbon at the county gala", "Would {k} enjoy a trip to a water park?"),
             ("chess club", "won the junior tournament at the library", "Would {k} enjoy a strategy board game?"),
             ("junior football", "scored the winning goal in the cup final", "Would {k} enjoy watching a pro match?"),
             ("violin lessons", "played a solo at the school concert", "Would {k} enjoy a kids' orchestra camp?"),
             ("robotics club", "built a robot that sorts Lego by colour", "Would {k} enjoy a science museum?"))

# ------------------------------------------------------------------------------------------------ reactions
GOOD = ("That's amazing, I'm so proud of you!", "Wow, {n}, that's huge!", "Oh, I love that for you.",
        "No way! That's brilliant.", "Yay! You totally deserve it.", "That's so cool, {n}!", "Aw, this made my day.",
        "Honestly, that's incredible.", "Look at you go!", "Love this so much.", "Ahh, congrats!! 🎉",
        "That's wonderful news, {n}.", "Wow! So happy for you.")
BAD = ("Oh no, that sounds rough.", "Ugh, I'm sorry, {n}. That's a lot.", "Oof. Hang in there.",
       "That sounds so stressful.", "Oh no! Poor you.")
MEH = ("Ha, I hear you.", "That makes sense.", "Ha, I can picture it.", "Fair enough!", "Oh, I get that.",
       "Ha, sounds about right.", "I bet!", "Totally understandable.")
ASK = ("How did that feel?", "Tell me everything!", "How are you feeling about it?", "I want all the details!",
       "What made you go for it?")
ECHO_A = ("Pretty good, thanks for asking!", "Oh, you know how it is.", "Ha, funny you should ask.", "Still going!",
          "Busy, but good.", "Not bad at all.", "Ah, where do I start?", "Good, mostly.")
ECHO_LEAD = ("Oh, I meant to ask you: {q} I keep forgetting to bring it up.", "Before I forget, {q}", "{q}",
             "{q} I was thinking about you the other day and realised I never asked.", "Okay, update time: {q}",
             "{q} You haven't mentioned it in a while, so I'm curious.", "So, {q} I want the honest version.")
SELF_TAIL = (  # after happy news of any kind
    "It's been a bit of a whirlwind, to be honest, but a good one.", "Some days I can't believe this is my life now.",
    "I keep telling myself to slow down and actually enjoy these little moments.", "I called my mum straight away.",
    "I didn't expect to feel this emotional about it, but here we are.", "It sounds small, but it meant a lot to me.",
    "I've been grinning about it all day, my face hurts.", "Honestly, I needed something good after the last weeks.",
    "Everyone keeps asking me about it, which is sweet but exhausting.", "I'm still buzzing about it, can you tell?",
    "My whole week revolved around it.", "I'm writing it all down so I don't forget.",
    "There's still a lot to figure out, but I'm feeling hopeful.", "I'll send you more pictures later.")
WIN_TAIL = (  # after news of something the friend did
    "I wasn't sure I'd pull it off, so I'm still a bit stunned.", "I think future me will look back on this and laugh.",
    "It reminded me why I love trying new things, even when they're scary.", "Perfect is boring anyway.",
    "I'm trying not to overthink it, which as you know is not my strong suit.",
    "It's the kind of thing I'd have been too nervous to do a few years ago.")
BAD_TAIL = ("It's been a rough few days, honestly.", "I'm running on fumes, to be honest.", "Sorry for the rant.",
            "I just needed to tell someone, thanks for listening.", "I'm trying to stay positive, but it's hard.")
SUPPORT_WIN = (  # after news of something the friend did
    "You always find a way to make things work, and I really admire that about you.", "You should be really proud.",
    "You've worked so hard for this and it really shows.", "I hope you're giving yourself a bit of credit for it.",
    "Seriously, not everyone would have had the guts to do it.", "It's amazing how much you've grown this year.",
    "I'm taking notes, you're inspiring me to get out there more.", "I can totally picture it, that's so you.")
SUPPORT_JOY = (  # after happy news of any kind
    "It's so nice to hear you sounding this happy.", "Moments like that are what it's all about, honestly.",
    "That kind of thing stays with you for a long time.", "Things like that make all the hard days worth it.",
    "I'm so happy for all of you.", "This is the best news I've had all week.")
SUPPORT_BAD = ("Take care of yourself through all of it, okay?", "I'm always here if you need to vent.",
               "Things will turn around, I just know it.", "Be gentle with yourself this week.",
               "Sending you the biggest hug.", "You don't have to figure it all out at once.")
SUPPORT_ANY = ("I love hearing about this stuff, it makes my day.", "Keep me posted, I want to hear every detail.",
               "You always have the best stories.", "Honestly, your updates are the highlight of my week.",
               "I could listen to this stuff all day.", "You make everything sound like an adventure.")
CATCH_UP = (  # a friend's news about one of their storylines ({t}), holding no asked fact; {n} is someone they know
    "Honestly, {t} has been the best part of my month.", "{t} keeps me busy, but in a good way.",
    "I was telling {n} about {t} the other day and couldn't stop talking.", "Nothing dramatic to report on {t}.",
    "I had a bit of a wobble with {t} last week, but I'm back on track now.", "Mum keeps asking about {t}.",
    "I've been thinking about {t} a lot lately. It's made me a bit braver about everything.",
    "All good with {t}, I think. I'm trying to enjoy it instead of worrying.",
    "{n} asked me about {t} at dinner and I talked for twenty minutes straight. Poor {n}.",
    "Some days {t} feels like a lot, but then something small goes right and I remember why I'm doing it.",
    "I keep a little list of funny moments about {t}. It's getting long.", "Honestly, {t} is what I look forward to.",
    "Weirdly, {t} has made me a lot more patient. Don't laugh.", "I told {n} all about {t} over coffee.",
    "I bored {n} at work with stories about {t} all week. They've started leaving the room when I walk in.",
    "I had a proper wobble about {t} on Sunday night, but {n} talked me round. Feeling much better now.",
    "I've decided to stop worrying about {t} and just enjoy it. It's so much more fun that way.",
    "{n} thinks I've become a bit obsessed with {t}. {n} is not wrong, to be fair.",
    "Funny story: I was so distracted thinking about {t} that I got on the wrong bus on Tuesday.",
    "I didn't expect {t} to take up this much of my headspace, but I'm not complaining.",
    "Between everything else and {t}, my calendar looks like a game of Tetris right now.",
    "I keep meaning to write down everything about {t} so I remember it properly one day.",
    "{n} keeps asking me for updates on {t}. I should start a newsletter.")
REFLECT_Q = ("How are you feeling about it all?", "Is it everything you hoped?", "How does it feel, honestly?",
             "Did you ever imagine this a year ago?", "How does it feel now it's actually happening?")
REFLECT = (
    "Honestly, it feels amazing. I've wanted something like this for a long time, and it finally feels like things "
    "are moving in the right direction.", "Better than I hoped. I was so nervous at the start, but now I can't imagine "
    "not doing it.", "It's a lot, but in the best way. I feel like I'm finally making room for the things that matter.",
    "A bit surreal! I keep waiting for someone to tell me it was all a mistake, but nobody has yet.",
    "It's made me realise how much I'd been holding myself back. I want to say yes to more things like this.",
    "Really good. The people around me have been so supportive, and that makes all the difference.",
    "Proud, honestly, which isn't a word I use about myself very often. I'm trying to let myself enjoy it.",
    "Like a weight has lifted. I didn't realise how much I needed something to look forward to.",
    "Happy and a bit tired! It's been a busy few weeks, but the good kind of busy.",
    "Grateful, mostly. A year ago I wouldn't have believed any of this, so I'm soaking it all in.",
    "Calm, which is new for me. Usually I'm panicking about the next thing, but right now I'm just enjoying it.",
    "Excited for what comes next. It feels like the start of something rather than the end.")
NEUTRAL_TAIL = ("Anyway, that's the latest from me.", "I'll keep you posted, obviously.", "So yeah, that's that.",
                "More news soon, I'm sure.", "It's all a bit of a journey, isn't it?")
ME_TOO = ("Oh, you know me.", "As for me:", "Me? Well,", "On my end,", "Same old here, mostly.")
QBACK = ("How about you, anything new on your end?", "How are things with you?", "What about you?",
         "But enough about me, how are you doing?", "And you? What's new in your world?")

# ---------------------------------------------------------------------------------- openers, closers, filler
GREET = ("Hey {o}!", "Hi {o}!", "{o}!", "Morning, {o}!", "Hey you!", "Hiya, {o}!")
OPEN_Q = ("How's your week been?", "It feels like ages since we talked.", "Got a minute to catch up?",
          "How are things on your end?", "Sorry I went quiet for a bit, things got hectic.",
          "I've been saving up news for you all week.", "How's life treating you?", "I've missed our chats!")
OPEN_R = ("So good to hear from you. Busy as ever over here, but good busy.", "Pretty good, just a bit tired.",
          "Things are okay here, nothing too dramatic for once.", "Not bad at all, thanks for asking!",
          "All fine here, the usual chaos.", "Honestly, better for hearing from you.", "Can't complain, really.")
OPEN_R2 = ("What's new with you?", "How about you?", "Tell me your news, I can tell you've got some.",
           "What have you been up to?", "How are you doing?")
CLOSE_WHY = ("I'd better go and start dinner", "I have to run, there's a meeting in five minutes",
             "the laundry is calling me", "I've got an early start tomorrow", "I promised to help a neighbour",
             "my tea has gone completely cold", "I need to get to the shop before it shuts")
CLOSE_BYE = ("Talk soon!", "Catch up again soon?", "Bye for now, {o}!", "Speak soon!", "Let's talk again this week.")
CLOSE_R = ("Bye {o}!", "Talk soon!", "Take care, {o}!", "Sure thing!", "Speak soon, {o}!", "Of course!")
CLOSE_R2 = ("Look after yourself.", "Good luck with everything this week.", "Say hi to everyone for me.",
            "Thanks for the chat, it really made my day.", "Don't work too hard.", "Go get some rest. 💛")
SPOT = ("the station", "work", "the river", "the old market", "my gym", "the library", "the bus depot")
WHEN = ("last night", "on Saturday", "at lunch yesterday", "over the weekend", "on Thursday")
# small-talk scenes: the values of {x}, then lines alternating between the friends; " | " separates two versions
# of a scene (the same version is used for all its lines); {spot}, {when} come from the lists above, {name} and
# an {x} of "{person}" are someone the friends know
SCENES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("ramen", "dumplings", "tacos", "a falafel wrap", "Korean fried chicken", "a wood-fired pizza"),
     ("I tried a new place near {spot} {when} and had {x}. Honestly one of the best things I've eaten all year, I'm "
      "still thinking about it.", "Ooh, {x}! Now I'm hungry, thanks a lot. Was it busy? | Stop, I'm starving and it's "
      "not even lunchtime. Was it pricey?", "Packed, we waited forty minutes outside, but worth every one. | Not too "
      "bad at all! I'll take you next time you visit, my treat.")),
    (("a documentary about octopuses", "a cooking competition", "a murder mystery series", "a show about tiny houses",
      "an old sitcom I loved as a kid"),
     ("I've been watching {x} every evening this week. I can't stop, it's become a whole ritual with tea and a "
      "blanket.", "Ha, I love that. Is it actually good or just comforting? | Ooh, send me the name, I need something "
      "new for the evenings.", "Both, honestly. It's my way of switching off after a long day. | Will do! Warning: "
      "it's very addictive, say goodbye to your sleep.")),
    (("a thriller set on a night train", "a memoir by a chef", "a book about the history of salt",
      "a fantasy series with far too many dragons", "the novel my book club picked"),
     ("I started reading {x}. I stayed up until one last night to finish a chapter and regretted it at seven.",
      "Oh, I'm always looking for recommendations! Would I like it? | One more chapter, the classic trap. Is it good?",
      "I think you'd love it. I'll lend it to you when I'm done, if you promise to give it back this time. | So good. "
      "I'm rationing it now so it lasts longer.")),
    (("{person}",),
     ("I bumped into {x} from school {when}! We ended up talking for an hour outside the shop, in the cold.",
      "No way, {x}! How are they doing these days? | Ha, small world. Did they recognise you straight away?",
      "Really well, two kids and a boat now. A boat! | Took a second, but then it was like no time had passed at "
      "all.")),
    (("a car boot sale", "the farmers' market", "a friend's barbecue", "a long walk by the river",
      "absolutely nothing"),
     ("Any plans for the weekend? I feel like I need one that lasts about four days. | What are you up to this weekend?"
      " Anything fun planned?",
      "Probably {x}, if the weather holds. What about you?", "Cleaning and laundry, the thrilling usual. Maybe a film "
      "if I'm feeling wild. | Sleeping in, if the neighbours let me. They've been drilling every Saturday morning.")),
    (("the bathroom tap", "the oven door", "the bedroom blind", "the washing machine", "the doorbell"),
     ("{x} broke {when}. Of course it did, right when I had people coming over for dinner.",
      "Oh no, is it fixable, or is it a call-someone situation? | Classic. Things always break at the worst moment.",
      "The landlord says 'next week'. He's been saying that since spring. | I watched a video and made it worse.")),
    (("{person}",),
     ("My colleague {x} brought homemade brownies to work {when}. Best day of the month, no contest.",
      "Honestly, hold on to {x}. Did you get the recipe? | The way to everyone's heart. Were they any good?",
      "Already asked! Apparently it's a family secret, which is very rude. | Gone in ten minutes. I had three.")),
    (("a lamp shaped like a mushroom", "a ridiculous yellow raincoat", "a second-hand bike", "a tiny cactus",
      "a very fancy teapot"),
     ("I bought {x} {when}. No regrets whatsoever, even though I definitely didn't need it.",
      "Ha, photo please! I need to see this. | Wait, I need to see it. Photo, right now!",
      "[shares a photo of {x}] Behold. Isn't it the best thing you've ever seen? | [shares a photo of {x}] Perfect, "
      "right? It already feels like it's always been here.")),
    (("a jazz trio", "a folk singer", "an orchestra playing film music", "a band from the nineties"),
     ("I went to see {x} {when} with {name}. First gig in ages, I'd forgotten how much I love live music.",
      "Ooh, how was it? | Jealous! Was it busy?", "Brilliant. I sang along to everything, loudly and badly. | Packed, "
      "but the sound was amazing and we found a spot right at the front.")),
    (("rain", "wind"),
     ("It's been nothing but {x} here all week. I've honestly forgotten what the sun looks like.",
      "Same here! My umbrella turned inside out on the way to the shops. | Ugh. Send it somewhere else, please.",
      "Maybe it's a sign to buy a proper raincoat like a grown-up. | I would if I could, believe me.")),
    (("the trumpet", "the drums", "the bagpipes"),
     ("My neighbour has started learning {x}. Every evening. At seven o'clock sharp, like clockwork.",
      "Oh no. That's commitment, I'll give him that. Is he any good? | Every single evening? Is he getting any better?",
      "He's... enthusiastic. Let's go with enthusiastic. | Not yet. Maybe by next year, if we all survive.")),
    (("second to last", "dead last", "third out of nine"),
     ("I went to a pub quiz with {name} and some friends {when}. We came {x}, which felt about right.",
      "Ha! Still counts as taking part. What got you? | That's basically a podium finish if you squint.",
      "A whole round on nineties pop. We never stood a chance. | That's what I told the team. They didn't buy it.")))
MUSE = (  # a friend's thought and the other's reply (sometimes a last word); each used once per conversation
    ("I've been thinking lately about how important it is to make time for the people you care about. Life gets so "
     "busy that it's easy to let that slide.", "I feel that so much. It really does matter. It's partly why I love "
     "our chats."),
    ("I've been trying to be kinder to myself recently. I'm so quick to notice what I haven't done and never what I "
     "have.", "That's such a good way to look at it. You do so much more than you give yourself credit for."),
    ("I've started going for a short walk every evening without my phone. It's amazing how much clearer my head "
     "feels afterwards.", "Ooh, I should try that. My phone is basically glued to my hand after dinner."),
    ("Sometimes I miss the days when we had all the time in the world to just hang out and do nothing at all.",
     "Me too! Remember those endless summer afternoons? We should plan a proper lazy day soon."),
    ("I read somewhere that you should do one thing a day that scares you a little. I'm trying it, and it's "
     "exhausting but kind of fun.", "Ha, I love that. What was today's scary thing?",
     "Phoning the dentist to book a check-up. Baby steps, but it counts."),
    ("I've realised I say yes to far too many things. I'm practising saying no, politely, and it feels so strange.",
     "Good for you! Saying no is a superpower. I'm still terrible at it."),
    ("Honestly, chatting with you is one of the things that keeps me sane. I really mean that.",
     "Aw, same here. You're stuck with me, you know. No refunds."),
    ("I've been writing a few lines in a notebook before bed. Nothing fancy, but it helps me notice the good stuff.",
     "That's lovely. I tried that once and lasted three days, but maybe I'll give it another go."),
    ("Is it just me, or does everyone seem really worn out lately? I feel like the whole world needs a long nap.",
     "It's not just you. Everyone I know is running on empty. A nap for the whole world, I'm in."),
    ("I've been cooking proper meals again instead of living on toast. Small wins, but I think they count.",
     "They absolutely count! What's been your best dish so far?",
     "A lentil stew that was surprisingly good. I'll send you the recipe."),
    ("I'm trying to spend less time comparing myself to other people online. It's harder than it sounds.",
     "So hard. Everyone's life looks perfect on there, and nobody's actually is."),
    ("I've been calling my grandparents every Sunday. They love it, and honestly so do I.",
     "That's so sweet. I bet it makes their whole week."),
    ("Do you ever look at old photos and barely recognise yourself? I found some from ten years ago and laughed so "
     "hard.", "All the time! My haircuts alone could fill a museum of questionable choices."))


def fmt(d: date, day: bool = True) -> str:
    return f"{d.day} " * day + f"{MONTHS[d.month - 1]} {d.year}"


@dataclass
class Person:
    name: str
    g: str
    role: str
    v: int = 0            # which phrasing of a shared storyline this friend gets
    partner: str = ""
    trips: int = 1

    @property
    def she(self) -> str:
        return "she" if self.g == "f" else "he"

    @property
    def her(self) -> str:
        return "her" if self.g == "f" else "his"


@dataclass
class Thread:
    """A storyline the other friend may ask about: the question, unused answers, last open session, last asked."""

    question: str
    topic: str
    lines: list[str]      # their {t} is the topic, or "it" when answering the question
    until: int
    last: int


@dataclass
class Chat:
    rng: random.Random
    a: Person
    b: Person
    days: list[datetime]
    log: ChatWriter = field(default_factory=ChatWriter)
    cands: list[Question] = field(default_factory=list)
    notes: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    threads: dict[str, list[Thread]] = field(default_factory=dict)
    decks: dict[str, list[int]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    prefix: str = ""      # a greeting for the session's first turn
    glad: bool = True     # whether the beat just told was good news

    @property
    def session(self) -> int:
        """The session being written (1-based; 0 before the first)."""
        return self.log.session

    @property
    def history(self) -> list[Turn]:
        return self.log.history

    @property
    def day(self) -> date:
        return self.days[self.session - 1].date()

    def other(self, p: Person) -> Person:
        return self.b if p is self.a else self.a

    def alt(self, *options: str) -> str:
        return self.rng.choice(options)

    def pick(self, pool: tuple[str, ...]) -> str:
        x = self.rng.choice([x for x in pool if x not in self.used] or list(pool))
        self.used.add(x)
        return x

    def person(self, g: str) -> str:
        """A new named person with a role (partner, sibling, boss...), never reused."""
        return self.pick(WOMEN if g in ("f", "sister", "daughter", "girl") else MEN)

    def friend(self) -> str:
        """Someone mentioned in passing: any name that is not a role's."""
        return self.rng.choice([x for x in WOMEN + MEN if x not in self.used])

    def deal(self, name: str, size: int, rounds: int = 0) -> int:
        """The next index of a shuffled deck of ``size`` items, reshuffled when used up; with ``rounds``, -1
        after that many rounds (an item comes back only after all the others)."""
        deck = self.decks.get(name)
        if deck is None or (not deck and not rounds):
            deck = self.decks[name] = [i for _ in range(rounds or 1) for i in self.rng.sample(range(size), size)]
        return deck.pop() if deck else -1

    def say(self, p: Person, text: str) -> str:
        if self.prefix:
            text, self.prefix = self.prefix.format(o=self.other(p).name) + " " + text, ""
        return self.log.say(p.name, p.role, text)

    def turns(self, p: Person, *lines: str) -> list[str]:
        """Say ``lines`` alternately, p first; their ids."""
        return [self.say(self.other(p) if k % 2 else p, line) for k, line in enumerate(lines)]

    def q(self, cat: int, text: str, ev: list[str], answer: str) -> None:
        self.cands.append(question(text, ev, answer, cat))

    def note(self, p: Person, tag: str, tid: str, value: str) -> None:
        self.notes.setdefault((p.name, tag), []).append((tid, value))

    def ask_later(self, p: Person, topic: str, question: str, lines: tuple[str, ...], until: int = 10**6) -> None:
        """Let the other friend ask ``question`` about p's storyline (``topic``) in later sessions up to ``until``;
        p answers with one of ``lines`` or of CATCH_UP (news holding no asked fact), each used once."""
        more = [x.format(t="{t}", n=self.friend()) for x in self.rng.sample(CATCH_UP, 9)]
        lines_ = self.rng.sample(list(lines) + more, len(lines) + len(more))
        self.threads.setdefault(p.name, []).append(Thread(question, topic, lines_, until, self.session))

    def extra(self, pool: tuple[str, ...], prob: float) -> str:
        return " " + self.rng.choice(pool) if self.rng.random() < prob else ""

    def good(self, to: Person, bad: bool = False, won: bool = True) -> str:
        """A reaction to good news (of something ``to`` did, if ``won``) or bad news, usually with a supportive line."""
        line = self.rng.choice(BAD if bad else GOOD).format(n=to.name)
        return line + self.extra(SUPPORT_BAD if bad else SUPPORT_WIN if won else SUPPORT_JOY, 0.9)

    def tail(self, prob: float = 0.85, won: bool = True) -> str:
        return self.extra(SELF_TAIL + WIN_TAIL if won else SELF_TAIL, prob)

    def past(self, s: int = 0) -> tuple[str, str, date]:
        """A relative expression for a day since the previous session (of session ``s``, 1-based, by default the
        current one), the answer it gives to "when?", and the day."""
        s = s or self.session
        d = self.days[s - 1].date()
        floor = self.days[s - 2].date() if s > 1 else d - timedelta(days=30)
        y1, y2 = d - timedelta(days=1), d - timedelta(days=2)
        opts: list[tuple[str, str, date]] = [("yesterday", fmt(y1), y1), ("this morning", fmt(d), d)]
        if y2 > floor:
            opts.append(("two days ago", fmt(y2), y2))
        wd = self.rng.randrange(7)
        x = d - timedelta(days=(d.weekday() - wd) % 7 or 7)
        if x > floor:
            opts += [(f"last {WEEKDAYS[wd]}", fmt(x), x), (f"on {WEEKDAYS[wd]}", fmt(x), x)]
        sat = d - timedelta(days=(d.weekday() - 5) % 7 or 7)
        if sat > floor and d.weekday() < 5:
            opts.append(("last weekend", f"the weekend before {fmt(d)}", sat))
        if d - timedelta(days=7) > floor:
            opts += [("last week", f"the week before {fmt(d)}", d - timedelta(days=5)),
                     ("a few days ago", f"a few days before {fmt(d)}", d - timedelta(days=3))]
        return self.rng.choice(opts[1:] if len(opts) > 2 and self.rng.random() < 0.7 else opts)

    def ahead(self, target: date) -> tuple[str, str]:
        """How to say, on the current session's day, that something will happen around ``target``."""
        same = (target.year, target.month) == (self.day.year, self.day.month)
        return "later this month" if same else f"in {MONTHS[target.month - 1]}", fmt(target, False)


# ------------------------------------------------------------------- storylines: (chat, friend, other, beat sessions)

def pet(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    kind, young, breeds, tricks, eats = c.rng.choice(PETS)
    breed, trick, ate, name, v = c.pick(breeds), c.rng.choice(tricks), c.rng.choice(eats), c.pick(PET_NAMES), p.v
    ps, po = ("she", "her") if c.rng.random() < 0.5 else ("he", "him")
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans, _ = c.past()
        t = ids["t1"] = c.say(p, (f"Big news: we adopted a {breed} {young} from the shelter {w}! We called {po} "
                                  f"{name}. The house is already pure chaos and I love it.",
                                  f"Meet the newest member of the family: {name}, a little {breed} {young} we adopted "
                                  f"from the shelter {w}. I'm completely smitten.")[v] + c.tail(won=False))
        c.turns(o, c.alt(f"{c.good(p, won=False)} What's {name} like? I need to know everything.",
                         f"A {breed} {young}! {c.good(p, won=False)} What's {name} like?"),
                (f"[shares a photo of a tiny {young} asleep in a shoebox] Pure chaos, but {ps} follows me around all "
                 "day "
                 "and then naps like this in between.", f"[shares a photo of {name} curled up on a jumper] "
                 f"{ps.capitalize()} has already claimed my favourite jumper as a bed. I've lost that one forever.")[v],
                f"Stop it, that face! {c.alt(*MEH)}")
        c.q(4, c.alt(f"What did {p.name} name {p.her} new pet?", f"What is the name of {p.name}'s new {young}?",
                     f"What did {p.name} call {p.her} new {young}?"), [t], name)
        c.q(4, c.alt(f"What kind of animal did {p.name} get from the shelter?", f"What breed is {p.name}'s {young}?"),
            [t], f"a {breed} {kind}")
        c.q(2, f"When did {p.name} adopt {name}?", [t], ans)
        c.note(p, "pet", t, f"a {breed} {kind} named {name}")
        c.ask_later(p, name, f"How's little {name} doing?", (
            f"{name} has started sleeping on my feet every night, which is adorable until about 3am.",
            f"We bought {name} a tiny raincoat and {ps} refuses to wear it.", f"{name} has decided the postman is "
            "the enemy. Every single morning, the same battle.", f"{name} stole a slice of toast off the counter."))
    def b2() -> None:
        c.say(o, f"How's {name}? Still causing havoc around the house?")
        c.glad, (w, ans, _) = False, c.past()
        t = ids["t2"] = c.say(p, (f"Ugh, we had a scare {w}: {ps} swallowed {ate} and we ended up at the "
                                  "emergency vet.", f"Don't panic, {ps}'s fine now, but {w} {name} ate {ate} and we "
                                  "spent four hours at the emergency vet.")[v] + c.extra(BAD_TAIL, 0.7))
        c.turns(o, c.alt(f"{c.good(p, bad=True)} Is {ps} okay now?",
                         f"The emergency vet?! {c.good(p, bad=True)} Is {name} okay now?"),
                f"Totally fine after some very expensive X-rays. The vet called {po} a healthy little menace.")
        c.q(4, c.alt(f"What did {p.name}'s {kind} eat that needed a vet visit?", f"What did {name} swallow?"), [t], ate)
        c.q(2, f"When did {p.name} rush {name} to the vet?", [t], ans)
    def b3() -> None:
        t = c.say(p, (f"Proud parent moment: {name} finally learned to {trick}! [shares a photo of {name} mid-trick]",
                      f"You won't believe it: {name} can {trick} now! We've been practising for weeks.")[v] + c.tail())
        c.turns(o, c.alt(c.good(p), f"{name} can {trick}? That's genius. {c.good(p)}"),
                f"It only took about four hundred treats and a lot of patience. {name} is very food-motivated.")
        c.q(4, c.alt(f"What trick has {p.name}'s {kind} learned?", f"What can {name} do on command now?"), [t], trick)
        c.q(1, f"What has {name} been up to since {p.name} got {po}?", [ids["t2"], t],
            f"swallowed {ate} and went to the vet; learned to {trick}")
        c.q(3, c.alt(f"Would {p.name} be likely to support an animal rescue?", f"Would {p.name} adopt another pet?",
                     f"Would {p.name} donate to an animal shelter?"), [ids["t1"], t],
            f"Likely yes; {p.she} adopted {name} from a shelter and dotes on {po}")
    return [b1, b2, b3]


def hobby(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    hb, cls, made, made2, show, qwhat, qinf, qinf2, ainf = c.rng.choice([h for h in HOBBIES if h[0] not in c.used])
    c.used.add(hb)
    v, ids = p.v, {}
    def b1() -> None:
        w, ans, _ = c.past()
        t = ids["t1"] = c.say(p, (f"So I finally did the thing I keep talking about: I signed up for {cls}. First "
                                  f"session was {w}!", f"I've got a new obsession: I started {cls} {w}. I think I'm "
                                  "hooked already.")[v] + c.tail())
        c.turns(o, c.alt(f"{c.good(p)} You've talked about that for years. {c.alt(*ASK)}",
                         f"A {hb} class! {c.good(p)} {c.alt(*ASK)}"),
                ("Humbling! Everyone else seemed to know exactly what they were doing. But I loved every minute.",
                 "Honestly, I was terrible, but I didn't think about my inbox once. That alone was worth it.")[v],
                "Everyone starts somewhere. Can't wait to see what you make, send me pictures!")
        c.q(4, c.alt(qwhat.format(p=p.name), f"What class did {p.name} sign up for?"), [t], f"{hb} ({cls})")
        c.q(2, f"When did {p.name} start {p.her} {hb} class?", [t], ans)
        c.note(p, "activity", t, f"{hb} ({cls})")
        c.ask_later(p, f"the {hb} class", f"Are you still enjoying the {hb} class?", (
            f"My teacher says my {hb} is coming along, which from her is basically a standing ovation.",
            f"I may have bought far too much {hb} gear online.", f"There's a retired guy in my {hb} class who is "
            "basically a wizard. I just copy whatever he does.", "I've started watching tutorials on my lunch break."))
    def b2() -> None:
        c.say(o, "Wait, how's the class going? Have you made anything yet?")
        t = ids["t2"] = c.say(p, (f"[shares a photo of {made}] Ta-da! The first thing I've made in class: {made}. "
                                  "Be nice.", f"[shares a photo of {made}] My first proper piece from class! "
                                  f"{made[0].upper()}{made[1:]}. Not perfect, but it's mine.")[v] + c.tail())
        c.turns(o, c.alt(f"{c.good(p)} I would totally buy that, no joke.",
                         f"You made that in class?! {c.good(p)} I would totally buy it."),
                "Ha, you're sweet. My teacher said it has 'character', which I'm choosing to take as a compliment.")
        c.q(4, c.alt(f"What was the first thing {p.name} made in {p.her} class?", f"What was {p.name}'s first piece?"),
            [t], made)
    def b3() -> None:
        w, ans, _ = c.past()
        t = c.say(p, (f"Guess whose work ended up in {show} {w}? Mine! They showed {made2}.",
                      f"Okay, brag time: {w} they put {made2} in {show}. My actual work, in public!")[v] + c.tail())
        c.turns(o, c.alt(f"WHAT. {c.good(p)}", f"Your {hb} in {show}! {c.good(p)}"),
                "I was shaking the whole time, but people actually stopped and looked, and a few even asked about it.")
        c.q(2, f"When was {p.name}'s work first shown in public?", [t], ans)
        c.q(4, c.alt(f"Where was {p.name}'s {hb} work on show?", f"Where did {p.name} get to show {p.her} work?"),
            [t], show)
        c.q(1, c.alt(f"What pieces has {p.name} made since starting {hb}?", f"What has {p.name} made in {p.her} "
                     "class so far?"), [ids["t2"], t], f"{made}; {made2}")
        c.q(3, c.alt(qinf, qinf2).format(p=p.name, her=p.her), [ids["t1"], ids["t2"]], ainf.format(she=p.she))
    return [b1, b2, b3]


def race(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    ev, verb, did, time = c.rng.choice(RACES)
    cause, amount = c.pick(CAUSES), f"${c.rng.randrange(4, 19) * 50 + 20}"
    when, when_ans, race_day = c.past(where[-1])
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans = c.ahead(race_day)
        t = ids["t1"] = c.say(p, f"I did something slightly mad. I signed up for {ev} {w} to raise money for {cause}. "
                              "Training starts tomorrow." + c.tail())
        c.turns(o, c.alt(f"That's such a good cause, {p.name}! Are you training already?",
                         f"{ev.capitalize()} for {cause}? That's such a good cause! Are you training already?"),
                f"Four times a week. My legs hate me, but it feels good to do it for {cause}. A friend of mine "
                "volunteers there and told me how much they need it.")
        c.q(4, c.alt(f"Which charity is {p.name} raising money for?", f"Who is {p.name} fundraising for?"), [t], cause)
        c.q(2, f"When was {p.name}'s charity {verb} planned for?", [t], ans)
        c.note(p, "activity", t, f"training for {ev}")
        c.ask_later(p, "the training", "How's the training going?", (
            "I did my longest session yet on Sunday and then lay on the kitchen floor for an hour.",
            f"Every time I want to skip a session I think about {cause} and drag myself out the door.",
            "My new shoes gave me blisters the size of coins, so that's been glamorous."), where[-1] - 1)
    def b2() -> None:
        c.say(o, "Wasn't your big charity thing coming up? How did it go?? I've been thinking about you.")
        t = c.say(p, f"I did it! I {did} it {when}, finished {time}, and we raised {amount} in the end." + c.tail())
        c.turns(o, c.alt(f"{c.good(p)} {amount} is so much!", f"{amount} for {cause}! {c.good(p)}"),
                "I cried at the finish line. Not even a little bit, a lot. A stranger gave me a banana and a hug.")
        c.q(2, f"When did {p.name} do {p.her} charity {verb}?", [t], when_ans)
        c.q(4, f"How much money did {p.name} raise?", [t], amount)
        c.q(1, f"How much did {p.name} raise for {cause}, and how long did {p.she} take?", [ids["t1"], t],
            f"{amount}; {time.removeprefix('in ')}")
        c.q(3, c.alt(f"Does {p.name} seem to enjoy physical challenges?", f"Would {p.name} train for another race?",
                     f"Would {p.name} sign up for another charity event?"), [ids["t1"], t],
            f"Yes; {p.she} trained for and completed {ev}")
    return [b1, b2]


def job(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    old, (new, co), boss = c.pick(OLD_JOBS), c.rng.choice(NEW_JOBS), c.person(c.alt("f", "m"))
    years = c.rng.randrange(3, 12)
    ids: dict[str, str] = {}
    def b1() -> None:
        c.glad = False
        t = ids["t1"] = c.say(p, f"Honestly I'm burnt out. {years} years of being {old} and I dread every Monday. "
                              "I think this job is slowly eating me." + c.extra(BAD_TAIL, 0.5))
        c.turns(o, f"{c.good(p, bad=True)} Have you thought about switching?",
                "All the time. I've been scrolling through listings at midnight, making lists of what I'd enjoy.",
                "Do it! You'd be great at so many things, and you deserve to like your Mondays.")
        c.q(4, c.alt(f"What did {p.name} do for a living before switching jobs?", f"What was {p.name}'s old job?"),
            [t], old)
        c.ask_later(p, "the job hunt", "Any news on the work front?", (
            "Still applying, still waiting. I've rewritten my CV so many times I could recite it.",
            "A recruiter called me by the wrong name for a whole phone call. I didn't correct her."), where[2] - 1)
    def b2() -> None:
        w, ans, _ = c.past()
        t = c.say(p, f"Okay, don't jinx it, but I had an interview at {co} {w}. It's for {new} role." + c.tail())
        c.turns(o, c.alt(f"Ooh! {c.alt(*ASK)}", f"An interview at {co}! Ooh! {c.alt(*ASK)}"),
                "Good, I think? They laughed at my jokes, which is either great or terrible. They'll let me know soon.")
        c.q(2, f"When did {p.name} interview at {co}?", [t], ans)
    def b3() -> None:
        c.say(o, f"Did you ever hear back from {co}?? I've been dying to ask.")
        w, ans = c.ahead(c.day + timedelta(days=c.rng.randrange(10, 30)))
        t = c.say(p, f"I GOT THE JOB. I'm going to be {new} at {co}! I hand in my notice tomorrow and start "
                     f"{w}." + c.tail())
        c.say(o, c.alt(c.good(p), f"{new[0].upper()}{new[1:]} at {co}! {c.good(p)}"))
        c.q(4, c.alt(f"What is {p.name}'s new job?", f"What job did {p.name} get?"), [t], f"{new} at {co}")
        c.q(2, f"When was {p.name} due to start {p.her} new job?", [t], ans)
        c.q(1, c.alt(f"How did {p.name}'s career change?", f"What was {p.name}'s job before, and what is it now?"),
            [ids["t1"], t], f"from {old} to {new} at {co}")
        c.ask_later(p, "the new job", f"How's life at {co}?", (
            f"Busy! But the team at {co} is great, and there's cake every Friday.",
            "I've got a desk by the window now. Small thing, but it makes my whole day.",
            "I'm learning so much. My brain is full by three o'clock."))
    def b4() -> None:
        t = c.say(p, f"First weeks at {co} survived! My manager {boss} is lovely and actually answers emails, which is "
                  "new for me." + c.tail())
        c.say(o, f"A manager who answers emails? Keep {boss} forever.{c.extra(SUPPORT_JOY, 0.9)}")
        c.q(4, c.alt(f"Who is {p.name}'s boss at the new place?", f"Who is {p.name}'s manager at {co}?"), [t], boss)
        c.q(3, c.alt(f"Is {p.name} likely to go back to {p.her} old line of work?",
                     f"Would {p.name} ever go back to being {old}?"), [ids["t1"], t],
            f"Probably not; {p.she} was burnt out as {old} and is happy at {co}")
    return [b1, b2, b3, b4]


def trip(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    place, did, photo, qinf, qinf2, ainf = c.rng.choice([t for t in TRIPS if t[0] not in c.used])
    c.used.add(place)
    who, v, short = p.partner or c.person(c.alt("f", "m")), p.v, place.removeprefix("the ")
    where_to = f" to {place}" if p.trips > 1 else ""  # tell trips apart in the questions
    back_w, back_ans, away = c.past(where[-1])
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans = c.ahead(away)
        t = ids["t1"] = c.say(p, (f"{who} and I finally booked a trip! We're off to {place} {w}. We haven't travelled "
                                  "together in years.", f"Guess what? {who} and I are going to {place} {w}! We booked "
                                  "the trip last night after one glass of wine too many.")[v] + c.tail(won=False))
        c.turns(o, c.alt(f"Jealous!! {c.alt(*MEH)} What's the plan?", f"{place}! Jealous!! What's the plan?"),
                ("No real plan yet, that's the fun part. Mostly eating and wandering, I suspect, and lots of naps.",
                 "We're keeping it loose. Good food, long walks, no alarms. That's the whole plan.")[v])
        c.q(2, f"When was {p.name} planning to travel to {place}?", [t], ans)
        c.ask_later(p, f"the {short} trip", f"Are you all set for {place}?", (
            f"{who} has made a colour-coded spreadsheet for {place}, so that's the level we're at.",
            "I've packed and unpacked my bag three times already. Way too early, I know."), where[-1] - 1)
    def b2() -> None:
        t = c.say(p, (f"[shares a photo of {photo}] We got back from our {short} trip {back_w}. Still not over it.",
                      f"[shares a photo of {photo}] Our trip to {place} was unreal. We landed back home {back_w} and I "
                      "already miss it.")[v] + c.tail(won=False))
        c.say(o, f"That photo!! What was the best part?{c.extra(SUPPORT_JOY, 0.5)}")
        t2 = c.say(p, (f"Honestly everything, but the highlight was when we {did}.",
                       f"The best bit? We {did}. I still get goosebumps thinking about it.")[v] + c.tail(won=False))
        c.say(o, f"Okay, {c.alt('that', place)} is going straight on my list. You'll have to give me all your tips.")
        c.q(4, c.alt(f"What was the highlight of {p.name}'s holiday{where_to}?",
                     f"What was the best part of {p.name}'s trip{where_to}?"), [t2], did)
        c.q(2, f"When did {p.name} return from {place}?", [t], back_ans)
        if where_to:
            c.q(1, f"Who did {p.name} go{where_to} with, and when did they get back?", [ids["t1"], t],
                f"{who}; {back_ans}")
        else:
            c.q(1, c.alt(f"Who did {p.name} travel with, and where did they go?", f"Who did {p.name} go on a trip "
                         "with, and where to?"), [ids["t1"], t], f"{who}; {place}")
        c.q(3, c.alt(qinf, qinf2).format(p=p.name), [t, t2], ainf.format(she=p.she))
        c.note(p, "trip", t, place)
    return [b1, b2]


def sibling(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    g, baby, kg, v = c.alt("sister", "brother"), c.rng.random() < 0.5, c.alt("girl", "boy"), p.v
    sib, fiance, kid = c.person(g), c.person(c.alt("f", "m")), c.person(kg)
    aunt, them = "auntie" if p.g == "f" else "uncle", "her" if kg == "girl" else "him"
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans, _ = c.past()
        if baby:
            t = c.say(p, (f"Family news! My {g} {sib} told us {w} that they're expecting a baby! Mum screamed so "
                          "loud the "
                          "neighbours came round.", f"I'm going to be an {aunt}! My {g} {sib} shared the baby news {w} "
                          "over Sunday lunch.")[v] + c.tail(won=False))
            c.q(4, f"Who in {p.name}'s family is having a baby?", [t], f"{p.her} {g} {sib}")
        else:
            t = c.say(p, (f"Family news! My {g} {sib} got engaged {w}. {fiance} proposed on a ferry, in the rain, "
                          "and it "
                          f"was perfect.", f"My {g} {sib} is getting married! {fiance} popped the question {w} at a "
                          "tiny restaurant by the sea.")[v] + c.tail(won=False))
            c.q(4, f"Who is {p.name}'s {g} marrying?", [t], fiance)
        ids["t1"] = t
        c.q(2, f"When did {p.name} hear {sib}'s big news?", [t], ans)
        c.turns(o, f"{c.good(p, won=False)} Give {sib} a hug from me.",
                ("Will do! Mum is already planning outfits and crying, depending on the hour.",
                 f"I will! The whole family is over the moon. {sib} hasn't stopped smiling.")[v])
        c.note(p, "family", t, f"{g} {sib}")
        c.ask_later(p, "the baby prep" if baby else "the wedding planning", f"How's {sib} doing?", (
            f"I had lunch with {sib} on the weekend. We talked for three hours straight.",
            f"{sib} keeps sending photos to the family group chat. It is completely out of control.") + ((
                f"{sib} has already bought a tiny pair of trainers. The baby isn't even here yet.",) if baby else (
                f"{sib} called me at midnight to ask my opinion on napkins. Napkins, {o.name}.",)), where[-1] - 1)
    def b2() -> None:
        w, ans, _ = c.past()
        if baby:
            t = c.say(p, (f"I'm officially an {aunt}! {sib} had a baby {kg} {w}. {kid}, seven pounds of perfect.",
                          f"The baby's here! {sib} had a little {kg} {w} and they named {them} {kid}. I held {them} "
                          "for "
                          "an hour and cried.")[v] + c.tail(won=False))
            c.say(o, f"Oh my heart! Welcome to the world, little {kid}!{c.extra(SUPPORT_JOY, 0.8)}")
            c.q(4, c.alt(f"What is the name of {p.name}'s new niece or nephew?", f"What did {p.name}'s {g} name the "
                         "baby?"), [t], kid)
            c.q(2, f"When was {sib}'s baby born?", [t], ans)
        else:
            t = c.say(p, (f"{sib}'s wedding was {w}! I gave a speech and only cried twice. [shares a photo of the "
                          "couple]",
                          f"{sib} and {fiance} got married {w}! I gave a speech and somehow got laughs in all the "
                          "right "
                          "places.")[v] + c.tail(won=False))
            c.say(o, c.alt(f"Only twice? Impressive. {c.good(p, won=False)}", f"A speech at {sib}'s wedding! "
                           f"{c.good(p, won=False)}"))
            c.q(4, f"What did {p.name} do at {p.her} {g}'s wedding?", [t], "gave a speech")
            c.q(2, f"When did {sib} get married?", [t], ans)
        c.q(3, f"Is {p.name} close to {p.her} {g}?", [ids["t1"], t], f"Likely yes; {p.she} shares {sib}'s news happily")
        c.q(1, f"What happened in {p.name}'s {g}'s life this year?", [ids["t1"], t],
            f"had a baby {kg}, {kid}" if baby else f"got engaged to {fiance} and married")
        after = ((f"{kid} grabbed my finger and wouldn't let go. I'm done for.",
                  f"{sib} says {kid} slept four hours in a row. Champagne all round.") if baby else
                 (f"{sib} and {fiance} are back from the honeymoon and unbearably happy.",
                  "I've watched the wedding video four times."))
        c.ask_later(p, f"being an {aunt}" if baby else "the wedding album",
                    f"How's baby {kid}?" if baby else "How are the newlyweds?", after)
    return [b1, b2]


def move(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    old, new, who = c.pick(CITIES), c.pick(CITIES), p.partner or c.person(c.alt("f", "m"))
    moved_w, moved_ans, day = c.past(where[-1])
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans = c.ahead(day)
        t = ids["t1"] = c.say(p, f"Big news: {who} got offered a job in {new}, so we're moving there {w}! I've "
                              f"lived in {old} my whole adult life, so it's a lot." + c.tail(0.5, won=False))
        c.turns(o, c.alt("Whoa! How are you feeling about it?", f"Whoa, moving to {new}! Are you excited?"),
                "Excited and terrified in equal measure. I keep making lists and then losing the lists.")
        c.q(4, f"Why is {p.name} moving to {new}?", [t], f"{who} got a job there")
        c.q(2, f"When was {p.name} planning to move?", [t], ans)
        c.ask_later(p, "the move", "How's the packing going?", (
            f"Half my life is in boxes and {who} keeps labelling them all 'misc'.",
            f"Saying goodbye to {old} is harder than I thought. I keep getting weepy at the bus stop.",
            "We own three kettles. Why three?"), where[-1] - 1)
    def b2() -> None:
        t = c.say(p, f"We moved into the new place {moved_w}! Boxes everywhere, but I can see a park from the kitchen "
                  "window." + c.tail(won=False))
        c.turns(o, f"{c.good(p, won=False)} How are you finding {new}?",
                "Everyone's friendly, and the bakery down the road already knows my order. Dangerous.")
        c.q(2, f"When did {p.name} move into {p.her} new home?", [t], moved_ans)
        c.q(1, f"Which cities has {p.name} lived in?", [ids["t1"], t], f"{old}, {new}")
        c.q(3, f"Is {p.name} likely to move back to {old} soon?", [ids["t1"], t],
            f"Probably not; {p.she} just settled in {new} and likes it")
        c.ask_later(p, f"life in {new}", f"How are you settling into {new}?", (
            f"Still finding my way around {new}, but I found a great coffee place on the corner.",
            f"The neighbours in {new} brought us a whole cake! I think we'll be happy here."))
    return [b1, b2]


def kids(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    kg = c.alt("son", "daughter")
    kid, (club, win, qinf), age = c.person(kg), c.rng.choice(KID_CLUBS), c.rng.randrange(7, 13)
    ids: dict[str, str] = {}
    def b1() -> None:
        w, ans, _ = c.past()
        t = ids["t1"] = c.say(p, f"My {kg} {kid} started {club} {w}. {age} years old and suddenly so serious about it!"
                              + c.tail(won=False))
        c.turns(o, c.alt(f"Aw, {kid}! Is it going well so far?", f"{club.capitalize()}? Aw, {kid}! Is it fun?"),
                "Loves it. Talks about nothing else at dinner, we get a full report every night.")
        c.q(4, c.alt(f"What activity did {p.name}'s kid sign up for?", f"What did {p.name}'s {kg} start doing?"),
            [t], club)
        c.q(2, f"When did {kid} start {club}?", [t], ans)
        c.ask_later(p, f"{kid}'s {club}", f"How's {kid} getting on?", (
            f"{kid} practises every evening, so the whole house is very involved.",
            f"{kid} wants to quit one day and loves it the next. Classic {age}-year-old.",
            f"I cheer way too loudly from the side. {kid} is mortified."))
    def b2() -> None:
        w, ans, _ = c.past()
        t = c.say(p, f"Proud {'mum' if p.g == 'f' else 'dad'} alert: {kid} {win} {w}! [shares a photo of {kid} "
                     "grinning]"
                  + c.tail(won=False))
        c.say(o, f"{c.good(p, won=False)} Tell {kid} I said congrats!")
        c.q(2, f"When did {p.name}'s {kg} get {'her' if kg == 'daughter' else 'his'} big win?", [t], ans)
        c.q(1, f"What has {p.name}'s {kg} achieved since joining {club}?", [ids["t1"], t], win)
        c.q(3, qinf.format(k=f"{p.name}'s {kg}"), [ids["t1"], t], f"Likely yes; {kid} loves {club}")
    return [b1, b2]


def play(c: Chat, p: Person, o: Person, where: list[int]) -> list[Beat]:
    title, roles = c.rng.choice(PLAYS)
    role = c.rng.choice(roles)
    ids: dict[str, str] = {}
    def b1() -> None:
        t = c.say(p, f"I have an audition on {WEEKDAYS[c.rng.randrange(7)]} at the community theatre. They're doing "
                  f"{title}!" + c.tail())
        c.turns(o, "You'll smash it, I just know it. Which part are you going for?",
                "Any part with lines, honestly. I'm so nervous I've been practising on the cat next door.")
        c.q(4, c.alt(f"What show did {p.name} audition for?", f"What production did {p.name} try out for?"), [t], title)
    def b2() -> None:
        c.say(o, "How did the audition go?! Don't leave me hanging.")
        t = ids["t2"] = c.say(p, f"I got the part! I'm playing {role}. Rehearsals are three nights a week." + c.tail())
        c.say(o, c.alt(c.good(p), f"You're playing {role}! {c.good(p)}"))
        c.q(4, c.alt(f"Which role was {p.name} cast in?", f"What part did {p.name} get in {title}?"), [t], role)
        c.note(p, "activity", t, f"acting in a play (as {role})")
        c.ask_later(p, "the play", "How are rehearsals going?", (
            "Rehearsals are chaos, but the cast are lovely and we laugh constantly.", f"I run my lines for {title} in "
            "the shower every morning.", "We had our first costume fitting. I look ridiculous and I love it."),
            where[-1] - 1)
    def b3() -> None:
        w, ans, _ = c.past()
        t = c.say(p, f"Opening night was {w}! I forgot one line and nobody noticed. Standing ovation!" + c.tail())
        c.say(o, f"{c.good(p)} Wish I could have been there.")
        c.q(2, f"When did {p.name}'s play open?", [t], ans)
        c.q(1, c.alt(f"What part did {p.name} play, and how did opening night go?", f"What role did {p.name} have, "
                     "and how did the first performance go?"), [ids["t2"], t],
            f"{role}; standing ovation despite one forgotten line")
        c.q(3, c.alt(f"Would {p.name} be comfortable speaking in front of a crowd?", f"Would {p.name} audition for "
                     "another play?", f"Would {p.name} enjoy another night on stage?"), [ids["t2"], t],
            f"Likely yes; {p.she} acted in {title} on stage")
    return [b1, b2, b3]


KINDS: dict[str, tuple[int, Callable[[Chat, Person, Person, list[int]], list[Beat]]]] = {
    "pet": (3, pet), "hobby": (3, hobby), "race": (2, race), "job": (4, job), "trip": (2, trip),
    "sibling": (2, sibling), "move": (2, move), "kids": (2, kids), "play": (3, play)}
SHARED = ("pet", "hobby", "trip", "sibling")
OWN = ("race", "job", "move", "kids", "play")


# ------------------------------------------------------------------------------------------------ assembling

def _schedule(rng: random.Random, n_sessions: int, beats: int, busy: list[int], first: int = -1) -> list[int]:
    """Sessions of a storyline's beats: increasing, at least two apart, at most three beats in a session."""
    for _ in range(200):
        out = [first if first >= 0 else rng.randrange(0, max(1, n_sessions - 2 * beats))]
        for _ in range(beats - 1):
            out.append(out[-1] + rng.randrange(2, max(3, (n_sessions - out[0]) // beats + 1)))
        if out[-1] < n_sessions and all(busy[s] < 3 for s in out):
            return out
    return sorted(rng.sample(range(n_sessions), beats))


def _global_questions(c: Chat) -> None:
    """Multi-hop questions across storylines and across the two friends, from the notes."""
    na, nb = c.a.name, c.b.name
    for tag, q1, q2 in (("pet", "What pets do {a} and {b} have?", "What animals did {a} and {b} adopt?"),
                        ("trip", "Which places did {a} and {b} visit?", "Where did {a} and {b} go on their trips?")):
        xa, xb = c.notes.get((na, tag)), c.notes.get((nb, tag))
        if xa and xb:
            c.q(1, c.alt(q1, q2).format(a=na, b=nb), [xa[0][0], xb[0][0]], f"{na}: {xa[0][1]}; {nb}: {xb[0][1]}")
    for p in (c.a, c.b):
        for tag, q1, q2 in (("activity", "What does {p} do in {her} free time?",
                             "What has {p} signed up for this year?"),
                            ("trip", "Where has {p} travelled?", "Which trips has {p} been on?")):
            xs = c.notes.get((p.name, tag), [])
            if len(xs) >= 2:
                c.q(1, c.alt(q1, q2).format(p=p.name, her=p.her), [t for t, _ in xs], ", ".join(v for _, v in xs))


def _scene(c: Chat, p: Person) -> bool:
    k = c.deal("scene", len(SCENES), rounds=4)  # each scene at most four times per conversation
    if k < 0:
        return False
    values, lines = SCENES[k]
    x, j = values[c.deal(f"scene{k}", len(values))], c.rng.randrange(2)
    x = c.friend() if x == "{person}" else x
    slots = {"x": x, "spot": c.alt(*SPOT), "when": c.alt(*WHEN), "name": c.friend()}
    said = [line.split(" | ")[j % len(line.split(" | "))].format(**slots) for line in lines]
    c.turns(p, *[s[0].upper() + s[1:] for s in said])
    return True


def _muse(c: Chat, p: Person, reflect: bool = False) -> bool:
    """A thought of p's and the other's reply; or, after good news (``reflect``), the other asks how it feels."""
    k = c.deal("reflect" if reflect else "muse", len(REFLECT if reflect else MUSE), rounds=1)
    if k >= 0:
        c.turns(c.other(p), c.alt(*REFLECT_Q), REFLECT[k]) if reflect else c.turns(p, *MUSE[k])
    return k >= 0


def _take(c: Chat, p: Person, asked: bool) -> tuple[str, str]:
    """The question and one unused line of one of p's open storyline threads (("", "") if none); a line
    answering the question may call the topic "it"."""
    open_ = [t for t in c.threads.get(p.name, []) if t.lines and t.until >= c.session and t.last < c.session]
    if not open_:
        return "", ""
    th = c.rng.choice(open_)
    it = asked and th.topic[0].islower() and c.rng.random() < 0.2  # not for a pet's name
    th.last, line = c.session, th.lines.pop().format(t="it" if it else th.topic)
    return th.question, line[0].upper() + line[1:]


def _echo(c: Chat, p: Person) -> bool:
    """The other friend asks about one of p's storylines; p answers with news holding no asked fact, and sometimes
    asks back, which the other answers with news of their own."""
    o, (q, line) = c.other(p), _take(c, p, True)
    if not q:
        return False
    lead = c.alt(*ECHO_LEAD)
    c.say(o, lead.format(q=q if lead.startswith("{") else q[0].lower() + q[1:]))
    mine = _take(c, o, False)[1] if c.rng.random() < 0.5 else ""
    c.say(p, f"{c.alt(*ECHO_A)} {line}{c.extra(NEUTRAL_TAIL, 0.45)}{c.extra(QBACK, 1.0) if mine else ''}")
    if mine or c.rng.random() < 0.55:
        c.say(o, f"{c.alt(*MEH)} {c.alt(*ME_TOO)} {mine}" if mine else c.alt(*MEH) + c.extra(SUPPORT_ANY, 0.95))
    return True


def generate_reunion_chat(seed: int) -> Conversation:
    """One two-friend conversation: 23-30 dated sessions, storylines told in pieces, LoCoMo-style questions."""
    rng = random.Random(seed)
    (na, ga), (nb, gb) = rng.sample(FRIENDS, 2)
    flip = rng.randrange(2)
    a, b = Person(na, ga, "user", flip), Person(nb, gb, "assistant", 1 - flip)
    n_sessions = rng.randrange(23, 31)
    days = [datetime(rng.choice((2022, 2023)), rng.randrange(1, 7), rng.randrange(1, 28), rng.randrange(8, 22),
                     rng.randrange(60))]
    while len(days) < n_sessions:
        gap = rng.randrange(20, 42) if rng.random() < 0.18 else rng.randrange(2, 13)
        days.append((days[-1] + timedelta(days=gap)).replace(hour=rng.randrange(8, 23), minute=rng.randrange(60)))
    c = Chat(rng, a, b, days)
    for p in (a, b):
        p.partner = c.person(rng.choice("fm")) if rng.random() < 0.6 else ""
    own = rng.sample(OWN, 5)
    picks = {a.name: list(SHARED) + own[:3], b.name: [k for k in SHARED if rng.random() < 0.85] + own[3:]}
    plan: list[list[tuple[Person, Beat]]] = [[] for _ in range(n_sessions)]
    busy = [0] * n_sessions
    for p in (a, b):
        kinds = picks[p.name] + (["trip"] if rng.random() < 0.3 else [])
        p.trips = kinds.count("trip")
        rng.shuffle(kinds)
        for i, kind in enumerate(kinds):
            nbeats, fn = KINDS[kind]
            where = _schedule(rng, n_sessions, nbeats, busy, (0 if p is a else rng.randrange(2)) if i == 0 else -1)
            for s, beat in zip(where, fn(c, p, c.other(p), [s + 1 for s in where])):
                plan[s].append((p, beat))
                busy[s] += 1
    goal = rng.randrange(56000, 68000)  # characters in all (about 3.9 per token)
    for s in range(n_sessions):
        c.log.start_session(days[s])
        start, fillers = len(c.history), 0
        target = (goal - sum(len(t["content"]) for t in c.history)) / (n_sessions - s) * rng.uniform(0.6, 1.4)
        first = rng.choice((a, b))
        if rng.random() < 0.55 or not plan[s]:
            c.turns(first, f"{rng.choice(GREET)} {rng.choice(OPEN_Q)}".format(o=c.other(first).name),
                    f"{rng.choice(OPEN_R)} {rng.choice(OPEN_R2)}")
        else:
            c.prefix = rng.choice(GREET)
        for p, beat in plan[s]:
            c.glad = True
            beat()
            if c.glad and rng.random() < 0.35:
                _muse(c, p, reflect=True)
            if rng.random() < 0.5:
                _echo(c, rng.choice((a, b)))
        c.prefix = ""
        cap = 638 - 12 * (n_sessions - s - 1)
        while sum(len(t["content"]) for t in c.history[start:]) < target - 150 and len(c.history) < cap:
            p = rng.choice((a, b))
            if rng.random() < 0.7 and _echo(c, p):
                continue
            fillers += 1  # at most one thought and three small-talk scenes a session
            if not (fillers == 1 and _muse(c, p)) and not (fillers <= 3 and _scene(c, p)) and not _echo(c, p) \
                    and not _echo(c, c.other(p)):
                break
        closer = rng.choice((a, b))
        c.turns(closer, f"Anyway, {rng.choice(CLOSE_WHY)}. {rng.choice(CLOSE_BYE)}".format(o=c.other(closer).name),
                f"{rng.choice(CLOSE_R)} {rng.choice(CLOSE_R2)}".format(o=closer.name))
    _global_questions(c)
    return c.log.conversation(_choose_questions(rng, c.cands, c.history))


def _choose_questions(rng: random.Random, cands: list[Question], history: list[Turn]) -> list[Question]:
    """28-39 questions mixed like LoCoMo (about 30% single-hop, 25% multi-hop, 25% temporal, 20% inference)."""
    n, chosen = rng.randrange(28, 39), []
    pools = {k: [q for q in cands if q["category"] == k] for k in (4, 1, 2, 3)}
    for k, share in ((4, 0.30), (1, 0.25), (2, 0.25), (3, 0.20)):
        rng.shuffle(pools[k])
        chosen += pools[k][:round(n * share)]
        del pools[k][:round(n * share)]
    chosen += [q for k in (4, 2, 1, 3) for q in pools[k]][:max(0, n - len(chosen))]
    order = {t["id"]: i for i, t in enumerate(history)}
    twice = {q["question"] for q in chosen if sum(x["question"] == q["question"] for x in cands) > 1}
    chosen = [q for q in chosen if q["question"] not in twice]  # never ask an ambiguous question
    return sorted(chosen, key=lambda q: min(order[e] for e in q["evidence"]))


def reunion_chat_set(seeds: tuple[int, ...], split: str) -> DevSet:
    """Three conversations per seed (``seed * 100 + k``, k = 0..2), named "en-reunion"."""
    return seeded_set("en-reunion", split, seeds, 3, generate_reunion_chat)
