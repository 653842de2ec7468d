"""``en-longchat``: long two-speaker chats in the LoCoMo shape, written independently as an unseen check.

Two named friends talk in 20-28 dated sessions spread over several months (15-35 turns a session,
400-600 turns and 12-20k tokens a conversation). Each speaker lives about eight storylines (a pet, a
job, a hobby class, a trip, training for a race, family news, a purchase, volunteering, a garden, a
book, a course, a move), each told in two or three beats that fall in different sessions: a beat is a
short exchange where one speaker tells, the other reacts and asks, and the fact often sits in the reply
to that question ("What's her name?" / "Juniper. She's a corgi mix..."). Around the beats: greetings,
small talk, reactions, "how's X doing?" references back, and closings. Both speakers draw from the same
storyline kinds with different facts, so a question's topic words match the other speaker's turns too.

Questions carry LoCoMo's category numbers: 4 single-hop, 1 multi-hop (evidence in two or more
sessions), 2 temporal (the answer is a date worked out from the session date and a relative phrase in
the evidence such as "last Saturday"), 3 open-domain inference ("Would X likely ...?"). Many questions
are worded apart from their evidence ("bring home" for "adopted", "pup" for "dog").

Conversations are fed as conv-26 is: role ``user`` for speaker A and ``assistant`` for speaker B,
content ``"<speaker>: <text>"``, the session's datetime as ``timestamp``, ids ``D<session>:<turn>``.

All templates, names and values here are our own, written for this module (CC0); no LoCoMo text.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from .model import Conversation, DevSet, Question
from .writer import ChatWriter, question, seeded_set

__all__ = ["CONVERSATIONS_PER_SEED", "generate_long_chat", "long_chat_set", "validate"]

CONVERSATIONS_PER_SEED = 3
P_DIRECT = 0.85          # a question takes its first (direct) wording with this chance, else a paraphrase
T = TypeVar("T")
ME, YOU = 0, 1

# --- people -------------------------------------------------------------------------------------------

SPEAKERS = [("Nina", "f"), ("Priya", "f"), ("Aisha", "f"), ("Hannah", "f"), ("Lucia", "f"), ("Freya", "f"),
            ("Zara", "f"), ("Rosa", "f"), ("Mei", "f"), ("Ingrid", "f"), ("Amara", "f"), ("Chloe", "f"),
            ("Omar", "m"), ("Jonas", "m"), ("Mateo", "m"), ("Kenji", "m"), ("Dev", "m"), ("Tomas", "m"),
            ("Eli", "m"), ("Marcus", "m"), ("Felix", "m"), ("Ravi", "m"), ("Hugo", "m"), ("Samir", "m")]
SIDE_F = ["Tessa", "Leah", "Maren", "Gloria", "Ivy", "Noor", "Bea", "Carmen", "Daria", "Elsa", "Fiona", "Hana"]
SIDE_M = ["Theo", "Luca", "Aaron", "Bruno", "Caleb", "Diego", "Emil", "Gus", "Idris", "Jasper", "Kofi", "Leon"]
PRON = {"f": ("she", "her", "her"), "m": ("he", "him", "his")}

# --- glue: small talk, reactions, padding ---------------------------------------------------------------

GREET = ["Hey {o}! It's been a minute. How have you been?", "Hi {o}! Hope your week's going okay.",
         "{o}! Finally, I've been meaning to message you all week.", "Morning {o}! Got a sec to catch up?",
         "Hey hey {o}, how's life treating you?", "Hi {o}, sorry I went quiet for a bit. What's new?"]
GREET_BACK = ["Hey {o}! Good to hear from you. Busy, but good. You?", "Hi {o}! All good here, mostly. How about you?",
              "{o}! I was just thinking about you. I'm doing alright!", "Hey! Always have a sec for you. What's up?",
              "Hi {o}! Life's been a lot, but in a good way. You first!"]
CLOSE = ["Okay, I have to run, but this was lovely. Talk soon!", "I should get going. Take care of yourself, okay?",
         "Gotta go make dinner. Chat later this week?", "Alright, my battery's dying. Speak soon!",
         "I'll let you go. Thanks for the chat, I needed it.", "Time for bed over here. Night, {o}!"]
CLOSE_BACK = ["Bye {o}! Talk soon.", "You too! Take care.", "Always. Catch you later!", "Night! Chat soon.",
              "Same here, it was so good to catch up. Bye!", "Yes, later this week. Take care, {o}!"]
POS = ["That's amazing!", "So proud of you!", "Wow, that's huge!", "Oh, I love that!", "That's so exciting!",
       "Yay, that's wonderful news!", "Amazing, good for you!", "That's fantastic, seriously."]
NEG = ["Oh no, I'm so sorry.", "Ugh, that sounds rough.", "Oh no! That's awful.", "Yikes, that must have been stressful.",
       "Aw, I'm sorry you had to deal with that."]
THANKS = ["Thanks, that means a lot!", "Haha thank you!", "Thanks! I'm pretty pleased with it.",
          "Aw, thanks. You're the best.", "Thank you! I'm still kind of buzzing."]
PAD = ["Honestly, it's been such a whirlwind.", "I keep thinking about it.", "Life's been a lot lately, but in a good way.",
       "Still can't quite believe it.", "It made my whole week.", "I didn't expect to feel so emotional about it.",
       "Anyway, that's my big news.", "It's the little things, right?", "I'll tell you more next time.",
       "My head's still spinning a bit.", "It was one of those days you remember.", "I'm trying to take it one step at a time."]
# Elaboration appended to turns: what makes chat turns long and chatty without adding facts.
ELAB = ["It's so important to make time for the things that make you happy.", "You always know how to make me smile.",
        "I've been trying to be better about appreciating moments like that.", "Sometimes you just need a reminder of what really matters.",
        "I feel like I've grown so much this year, in ways I didn't expect.", "Having people in my corner makes such a difference.",
        "I'm learning to be patient with myself, which is harder than it sounds.", "Funny how things work out when you stop overthinking.",
        "Honestly, talking to you always helps me sort my thoughts out.", "I wish we could just grab a coffee and talk for hours.",
        "It's been a reminder to slow down and enjoy the ride.", "I keep telling myself to enjoy it while it lasts.",
        "It's wild how much can change in a few weeks.", "Part of me is nervous, but mostly I'm excited.",
        "I'm so grateful for the little wins lately.", "I'm trying not to get ahead of myself though.",
        "You know me, I always have to jump in with both feet.", "It's the kind of thing that stays with you.",
        "I've been smiling about it all day, no joke.", "That's what makes it all worth it in the end.",
        "We should celebrate properly next time we see each other.", "I hope you're taking care of yourself too.",
        "Life has a way of surprising you, doesn't it?", "It feels good to have something to look forward to.",
        "I really needed a win like that.", "Let's keep cheering each other on, okay?", "You inspire me more than you know.",
        "I've learned to just go with the flow a bit more.", "I still have to pinch myself sometimes.",
        "It's been a bit of a rollercoaster, to be honest.", "Keep me posted, I want to hear everything.",
        "Tell me if you ever need anything, seriously.", "I'm always here if you want to vent.",
        "That takes a lot of courage, you know.", "I admire how you handle everything that comes your way.",
        "I think we both deserve a break after the year we've had.", "Little by little, it's all coming together.",
        "I can't wait to see what's next for you.", "It's nice to share this stuff with someone who gets it.",
        "I'm trying to savor it instead of rushing to the next thing."]
PROMPT = ["So what's new with you?", "Enough about me, how are things on your end?", "How's everything with you?",
          "Anything exciting happening with you?", "What have you been up to?", "Your turn, what's going on with you?"]
# Small-talk exchanges: (opener, reply, optional follow-up by the opener).
SMALL = [
    ("The weather has been so gloomy here all week.", "Same! I've basically been living in sweatpants.", "Honestly, the best way to live."),
    ("Have you been watching anything good lately?", "Just a silly baking competition. It's weirdly calming.", "Ha, I love those shows."),
    ("I've had way too much coffee today.", "Haha, I've been there. Is it one of those days?", "One of those weeks, really."),
    ("I slept terribly last night.", "Oh no, noisy neighbors again?", "No, just my brain refusing to switch off."),
    ("Work has been absolutely nonstop.", "Ugh, I feel that. Remember to take breaks!", "Trying to, I promise."),
    ("I finally cleaned out my closet.", "Ooh, that feels so good, doesn't it?", "So good. I found a jacket I forgot I owned."),
    ("My neighbor's dog barked all night again.", "Ugh, that's the worst. Did you say anything?", "Not yet, I'm working up to it."),
    ("I tried a new café near my place.", "Nice! Any good?", "The pastries were great, the coffee was meh."),
    ("Do you have plans for the weekend?", "Nothing big, mostly resting. You?", "Same, maybe a long walk if it's sunny."),
    ("I've been listening to old playlists from college.", "Ha, that's a trip down memory lane.", "So much cringe, so much fun."),
    ("Traffic was a nightmare this morning.", "Ugh, roadworks everywhere lately.", "Right? I almost turned around and went home."),
    ("I've been trying to drink more water.", "Good for you! I always forget.", "I set alarms now, it's ridiculous."),
    ("It's been so hot lately, I can't sleep.", "Same here, the fan runs all night.", None),
    ("I burned my dinner again, haha.", "Haha, cereal for dinner then?", "Exactly what happened."),
    ("Do you ever feel like the year is flying by?", "All the time. Where did the spring go?", "No idea, honestly."),
    ("My phone screen cracked yesterday.", "Oh no! Can it be fixed?", "Yeah, it's just annoying."),
    ("Thanks for always listening, by the way.", "Of course! That's what friends are for.", "Still, it means a lot."),
    ("I've been thinking about getting more organized.", "Planner era?", "Planner era. Let's see how long it lasts."),
]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def fmt(d: datetime) -> str:
    return f"{d.day} {d:%B} {d.year}"


WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def relative(rng: random.Random, d: datetime) -> tuple[str, str]:
    """A relative time phrase for an event before ``d`` and the date it means (LoCoMo's answer style)."""
    k = rng.randrange(6)
    if k == 0:
        return "yesterday", fmt(d - timedelta(days=1))
    if k == 1:
        w = rng.randrange(7)
        back = (d.weekday() - w) % 7 or 7
        return f"last {WEEKDAYS[w]}", fmt(d - timedelta(days=back))
    if k == 2:
        return "last weekend", f"the weekend before {fmt(d)}"
    if k == 3:
        return "last week", f"the week before {fmt(d)}"
    if k == 4:
        return "two days ago", fmt(d - timedelta(days=2))
    prev = d.replace(day=1) - timedelta(days=1)
    return "last month", f"{prev:%B} {prev.year}"


# --- storylines -----------------------------------------------------------------------------------------

@dataclass
class Line:
    who: int                     # ME (the storyline's owner) or YOU (the other speaker)
    text: str
    keys: list[str] = field(default_factory=list)


@dataclass
class PendingQ:
    category: int
    question: str
    answer: str
    keys: list[str]
    cues: list[str]              # words that must appear in the evidence turns


@dataclass
class Story:
    """One speaker's storyline while it is written: beats (lines) and the questions about them."""

    rng: random.Random
    sid: str
    name: str
    other: str
    gender: str
    dates: list[datetime]
    side: Callable[[str], str]
    used: set[object]            # facts already given to someone in this conversation
    beats: list[list[Line]] = field(default_factory=list)
    questions: list[PendingQ] = field(default_factory=list)
    themes: list[tuple[str, str, str, str]] = field(default_factory=list)   # (theme, phrase, key, cue)

    @property
    def he(self) -> str:
        return PRON[self.gender][0]

    @property
    def him(self) -> str:
        return PRON[self.gender][1]

    @property
    def his(self) -> str:
        return PRON[self.gender][2]

    def pick(self, xs: Sequence[str]) -> str:
        return self.rng.choice(list(xs))

    def fact(self, pool: Sequence[T]) -> T:
        """A value of ``pool`` nobody in this conversation has yet (the two speakers' facts differ)."""
        x = self.rng.choice([x for x in pool if x not in self.used])
        self.used.add(x)
        return x

    def beat(self) -> list[Line]:
        self.beats.append([])
        return self.beats[-1]

    def me(self, text: str, key: str | None = None) -> None:
        self.beats[-1].append(Line(ME, text, [f"{self.sid}.{key}"] if key else []))

    def you(self, text: str, key: str | None = None) -> None:
        self.beats[-1].append(Line(YOU, text, [f"{self.sid}.{key}"] if key else []))

    def pad(self, text: str, p: float = 0.5) -> str:
        return f"{text} {self.pick(PAD)}" if self.rng.random() < p else text

    def q(self, category: int, wordings: Sequence[str], answer: str, keys: Sequence[str],
          cues: Sequence[str] | None = None) -> None:
        w = wordings[0] if len(wordings) == 1 or self.rng.random() < P_DIRECT else self.pick(wordings[1:])
        self.questions.append(PendingQ(category, w, answer, [f"{self.sid}.{k}" for k in keys],
                                       list(cues) if cues is not None else [answer]))

    def when(self, i: int) -> tuple[str, str]:
        return relative(self.rng, self.dates[i])

    def theme(self, theme: str, phrase: str, key: str, cue: str | None = None) -> None:
        self.themes.append((theme, phrase, f"{self.sid}.{key}", cue or phrase))


PETS = [("dog", "corgi mix", "pup"), ("dog", "border collie", "pup"), ("dog", "beagle", "pup"),
        ("dog", "greyhound", "pup"), ("dog", "dachshund", "pup"), ("cat", "tabby", "kitty"),
        ("cat", "Maine Coon", "kitty"), ("cat", "Siamese", "kitty"), ("rabbit", "lop-eared rabbit", "bunny")]
PET_NAMES = ["Biscuit", "Juniper", "Mochi", "Pickles", "Ziggy", "Olive", "Rocket", "Maple", "Nugget", "Clementine",
             "Waffles", "Pepper", "Bramble", "Noodle"]
PET_SOURCE = ["the shelter on Elm Street", "a rescue group", "a neighbor whose dog had a litter", "a farm outside town",
              "an adoption fair at the park"]
PET_TROUBLE = [("swallowed a sock", "surgery"), ("got an ear infection", "ear drops"), ("hurt a paw on broken glass", "stitches"),
               ("ate half a chocolate bar", "charcoal"), ("had an allergic reaction", "antihistamines")]
PET_TRICK = ["roll over", "high five", "ring a bell when it wants to go out", "play dead", "fetch the newspaper"]


def story_pet(s: Story) -> None:
    species, breed, nick = s.fact(PETS)
    name = s.fact(PET_NAMES)
    source = s.fact(PET_SOURCE)
    rel, date = s.when(0)
    s.beat()
    s.me(s.pick([f"Big news: we adopted a {species} {rel}! We got her from {source}.",
                 f"So {rel} we finally brought home a {species} from {source}. I'm obsessed."]), "adopt")
    s.you(s.pick(["No way!! What's her name?", "Aww, that's the best news! What did you call her?",
                  "Oh my gosh, I need to meet her. Name?"]))
    s.me(s.pick([f"{name}! She's a {breed}, about a year old.", f"We named her {name}. She's a little {breed} with the goofiest ears.",
                 f"Her name is {name}, and she's a {breed} {species}."]),
         "name")
    s.you(s.pick(POS) + f" {name} is a perfect name.")
    s.me(s.pad(s.pick(["Right? She already owns the couch.", "She's already figured out where the treats live."])))
    s.q(4, [f"What is the name of {s.name}'s {species}?", f"What did {s.name} call the {nick} {s.he} brought home?"],
        name, ["name"])
    s.q(4, [f"What breed is {name}?", f"What kind of {species} is {s.name}'s {nick}?"], breed, ["name"])
    s.q(2, [f"When did {s.name} adopt {name}?", f"When did {s.name} bring a {species} home?"], date, ["adopt"], [rel])
    s.q(4, [f"Where did {s.name} get {s.his} {species} from?"], source, ["adopt"])
    trouble, fix = s.fact(PET_TROUBLE)
    rel2, date2 = s.when(1)
    s.beat()
    s.you(s.pick([f"How's {name} doing?", f"How's my favorite {species}?", f"Any {name} updates?"]))
    s.me(s.pick([f"Ugh, don't ask. {name} {trouble} and we rushed to the vet {rel2}.",
                 f"Scary week, honestly. She {trouble}, so {rel2} was an emergency vet visit."]), "vet")
    s.you(s.pick(NEG) + " Is she okay now?")
    s.me(s.pad(s.pick([f"She's fine! She needed {fix}, and she's back to bossing everyone around.",
                       f"Yeah, {fix} and a lot of cuddles. She's recovering."])), "fix")
    s.you("Give her a big hug from me.")
    s.q(4, [f"Why did {s.name} take {name} to the vet?", f"What happened to {s.name}'s {nick} that needed a vet?"],
        trouble, ["vet"])
    s.q(2, [f"When did {name} have to go to the vet?", f"When was {s.name}'s emergency vet visit?"], date2, ["vet"], [rel2])
    trick = s.pick(PET_TRICK)
    s.beat()
    s.me(s.pad(s.pick([f"Okay, proud {species} parent moment: {name} learned to {trick}!",
                       f"You'll laugh, but I spent all weekend teaching {name} to {trick} and she finally did it."])),
         "trick")
    s.you(s.pick(["Haha, what a smart girl!", "Genius. Video please!", "Stop, that's adorable."]))
    s.me("I'll send you one. She's very pleased with herself.")
    s.q(4, [f"What trick did {name} learn?", f"What did {s.name} teach {s.his} {nick}?"], trick, ["trick"])
    s.q(1, [f"What has {s.name}'s {species} {name} been through since {s.name} adopted her?", f"What do we know about {s.name}'s {nick}?"],
        f"{trouble}, learned to {trick}", ["adopt", "vet", "trick"], [species, trouble, trick])
    s.q(3, [f"Would {s.name} likely book pet-friendly hotels so the {species} can come along?",
            f"Would {s.name} likely look for a pet-friendly place when traveling?",
            f"Is {s.name} likely an animal lover?"], f"Likely yes; {s.he} adopted {name} and dotes on her",
        ["adopt", "trick"], [name])
    s.theme("family", f"{name} the {species}", "name", name)


JOBS = [("nurse", "St. Anne's Hospital", "charge nurse", "a new patient handover checklist"),
        ("software developer", "a fintech startup called Ledgerly", "team lead", "a mobile app for paying rent"),
        ("high school teacher", "Westbrook High", "head of the science department", "a robotics club"),
        ("architect", "a small firm called Hollis & Vale", "project architect", "a library renovation"),
        ("chef", "a bistro called Saffron Table", "sous chef", "a new autumn tasting menu"),
        ("accountant", "a logistics company", "finance manager", "moving the books to a new system"),
        ("graphic designer", "a branding agency", "art director", "a rebrand for a coffee chain"),
        ("physiotherapist", "a sports clinic", "clinic lead", "a knee rehab program for runners")]
CITIES = ["Lisbon", "Denver", "Montreal", "Edinburgh", "Austin", "Seoul", "Melbourne", "Prague", "Cape Town", "Oslo"]


def story_job(s: Story) -> None:
    job, place, role, project = s.fact(JOBS)
    boss = s.side("f" if s.rng.random() < 0.5 else "m")
    s.beat()
    s.you(s.pick(PROMPT))
    s.me(s.pad(s.pick([f"I got the promotion! I'm officially {role} now.",
                       f"So... remember that interview? They offered me the promotion to {role}!"])), "promo")
    s.you(s.pick(POS) + " Where again? I always forget.")
    s.me(s.pick([f"At {place}. I've worked there as a {job} for four years, so it feels surreal.",
                 f"Same place I work now, {place}. Four years in the job as a {job} and now this.",
                 f"I still work at {place}. I started there as a {job} four years ago!"]), "where")
    s.you("You totally earned it.")
    s.me(s.pick(THANKS))
    s.q(4, [f"What role did {s.name} get with the promotion?", f"What is {s.name}'s new role at work?",
            f"What position was {s.name} moved up to?"], role, ["promo"])
    s.q(4, [f"Where does {s.name} work?", f"Which employer has {s.name} been with for years?"], place, ["where"])
    s.q(4, [f"What does {s.name} do for a living?", f"What was {s.name}'s job before the promotion?"], job, ["where"])
    s.beat()
    s.me(s.pick([f"Work is intense. I'm leading {project} and my manager {boss} wants it done by the end of the quarter.",
                 f"My new boss, {boss}, put me in charge of {project}. No pressure, right?"]), "project")
    s.you(s.pick(["You'll crush it. How's the team?", "That's a lot! Is the team good at least?"]))
    s.me(s.pad("The team is great, thankfully. Long days though."))
    s.q(4, [f"What project is {s.name} leading at work?", f"What was {s.name} put in charge of after {s.his} promotion?"],
        project, ["project"])
    s.q(4, [f"Who is {s.name}'s manager?", f"What's the name of {s.name}'s boss?"], boss, ["project"])
    city = s.fact(CITIES)
    rel, date = s.when(2)
    s.beat()
    s.you(s.pick(["How did the big project wrap up?", "Did the project at work ever get finished?"]))
    s.me(s.pick([f"It did! They even flew me to a conference in {city} {rel} to present it.",
                 f"Finished! And {rel} I presented it at a conference in {city}, which was terrifying."]), "conf")
    s.you(s.pick(["Look at you, international speaker!", "Wow! How did the talk go?"]))
    s.me(s.pad(s.pick(["My hands were shaking, but people asked good questions.", "Better than I feared! I even got applause."])))
    s.q(2, [f"When did {s.name} present at a conference?", f"When did {s.name} give {s.his} talk in {city}?"],
        date, ["conf"], [rel])
    s.q(4, [f"Where was the conference {s.name} spoke at?", f"Which city did {s.name} travel to for work?"], city, ["conf"])
    s.q(1, [f"How did {s.name}'s work go after the promotion, from the project to the conference?",
            f"What happened in {s.name}'s career this year?", f"How has {s.name}'s work life changed over these months?"],
        f"promoted to {role}, led {project}, presented in {city}", ["promo", "project", "conf"], [role, project, city])
    s.theme("places", city, "conf")


HOBBIES = [("pottery", "a pottery class at the community center", "a lopsided blue mug", "sold three bowls at the winter craft fair"),
           ("guitar", "guitar lessons on Thursday evenings", "a wobbly version of a lullaby", "played two songs at an open mic night"),
           ("bouldering", "a beginners' bouldering course", "my first purple route", "climbed outdoors on real rock at the quarry"),
           ("watercolor painting", "a watercolor workshop at the library", "a painting of the harbor at dusk",
            "got two paintings hung in a local café"),
           ("woodworking", "a woodworking course at the maker space", "a small walnut bookshelf", "built a cedar bench for the garden"),
           ("salsa dancing", "salsa classes with a friend", "a full routine without stepping on anyone", "danced in the studio's spring showcase"),
           ("knitting", "a knitting circle at the yarn shop", "a striped scarf", "finished a baby blanket for my cousin"),
           ("photography", "an evening photography course", "a roll of black-and-white street photos", "won second place in a photo contest")]


def story_hobby(s: Story) -> None:
    hobby, course, first, show = s.fact(HOBBIES)
    rel, date = s.when(0)
    s.beat()
    s.me(s.pad(s.pick([f"I did something brave: I signed up for {course} {rel}.",
                       f"New hobby alert! {cap(rel)} I started {course}."])), "signup")
    s.you(s.pick([f"Ooh, {hobby}! What made you try it?", "Love that! What got you into it?"]))
    why = s.pick(["keeps my hands busy and my phone out of reach", "gets me away from screens for a few hours"])
    s.me(s.pick([f"I needed something that {why}.", f"I took up {hobby} because I needed something that {why}."]), "why")
    s.you(s.pick(POS))
    s.q(2, [f"When did {s.name} start {hobby}?", f"When did {s.name} sign up for {s.his} new class?"], date, ["signup"], [rel])
    s.q(4, [f"Why did {s.name} take up {hobby}?", f"What was {s.name} hoping to get out of the new hobby?"],
        why.replace("my", s.his), ["why"], [why])
    s.beat()
    s.you(s.pick([f"How's the {hobby} going?", "Are you still doing the class?"]))
    s.me(s.pad(s.pick([f"So well! Last session I made {first}. It's not perfect but it's mine.",
                       f"I finished my first real piece: {first}. I'm weirdly proud."])), "first")
    s.you(s.pick(["That's adorable, I want to see it!", "Everyone starts somewhere, and that sounds great."]))
    s.me("I'll bring it next time we meet.")
    s.q(4, [f"What was the first thing {s.name} made or did in {hobby}?",
            f"What was {s.name}'s first piece after starting the class?"], first, ["first"])
    s.beat()
    s.me(s.pad(s.pick([f"Guess who {show}? Me!", f"Okay, so the {hobby} thing got serious. I {show}."])), "show")
    s.you(s.pick(["Stop it! That's incredible.", "From beginner to this? So proud of you!"]))
    s.me(s.pick(THANKS))
    s.q(4, [f"What milestone did {s.name} reach in {hobby}?", f"What did {s.name} achieve with {s.his} hobby?"],
        show, ["show"])
    s.q(1, [f"What has {s.name} made or done in {hobby} so far?", f"How has {s.name} progressed since starting {s.his} class?"],
        f"{first}, {show}", ["first", "show"], [first, show])
    s.q(3, [f"Would {s.name} likely enjoy a weekend {hobby} retreat?", f"Is {s.name} likely to keep up {hobby}?"],
        f"Likely yes; {s.he} kept at it from the first class to: {show}", ["signup", "show"], [show])
    s.theme("activity", hobby, "signup", hobby.split()[0])


TRIPS = [("Portugal", "the Algarve coast", "kayaking into sea caves", "grilled sardines"),
         ("Japan", "Kyoto", "a tea ceremony in an old wooden house", "ramen at a tiny counter"),
         ("Iceland", "the south coast", "walking behind a waterfall", "lamb soup"),
         ("Mexico", "Oaxaca", "a mezcal tasting", "mole with chocolate"),
         ("Canada", "Banff", "canoeing on a turquoise lake", "poutine"),
         ("Scotland", "the Highlands", "hiking up a misty hill", "haggis, surprisingly good"),
         ("Greece", "Crete", "snorkeling in a hidden cove", "fresh feta pies"),
         ("Vietnam", "Hoi An", "a lantern-making workshop", "banh mi from a street cart")]


def story_trip(s: Story) -> None:
    country, region, activity, food = s.fact(TRIPS)
    who = s.pick(["my sister", "my partner", "two friends from college", "my mom"])
    s.beat()
    s.me(s.pick([f"We booked it! {country} in a few weeks, with {who}.",
                 f"I finally booked a vacation. {country}, with {who}!"]), "plan")
    s.you(s.pick(["Ahh, jealous! Where exactly?", f"{country}! Which part?"]))
    s.me(s.pick([f"Mostly {region}. I've wanted to visit since I was a kid.", f"{region}. Everyone says it's magical to visit.",
                 f"We'll spend most of it in {region}, the part of {country} I've always wanted to see."]), "region")
    s.you("You have to send me pictures.")
    s.q(4, [f"Who did {s.name} travel to {country} with?", f"Who went on vacation with {s.name}?"], who, ["plan"])
    s.q(4, [f"Which part of {country} did {s.name} visit?", f"Where in {country} did {s.name} spend the holiday?"],
        region, ["region"])
    rel, date = s.when(1)
    s.beat()
    s.you(s.pick(["You're back! How was the trip?", f"Welcome home! Tell me everything about {country}."]))
    s.me(s.pick([f"We got back from {country} {rel} and I already miss it. The highlight was {activity}.",
                 f"Back since {rel}! Best part by far: {activity}.",
                 f"The trip was a dream. We flew home {rel}, and the thing I loved most was {activity}."]), "back")
    s.you(s.pick(["That sounds unreal. And the food?", "Wow. Did you eat well?"]))
    s.me(s.pad(s.pick([f"So well. I'm still dreaming about the food, the {food} especially.",
                       f"Don't get me started on the food. {cap(food)}, every day.",
                       f"The food was unreal, especially the {food}."])),
         "food")
    s.q(2, [f"When did {s.name} return from {country}?", f"When did {s.name} get back from vacation?"], date, ["back"], [rel])
    s.q(4, [f"What was the highlight of {s.name}'s trip?", f"What did {s.name} enjoy most while away in {country}?"],
        activity, ["back"])
    s.q(4, [f"What food did {s.name} love on the trip?", f"What dish is {s.name} still dreaming about?"], food, ["food"])
    s.q(1, [f"Who went to {country} with {s.name}, and what was the best part of the trip?",
            f"Who did {s.name} share {s.his} holiday with, and what stood out?"], f"{who}, {activity}", ["plan", "back"], [who, activity])
    s.q(3, [f"Would {s.name} likely go back to {country}?", f"Is {s.name} likely to enjoy traveling abroad again?"],
        f"Likely yes; {s.he} loved {activity}", ["back"], [activity])
    s.theme("places", region, "region")


RACES = [("half marathon", "2 hours and 4 minutes"), ("10k", "52 minutes"), ("marathon", "4 hours and 21 minutes"),
         ("sprint triathlon", "1 hour and 38 minutes"), ("trail race", "1 hour and 15 minutes")]
INJURIES = ["shin splints", "a twisted ankle", "a sore knee", "a pulled hamstring"]


def story_fitness(s: Story) -> None:
    race, time = s.fact(RACES)
    charity = s.pick(["a children's hospital", "the local food bank", "an animal shelter", "cancer research"])
    s.beat()
    s.me(s.pad(s.pick([f"I signed up for a {race}. Send help.", f"So I'm training for a {race}, which is a sentence I never expected to say."])),
         "signup")
    s.you(s.pick(["What?! That's awesome. What made you do it?", "Whoa, go you! Why now?"]))
    s.me(s.pick([f"I'm raising money for {charity}, so I can't back out now.", f"It's for charity, {charity}. Pressure's on!"]),
         "charity")
    s.you(s.pick(["Count me in as a donor.", "I'll sponsor you for sure."]))
    s.q(4, [f"What race did {s.name} train for?", f"What kind of event was {s.name} preparing for?"], race, ["signup"])
    s.q(4, [f"Who was {s.name} raising money for?", f"Which cause did {s.name}'s run support?"], charity, ["charity"])
    injury = s.fact(INJURIES)
    rel, date = s.when(1)
    s.beat()
    s.you(s.pick(["How's training?", f"Still on track for the {race}?"]))
    s.me(s.pick([f"Small training setback: I got {injury} on a long run {rel}.", f"Meh. {cap(rel)} I ended up injured with {injury}.",
                 f"Training was going great until {rel}, when I got injured: {injury}."]),
         "injury")
    s.you(s.pick(NEG) + " Are you resting?")
    s.me(s.pad("Ice, rest, and a lot of complaining. My physio says two weeks off."))
    s.q(4, [f"What injury did {s.name} get while training?", f"What slowed down {s.name}'s training?"], injury, ["injury"])
    s.q(2, [f"When did {s.name} get hurt running?", f"When did {s.name} pick up {injury}?"], date, ["injury"], [rel])
    rel3, date3 = s.when(2)
    s.beat()
    s.me(s.pick([f"I did it!! Finished the {race} {rel3} in {time}.", f"{cap(rel3)} was race day. {time}, and I didn't walk once!"]),
         "race")
    s.you(s.pick(["YES! So proud of you!", "That's amazing! After the injury too!"]))
    s.me(s.pad(s.pick(THANKS)))
    s.q(4, [f"What was {s.name}'s finishing time?", f"How long did it take {s.name} to finish the {race}?"], time, ["race"])
    s.q(2, [f"When did {s.name} run the {race}?", f"When was {s.name}'s race day?"], date3, ["race"], [rel3])
    s.q(1, [f"How did {s.name}'s {race} training go, from the injury to race day?",
            f"What were the ups and downs of {s.name}'s race?"],
        f"{injury}, finished in {time}", ["injury", "race"], [injury, time])
    s.theme("activity", f"running ({race})", "signup", race)


FAMILY_EVENTS = [("sister", "wedding", "a vineyard", "I gave a speech and cried through half of it"),
                 ("brother", "wedding", "a lake house", "I was the officiant, can you believe it"),
                 ("grandmother", "ninetieth birthday", "her favorite seafood restaurant", "we made her a photo album"),
                 ("dad", "retirement party", "the garden of his old office", "we gave him a fishing trip"),
                 ("cousin", "graduation", "the university square", "I brought a giant balloon")]


def story_family(s: Story) -> None:
    rel_name, event, venue, detail = s.fact(FAMILY_EVENTS)
    g = "f" if rel_name in ("sister", "grandmother", "cousin") else "m"
    person = s.side(g)
    s.beat()
    s.me(s.pick([f"Family drama, the good kind: my {rel_name} {person}'s {event} is coming up.",
                 f"I'm deep in planning mode for my {rel_name}'s {event}."]), "plan")
    s.you(s.pick(["Oh fun! Where's it going to be?", "Exciting! Where are you doing it?"]))
    s.me(s.pick([f"At {venue}. It's going to be gorgeous.", f"{venue[0].upper() + venue[1:]}, if the weather plays along.",
                 f"The {event} will be held at {venue}."]),
         "venue")
    s.you("That sounds perfect.")
    s.q(4, [f"Where was the {event} of {s.name}'s {rel_name} held?", f"What venue did {s.name}'s family pick for the {event}?"],
        venue, ["venue"])
    rel, date = s.when(1)
    s.beat()
    s.you(s.pick([f"How was the {event}?", f"Did the {event} go well?"]))
    s.me(s.pad(s.pick([f"Perfect. It was {rel} and {detail}.", f"So lovely. {cap(rel)}, the whole family, and {detail}.",
                       f"The {event} was {rel}, and it was beautiful: {detail}."])),
         "event")
    s.you(s.pick(["Aww, I'm tearing up just hearing it.", "That's so sweet."]))
    s.q(1, [f"Where was the {event} of {s.name}'s {rel_name}, and what did {s.name} do there?",
            f"Where did {s.name}'s family celebrate, and what was {s.name}'s part?"], f"{venue}, {detail}", ["venue", "event"],
        [venue, detail])
    s.q(2, [f"When was the {event} of {s.name}'s {rel_name}?", f"When did {s.name}'s family celebrate {person}?"],
        date, ["event"], [rel])
    s.q(4, [f"What did {s.name} do at the {event}?", f"What was {s.name}'s part in {person}'s celebration?"],
        detail, ["event"])
    s.theme("family", f"{rel_name} {person}" if person in s.beats[0][0].text else rel_name, "plan", rel_name)


PURCHASES = [("car", "a used green hatchback", "road trip to the coast"), ("bike", "a red gravel bike", "ride along the river"),
             ("camera", "a secondhand film camera", "photo walk downtown"), ("piano", "a digital piano", "first song at home"),
             ("sofa", "a huge mustard-yellow sofa", "movie night with friends"), ("kayak", "an inflatable kayak", "paddle on the lake")]


def story_purchase(s: Story) -> None:
    thing, which, first_use = s.fact(PURCHASES)
    s.beat()
    s.me(s.pick([f"I've been looking at a new {thing} for weeks, I can't decide.", f"Help, I'm shopping for a {thing} and it's overwhelming."]),
         "shop")
    s.you(s.pick(["Just get the one that makes you happy!", "Go with your gut. What's the budget?"]))
    s.me(s.pick(["Reasonable, I hope. I'll decide this weekend.", "Not huge. I'll keep you posted."]))
    rel, date = s.when(1)
    s.beat()
    s.me(s.pad(s.pick([f"I did it, I bought {which} {rel}!", f"Update on the {thing}: {rel} I went for {which}."])), "buy")
    s.you(s.pick(["Finally! Have you tried it out yet?", "Yay! First impressions?"]))
    s.me(s.pick([f"Yes, first thing I did was a {first_use}. Love it.", f"I celebrated with a {first_use}."]), "use")
    s.q(4, [f"What {thing} did {s.name} buy?", f"What did {s.name} end up getting after weeks of shopping?"], which, ["buy"])
    s.q(2, [f"When did {s.name} buy {s.his} {thing}?", f"When did {s.name} finally make the purchase?"], date, ["buy"], [rel])
    s.q(1, [f"What {thing} did {s.name} buy after shopping around, and what did {s.he} do with it first?",
            f"What did {s.name} go shopping for and what did {s.he} do with it first?"],
        f"{which}, {first_use}", ["shop", "buy", "use"], [thing, which, first_use])
    s.theme("bought", which, "buy")


VOLUNTEER = [("the food bank", "sorting donations on Saturdays", "we packed four hundred boxes"),
             ("an animal shelter", "walking dogs twice a week", "one of my dogs got adopted"),
             ("a literacy program", "reading with kids after school", "a shy boy read a whole page out loud"),
             ("a community garden", "running the compost rota", "we harvested forty pumpkins"),
             ("a hospice", "visiting patients on Sundays", "a patient taught me a card game")]


def story_volunteer(s: Story) -> None:
    where, task, moment = s.fact(VOLUNTEER)
    s.beat()
    s.me(s.pad(s.pick([f"I started volunteering at {where}. I'm {task}.", f"So I joined {where} as a volunteer, {task}."])), "start")
    s.you(s.pick(["That's so kind of you. How is it?", "Love that. What made you do it?"]))
    s.me(s.pick(["It's humbling. I leave feeling lighter every time.", "I wanted to give back. It's the best part of my week."]))
    s.q(4, [f"Where does {s.name} volunteer?", f"What organization does {s.name} give time to?"], where, ["start"])
    s.q(4, [f"What does {s.name} do as a volunteer?", f"What are {s.name}'s volunteer duties?"], task, ["start"])
    s.beat()
    s.you(s.pick(["Still doing the volunteering?", f"How's it going at {where}?"]))
    s.me(s.pick([f"Yes! Best moment so far: {moment}.", f"Every week. And this time {moment}, I nearly cried.",
                 f"I love volunteering there. The most memorable moment: {moment}."]), "moment")
    s.you(s.pick(["That's beautiful.", "You're making a real difference."]))
    s.q(4, [f"What memorable moment did {s.name} have while volunteering?"], moment, ["moment"])
    s.q(1, [f"Where does {s.name} volunteer, and what moment there stayed with {s.him}?"], f"{where}, {moment}",
        ["start", "moment"], [where, moment])
    s.q(3, [f"Would {s.name} likely volunteer at another community event?", f"Would {s.name} likely join a charity event?", f"Does {s.name} seem to care about giving back to the community?"],
        f"Likely yes; {s.he} volunteers at {where}", ["start", "moment"], [where])


GARDEN = [("tomatoes", "a balcony", "a tomato sauce from scratch"), ("strawberries", "raised beds", "strawberry jam"),
          ("chili peppers", "the windowsill", "hot sauce"), ("herbs", "a tiny backyard", "pesto"),
          ("zucchini", "an allotment plot", "zucchini bread")]


def story_garden(s: Story) -> None:
    crop, where, made = s.fact(GARDEN)
    s.beat()
    s.me(s.pick([f"I've started growing {crop} on {where}.", f"Gardening phase: {crop}, on {where}. Wish me luck."]), "grow")
    s.you(s.pick(["A green thumb! Anything sprouting yet?", "Ooh, homegrown! Have you grown stuff before?"]))
    s.me(s.pad(s.pick(["Tiny sprouts! I talk to them every morning.", "Never. I'm learning from videos."])))
    s.q(4, [f"What is {s.name} growing?", f"What crop did {s.name} plant?"], crop, ["grow"])
    s.beat()
    s.you(s.pick(["How's the garden?", f"How are the {crop} doing?"]))
    s.me(s.pick([f"Huge harvest! I turned it all into {made}.", f"So many! I made {made} and gave jars to the neighbors."]),
         "made")
    s.you(s.pick(["Save me some!", "Homemade, I'm impressed."]))
    s.q(4, [f"What did {s.name} make from {s.his} harvest?", f"What did {s.name} cook with the {crop}?"], made, ["made"])
    s.q(1, [f"What did {s.name} grow, and what did {s.he} make from the harvest?",
            f"What came out of {s.name}'s gardening, from planting to kitchen?"], f"{crop}, {made}", ["grow", "made"], [crop, made])
    s.q(3, [f"Would {s.name} likely enjoy a farmers' market?", f"Is {s.name} likely interested in cooking?"],
        f"Likely yes; {s.he} grows {crop} and made {made}", ["grow", "made"], [crop, made])


BOOKS = [("The Salt Road", "a sailor crossing the desert"), ("Quiet Engines", "a family running a repair shop"),
         ("Paper Lanterns", "two sisters reuniting after twenty years"), ("North of Tomorrow", "a climate scientist in the Arctic"),
         ("The Glass Orchard", "a village that grows glass fruit"), ("Small Hours", "a night-shift nurse")]


def story_book(s: Story) -> None:
    title, plot = s.fact(BOOKS)
    s.beat()
    s.you(s.pick(["Read anything good lately?", "Any book recommendations? I'm in a slump."]))
    s.me(s.pick([f"I'm halfway through a book called \"{title}\". It's about {plot}.",
                 f"Yes! I'm reading \"{title}\", about {plot}. I can't put it down.",
                 f"I'm reading a book called \"{title}\", the story of {plot}."]),
         "book")
    s.you("Adding it to my list!")
    s.q(4, [f"What book was {s.name} reading?", f"What novel did {s.name} recommend?"], title, ["book"])
    s.q(4, [f"What is the book {s.name} read about?", f"What's the story of \"{title}\"?"], plot, ["book"])
    s.beat()
    s.me(s.pick([f"Finished \"{title}\" and the ending wrecked me.", f"Okay the ending of \"{title}\"... I sobbed on the bus."]), "end")
    s.you(s.pick(["No spoilers! I just started it.", "Haha, was it worth it though?"]))
    s.me(s.pad("Totally worth it. Best book I've read this year."), "verdict")
    s.q(3, [f"Would {s.name} likely recommend \"{title}\" to a friend?"], f"Likely yes; {s.he} called it the best book {s.he} read this year",
        ["end", "verdict"], ["best book", title])


COURSES = [("nursing", "a night school program"), ("data science", "an online certificate"),
           ("interior design", "a part-time diploma"), ("Spanish", "evening language classes"),
           ("counseling", "a master's program"), ("landscape architecture", "a two-year course")]


def story_course(s: Story) -> None:
    subject, program = s.fact(COURSES)
    s.beat()
    s.me(s.pick([f"Can I tell you something? I've been thinking about going back to school for {subject}.",
                 f"I keep looking at {program} in {subject}. Is that crazy?",
                 f"I really want to study {subject}. There's {program} that looks perfect."]), "idea")
    s.you(s.pick(["Not crazy at all! You'd be great.", "Do it! What's stopping you?"]))
    s.me(s.pick(["Money, time, fear. The usual.", "Mostly nerves, honestly."]))
    rel, date = s.when(1)
    s.beat()
    s.me(s.pad(s.pick([f"I got in!! The acceptance letter for {program} came {rel}.",
                       f"{cap(rel)} I got accepted into {program}! I start in the fall."])), "accepted")
    s.you(s.pick(["I KNEW it! So proud of you!", "Congratulations! All that worrying for nothing."]))
    s.q(4, [f"What subject does {s.name} want to study?", f"What field is {s.name} going back to school for?"], subject, ["idea"])
    s.q(2, [f"When did {s.name} get accepted?", f"When did {s.name} hear back from the school?"], date, ["accepted"], [rel])
    s.q(1, [f"What did {s.name} want to study, and which program accepted {s.his} application?",
            f"What did {s.name} decide about going back to school, and how did it turn out?"], f"{subject}, {program}",
        ["idea", "accepted"], [subject, program])


HOMES = [("a two-bedroom flat", "Riverside", "a balcony with a view of the bridge"), ("a little house", "Oak Hill", "a big garden"),
         ("a loft", "the old mill district", "huge windows"), ("a cottage", "a village by the coast", "a fireplace"),
         ("an apartment", "Greenfield", "a kitchen big enough to dance in")]


def story_move(s: Story) -> None:
    kind, area, perk = s.fact(HOMES)
    s.beat()
    s.me(s.pick(["Apartment hunting is killing me. Everything is tiny or overpriced.", "We're moving! Well, trying to. The search is brutal."]),
         "hunt")
    s.you(s.pick(["Ugh, hang in there. What area are you looking at?", "The worst. Any leads?"]))
    s.me(s.pick([f"Mostly {area}. Fingers crossed.", f"There's a place in {area} I'm seeing tomorrow.",
                 f"{area[0].upper() + area[1:]} is my favorite neighborhood, so I'm looking there."]), "area")
    rel, date = s.when(1)
    s.beat()
    s.you(s.pick(["Did the moving happen?", "How's the new place?"]))
    s.me(s.pad(s.pick([f"We moved in {rel}! It's {kind} with {perk}.", f"Moved {rel}. {cap(kind)}, and it has {perk}.",
                       f"We moved into the new place {rel}! {cap(kind)} with {perk}."])),
         "moved")
    s.you(s.pick(POS) + " Housewarming when?")
    s.q(4, [f"Which neighborhood did {s.name} move to?", f"Where is {s.name}'s new home?"], area, ["area"])
    s.q(4, [f"What does {s.name} love about the new place?", f"What's special about {s.name}'s new home?"], perk, ["moved"])
    s.q(1, [f"Which neighborhood did {s.name} move to, and what kind of home is it?",
            f"Where did {s.name} end up living after the search, and in what kind of place?"], f"{area}, {kind}",
        ["area", "moved"], [area, kind])
    s.q(2, [f"When did {s.name} move?", f"When did {s.name} settle into the new place?"], date, ["moved"], [rel])


STORIES: list[tuple[Callable[[Story], None], int]] = [
    (story_pet, 3), (story_job, 3), (story_hobby, 3), (story_trip, 2), (story_fitness, 3), (story_family, 2),
    (story_purchase, 2), (story_volunteer, 2), (story_garden, 2), (story_book, 2), (story_course, 2), (story_move, 2)]


# --- assembly -------------------------------------------------------------------------------------------

def _schedule(rng: random.Random, n_sessions: int, needs: list[int], cap: int = 3) -> list[list[int]]:
    """For each storyline, its beats' sessions (increasing, distinct), at most ``cap`` beats a session."""
    for _ in range(200):
        load = [0] * n_sessions
        out: list[list[int]] = []
        ok = True
        for n in needs:
            free = [i for i in range(n_sessions) if load[i] < cap]
            if len(free) < n:
                ok = False
                break
            picks = sorted(rng.sample(free, n))
            for i in picks:
                load[i] += 1
            out.append(picks)
        if ok:
            return out
    raise RuntimeError("cannot schedule storylines")


def _small(rng: random.Random, who: int) -> list[Line]:
    a, b, c = rng.choice(SMALL)
    lines = [Line(who, a), Line(1 - who, b)]
    if c is not None and rng.random() < 0.6:
        lines.append(Line(who, c))
    return lines


def generate_long_chat(seed: int) -> Conversation:
    """One conversation: two speakers, 20-28 sessions, storylines told in beats, LoCoMo-style questions."""
    rng = random.Random(seed)
    (a, ga), (b, gb) = rng.sample(SPEAKERS, 2)
    names, genders = (a, b), (ga, gb)
    side_used: set[str] = set()
    used: set[object] = set()

    def side(g: str) -> str:
        pool = [n for n in (SIDE_F if g == "f" else SIDE_M) if n not in side_used]
        n = rng.choice(pool)
        side_used.add(n)
        return n

    n_sessions = rng.randint(21, 27)
    start = datetime(rng.choice([2022, 2023]), rng.randint(1, 6), rng.randint(1, 28), rng.randint(8, 21), rng.choice([3, 17, 31, 48]))
    dates = [start]
    for _ in range(n_sessions - 1):
        day = dates[-1] + timedelta(days=rng.randint(3, 14))
        dates.append(day.replace(hour=rng.randint(8, 22), minute=rng.randint(0, 59)))
    # Each speaker: eight storyline kinds; the two share some kinds (with different facts).
    kinds: list[tuple[int, Callable[[Story], None], int]] = []
    for sp in (0, 1):
        for f, n in rng.sample(STORIES, 8):
            kinds.append((sp, f, n))
    rng.shuffle(kinds)
    slots = _schedule(rng, n_sessions, [n for _, _, n in kinds])
    stories: list[tuple[int, Story, list[int]]] = []
    for k, ((sp, f, _n), sess) in enumerate(zip(kinds, slots)):
        st = Story(rng, f"s{k}", names[sp], names[1 - sp], genders[sp], [dates[i] for i in sess], side, used)
        f(st)
        assert len(st.beats) == len(sess), f.__name__
        stories.append((sp, st, sess))
    # Sessions: greeting, beats (each owner's lines mapped to absolute speakers) with small talk between, closing.
    per_session: list[list[list[Line]]] = [[] for _ in range(n_sessions)]
    for sp, st, sess in stories:
        for beat, i in zip(st.beats, sess):
            per_session[i].append([Line(ln.who if sp == 0 else 1 - ln.who, ln.text, ln.keys) for ln in beat])
    chat = ChatWriter()
    for i in range(n_sessions):
        blocks = per_session[i]
        rng.shuffle(blocks)
        target = rng.randint(16, 27)
        opener = rng.randrange(2)
        greet = [Line(opener, rng.choice(GREET).format(o=names[1 - opener])),
                 Line(1 - opener, rng.choice(GREET_BACK).format(o=names[opener]))]
        closer = rng.randrange(2)
        close = [Line(closer, rng.choice(CLOSE).format(o=names[1 - closer])),
                 Line(1 - closer, rng.choice(CLOSE_BACK).format(o=names[closer]))]
        middle: list[list[Line]] = [list(bl) for bl in blocks]
        while True:
            turns = _merge(greet + [ln for bl in middle for ln in bl] + close)
            if len(turns) >= target or len(turns) >= 35:
                break
            middle.insert(rng.randint(0, len(middle)), _small(rng, rng.randrange(2)))
        assert 15 <= len(turns) <= 35, len(turns)
        for ln in turns:
            if len(ln.text) < 140 and not ln.text.endswith("?") and rng.random() < 0.85:
                extra = rng.sample(ELAB, 2 if rng.random() < 0.45 else 1)
                ln.text = " ".join([ln.text, *extra])
        chat.start_session(dates[i])
        for ln in turns:
            chat.say(names[ln.who], "user" if ln.who == 0 else "assistant", ln.text, tags=ln.keys)
    questions: list[Question] = []
    pending: list[PendingQ] = [q for _, st, _ in stories for q in st.questions]
    pending += _cross_questions(rng, stories, names)
    for pq in pending:
        ev = sorted({tid for key in pq.keys for tid in chat.ids_of(key)}, key=_order)
        questions.append(question(pq.question, ev, pq.answer, pq.category))
        text = " ".join(chat.by_id[e].split(": ", 1)[1] for e in ev).lower()
        missing = [c for c in pq.cues if c.lower() not in text]
        assert not missing, (pq, missing)
    rng.shuffle(questions)
    return chat.conversation(questions)


def _order(tid: str) -> tuple[int, int]:
    s, t = tid[1:].split(":")
    return int(s), int(t)


def _merge(lines: list[Line]) -> list[Line]:
    """Consecutive lines of one speaker become one turn (speakers alternate, as in a chat)."""
    out: list[Line] = []
    for ln in lines:
        if out and out[-1].who == ln.who:
            out[-1] = Line(ln.who, f"{out[-1].text} {ln.text}", out[-1].keys + ln.keys)
        else:
            out.append(Line(ln.who, ln.text, list(ln.keys)))
    return out


def _cross_questions(rng: random.Random, stories: list[tuple[int, Story, list[int]]],
                     names: tuple[str, str]) -> list[PendingQ]:
    """Multi-hop questions over two storylines of one speaker (activities, places, purchases, family)."""
    out: list[PendingQ] = []
    wordings = {"activity": ["What activities does {n} do in {his} free time?", "How does {n} like to stay busy outside work?"],
                "places": ["Which places has {n} traveled to?", "Where has {n} been away to over these months?"],
                "family": ["Who are some of the members of {n}'s household and family?"],
                "bought": ["What has {n} bought recently?"]}
    for sp in (0, 1):
        by_theme: dict[str, list[tuple[str, str, str]]] = {}
        gender = ""
        for s_sp, st, _ in stories:
            if s_sp == sp:
                gender = st.gender
                for theme, phrase, key, cue in st.themes:
                    by_theme.setdefault(theme, []).append((phrase, key, cue))
        for theme, items in sorted(by_theme.items()):
            if len(items) >= 2:
                w = rng.choice(wordings[theme]).format(n=names[sp], his=PRON[gender][2])
                out.append(PendingQ(1, w, ", ".join(p for p, _, _ in items), [k for _, k, _ in items],
                                    [c for _, _, c in items]))
    return out


def validate(conv: Conversation) -> None:
    """Ids unique and ``D<session>:<turn>``, evidence ids exist, roles alternate within a session."""
    ids = [t["id"] for t in conv.history]
    assert len(ids) == len(set(ids)) and set(ids) == set(conv.by_id)
    for x, y in zip(conv.history, conv.history[1:]):
        if x["id"].split(":")[0] == y["id"].split(":")[0]:
            assert x["role"] != y["role"], (x["id"], y["id"])
    for q in conv.questions:
        assert q["evidence"] and all(e in conv.by_id for e in q["evidence"]), q


def long_chat_set(seeds: Sequence[int], split: str) -> DevSet:
    """``en-longchat``: ``CONVERSATIONS_PER_SEED`` conversations per seed."""
    return seeded_set("en-longchat", split, seeds, CONVERSATIONS_PER_SEED, generate_long_chat)
