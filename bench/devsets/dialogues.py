"""Generated two-speaker, multi-session dialogues (issue 14): a second English conversation shape.

Two friends talk over 18-26 sessions, weeks apart. Each of them has a few storylines (a dog being
adopted, a race being trained for, a new job) that come back across sessions in order: a plan,
progress, an outcome. What this tests, unlike the statement logs:

- answers given in reply to a question ("How's the running going?" / "Not bad, 12 miles on Sunday."),
  and short replies that mean nothing without the previous turn ("Did you finish the race?" /
  "Yes! 1 hour 52 minutes."): the evidence is both turns, so spreading to a neighbour is needed;
- topics revisited across sessions (a question can need an earlier session's turn too);
- both speakers having the same kind of storyline with different facts (two trips, two pets);
- greetings, reactions and small talk around it.

Content is "<speaker>: <text>", role ``user`` for the first speaker and ``assistant`` for the
second, each turn stamped with its session's date, ids "D<session>:<turn>" (as conv-26 is fed).
All templates are our own (CC0); a seed fixes a conversation.
Run ``python -m bench.devsets dialogue 1`` to print one conversation with its questions.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from .model import Conversation, Question
from .writer import ChatWriter, cap, question


@dataclass(frozen=True)
class Variant:
    """One way a beat of a storyline is told: lines ("s:" the storyline's owner, "o:" the other
    speaker) and questions (template, evidence as (beat, line) pairs, answer template)."""

    lines: tuple[str, ...]
    questions: tuple[tuple[str, tuple[tuple[int, int], ...], str], ...] = ()


@dataclass(frozen=True)
class Story:
    key: str
    slots: dict[str, tuple[str, ...]]
    beats: tuple[tuple[Variant, ...], ...]


def _slots(**kw: str) -> dict[str, tuple[str, ...]]:
    return {k: tuple(v.split("|")) for k, v in kw.items()}


def _v(lines: str, *questions: tuple[str, tuple[tuple[int, int], ...], str]) -> Variant:
    return Variant(tuple(lines.split(" / ")), tuple(questions))


# Evidence refs are (beat, line): a beat's lines are those of the variant told in that beat.
STORIES: tuple[Story, ...] = (
    Story("pet", _slots(pet="beagle|corgi|tabby cat|greyhound|ginger kitten|border collie|rabbit",
                        petname="Biscuit|Pepper|Miso|Juno|Toffee|Ziggy|Olive|Pickle",
                        shelter="the shelter on Elm Street|a rescue centre out in the countryside|"
                                "a neighbour whose pet had a litter|the animal charity near the market",
                        chewed="my headphone cable|the corner of the sofa|a brand-new pair of trainers|"
                               "the television remote",
                        lesson="obedience classes|agility training|puppy school",
                        ago="two weeks ago|last Saturday|a month ago|on Tuesday|the day after we spoke"),
          (
              (_v("s: I've been looking at adopting a {pet} from {shelter}. / o: Oh, that would be lovely! "
                  "Are you sure you have the time? / s: I think so, I work from home most days now.",
                  ("Where was {S} thinking of adopting a pet from?", ((0, 0),), "{shelter}"),
                  ("What kind of animal did {S} want to adopt?", ((0, 0),), "{pet}")),),
              (_v("o: Did you end up adopting the {pet}? / s: Yes, {ago}! The name is {petname}.",
                  ("What did {S} name the new pet?", ((1, 0), (1, 1)), "{petname}"),
                  ("When did {S} adopt the {pet}?", ((1, 0), (1, 1)), "{ago}")),
               _v("o: So is the {pet} home with you now? / s: Yep, since last weekend. {petname} already owns "
                  "the sofa. / o: Ha, of course.",
                  ("What is the name of {S}'s {pet}?", ((1, 0), (1, 1)), "{petname}"))),
              (_v("s: {petname} chewed through {chewed} yesterday. / o: Oh no! Was it expensive?",
                  ("What did {S}'s pet chew through?", ((2, 0),), "{chewed}"),
                  ("What did the {pet} that {S} adopted from {shelter} destroy?", ((0, 0), (2, 0)), "{chewed}")),
               _v("o: How is {petname} doing? / s: Great, we started {lesson} on Saturdays. / o: Cute!",
                  ("What classes did {S} sign the pet up for?", ((2, 0), (2, 1)), "{lesson}"))),
          )),
    Story("race", _slots(race="the Lisbon half marathon|the Berlin marathon|a 10k in the park|the city trail race|"
                              "the harbour fun run",
                         distance="12 miles|9 miles|20 kilometres|15 kilometres|18 kilometres",
                         time="1 hour 52 minutes|2 hours 5 minutes|58 minutes|1 hour 41 minutes|4 hours 10 minutes",
                         injury="a sore knee|shin splints|a twisted ankle|a pulled hamstring",
                         season="early spring|the end of May|October|just after New Year"),
          (
              (_v("s: I signed up for {race}, so I'm running four mornings a week now. / o: That's brave! When "
                  "is it? / s: {season}. Plenty of time to regret it.",
                  ("What race did {S} sign up for?", ((0, 0),), "{race}"),
                  ("When is the race {S} signed up for?", ((0, 0), (0, 2)), "{season}")),),
              (_v("o: How's the running going? / s: Not bad, I did {distance} on Sunday without stopping.",
                  ("How far did {S} run without stopping?", ((1, 0), (1, 1)), "{distance}")),
               _v("s: I had to rest for a week with {injury}. / o: Ouch. Take it easy, no race is worth a real "
                  "injury.",
                  ("What injury did {S} get while training?", ((1, 0),), "{injury}"))),
              (_v("o: So, did you finish {race}? / s: Yes! {time}, and I didn't walk once. / o: Amazing, "
                  "congratulations!",
                  ("What was {S}'s finishing time in the race?", ((2, 0), (2, 1)), "{time}")),),
          )),
    Story("job", _slots(company="a bakery chain|a small architecture firm|the city library|a video game studio|"
                                "the hospital in town|a bike repair shop",
                        role="shift manager|junior designer|archivist|sound designer|night receptionist|mechanic",
                        boss="Mrs Patel|a guy called Rupert|a woman called Ingrid|Mr Okafor|Dolores",
                        perk="leave early on Fridays|bring my dog to work|work from home on Mondays|"
                             "take a long lunch",
                        start="Monday|next week|the first of the month|in two weeks"),
          (
              (_v("s: Big news: I got the job at {company}! / o: No way, congratulations! What will you be "
                  "doing? / s: I'll be the {role}. Starting {start}.",
                  ("Where did {S} get a new job?", ((0, 0),), "{company}"),
                  ("When does {S} start the new job?", ((0, 0), (0, 2)), "{start}"),
                  ("What position did {S} get at the new job?", ((0, 0), (0, 2)), "{role}")),),
              (_v("o: How's the new job treating you? / s: Honestly great. My manager, {boss}, lets me {perk}.",
                  ("Who is {S}'s manager at work?", ((1, 1),), "{boss}"),
                  ("What is {S} allowed to do at work?", ((1, 0), (1, 1)), "{perk}")),),
              (_v("s: I got my first promotion today. / o: Already? What's the new title? / s: Senior {role}. "
                  "Same desk, more emails.",
                  ("What was {S} promoted to?", ((2, 0), (2, 2)), "senior {role}"),
                  ("What title did {S} get at {company} after the promotion?", ((0, 0), (2, 2)), "senior {role}")),),
          )),
    Story("move", _slots(area="Leith|the old town|a village outside the city|the harbour district|Riverside|"
                              "the north end",
                         feature="a balcony|a tiny garden|a fireplace|a view of the river|a huge kitchen",
                         problem="the boiler broke|there were mice in the kitchen|the neighbours play drums|"
                                 "the roof leaked"),
          (
              (_v("s: We're finally moving out of the studio. Found a place in {area}. / o: Oh nice, what's "
                  "it like? / s: It has {feature}, which sold me instantly.",
                  ("Where is {S} moving to?", ((0, 0),), "{area}"),
                  ("What sold {S} on the new flat?", ((0, 0), (0, 2)), "{feature}")),),
              (_v("o: Are you all settled in at the new place? / s: Mostly. Except {problem} in the first week.",
                  ("What went wrong in {S}'s first week at the new flat?", ((1, 0), (1, 1)), "{problem}")),
               _v("s: First week in the new flat and {problem}. / o: Typical! Did the landlord sort it out? / "
                  "s: Eventually.",
                  ("What problem did {S} have after moving?", ((1, 0),), "{problem}"))),
          )),
    Story("trip", _slots(country="Portugal|Japan|Iceland|Peru|Vietnam|Morocco|Norway",
                         companion="my sister|two old school friends|my dad|my partner|my grandmother",
                         sight="a tiny fishing village|the hot springs|a night market|an old monastery|"
                               "a glacier walk",
                         food="grilled sardines|ramen at two in the morning|fermented shark|ceviche|"
                              "pho for breakfast|mint tea with everything",
                         back="on Sunday night|three days ago|last Thursday|yesterday morning"),
          (
              (_v("s: I'm planning a trip to {country} in the summer. / o: Jealous! Solo or with friends? / "
                  "s: With {companion}.",
                  ("Where is {S} travelling this summer?", ((0, 0),), "{country}"),
                  ("Who is going on the summer trip with {S}?", ((0, 0), (0, 2)), "{companion}")),),
              (_v("o: Welcome back! How was {country}? / s: Amazing. The highlight was {sight}. / o: And the "
                  "food? / s: I ate {food} and loved it. / o: When did you get back? / s: {back}.",
                  ("When did {S} get back from the trip?", ((1, 4), (1, 5)), "{back}"),
                  ("What was the highlight of {S}'s trip?", ((1, 0), (1, 1)), "{sight}"),
                  ("What food did {S} enjoy abroad?", ((1, 2), (1, 3)), "{food}")),),
          )),
    Story("craft", _slots(craft="pottery|watercolour painting|woodworking|knitting|bread baking",
                          venue="the community centre|an evening class at the college|a studio near the station|"
                                "a workshop above the bookshop",
                          made="a wonky vase|a portrait of my grandmother|a birdhouse|a scarf for my dad|"
                               "a lopsided sourdough loaf"),
          (
              (_v("s: I started {craft} classes at {venue}. / o: Ooh, that sounds relaxing.",
                  ("Where does {S} take {craft} classes?", ((0, 0),), "{venue}"),
                  ("What classes did {S} start?", ((0, 0),), "{craft}")),),
              (_v("o: Have you made anything yet in your class? / s: Yes! I made {made}. It's terrible and I love it.",
                  ("What did {S} make in class?", ((1, 0), (1, 1)), "{made}"),
                  ("What did {S} make in the {craft} class?", ((0, 0), (1, 1)), "{made}")),),
              (_v("s: I'm selling some of my work at the Saturday market. / o: Amazing, I'll come by!",
                  ("Where is {S} selling things from class?", ((2, 0),), "Saturday market")),),
          )),
    Story("wedding", _slots(sib="brother|sister|cousin|best friend",
                            venue="a barn in the hills|the beach|a castle|the town hall|a boat on the lake",
                            month="June|September|May|October|August",
                            role="best man|a bridesmaid|the photographer|the DJ|the one giving a speech"),
          (
              (_v("s: My {sib} just got engaged! / o: Oh wow, when's the wedding? / s: Next {month}, at {venue}.",
                  ("Where is the wedding of {S}'s {sib}?", ((0, 0), (0, 2)), "{venue}"),
                  ("In which month is {S}'s {sib} getting married?", ((0, 0), (0, 2)), "{month}")),),
              (_v("o: Any news about the wedding? / s: I've been asked to be {role}!",
                  ("What role does {S} have at the wedding?", ((1, 0), (1, 1)), "{role}")),
               _v("s: Guess who is going to be {role} at the wedding. / o: You? That's perfect.",
                  ("What is {S} going to be at the {sib}'s wedding?", ((1, 0),), "{role}"))),
          )),
    Story("car", _slots(car="old Volvo|little Fiat|camper van|hatchback|ancient Land Rover",
                        fault="the clutch|the gearbox|a flat battery|the exhaust|the alternator",
                        cost="400 pounds|900 euros|two hundred dollars|a week's wages|650 pounds"),
          (
              (_v("s: My {car} broke down on the motorway. / o: Oh no, are you okay? / s: Yes, just annoyed. "
                  "The mechanic says it's {fault}.",
                  ("What was wrong with {S}'s car?", ((0, 0), (0, 2)), "{fault}"),
                  ("What kind of car does {S} drive?", ((0, 0),), "{car}")),),
              (_v("o: Did you get the car fixed? / s: Yep, cost me {cost}. / o: Ouch.",
                  ("How much did {S}'s car repair cost?", ((1, 0), (1, 1)), "{cost}")),),
          )),
    Story("volunteer", _slots(place="an animal shelter|a food bank|a reading club for kids|the hospice shop|"
                                    "a community garden",
                              day="Saturday mornings|Wednesday evenings|Sunday afternoons|Thursday nights"),
          (
              (_v("s: I've started volunteering at {place}. / o: That's so kind. How often do you go? / "
                  "s: {day}, for now.",
                  ("Where does {S} volunteer?", ((0, 0),), "{place}"),
                  ("When does {S} do the volunteering?", ((0, 0), (0, 2)), "{day}")),),
          )),
    Story("book", _slots(genre="a mystery novel|a children's book|a sci-fi short story|a cookbook|a memoir",
                         title="The Glass Orchard|Night Ferry|Small Hours|The Salt Road|Paper Lanterns",
                         progress="thirty thousand words|the first ten chapters|about fifty pages|"
                                  "the final chapter"),
          (
              (_v("s: Don't laugh, but I'm writing {genre}. / o: I'd never laugh! What's it called? / "
                  "s: Working title is {title}.",
                  ("What is the working title of {S}'s book?", ((0, 0), (0, 2)), "{title}"),
                  ("What kind of book is {S} writing?", ((0, 0),), "{genre}")),),
              (_v("o: How's the writing going? / s: Slow, but I'm at {progress} now.",
                  ("How far has {S} got with the book?", ((1, 0), (1, 1)), "{progress}")),),
          )),
    Story("music", _slots(instrument="ukulele|cello|drum kit|banjo|keyboard|trumpet",
                          song="Wonderwall|a Bach minuet|Hallelujah|the Mario theme|Moon River"),
          (
              (_v("s: I bought a second-hand {instrument}. / o: Can you play it? / s: Three chords so far. "
                  "The neighbours are not impressed.",
                  ("What instrument did {S} buy?", ((0, 0),), "{instrument}")),),
              (_v("o: Still practising every night? / s: Every night. I can play {song} now! / o: Play it for "
                  "me next time.",
                  ("What song can {S} play now?", ((1, 0), (1, 1)), "{song}"),
                  ("What can {S} play on the {instrument} now?", ((0, 0), (1, 1)), "{song}")),),
          )),
    Story("habit", _slots(vice="coffee|sugar|social media|meat|alcohol", benefit="I sleep so much better|"
                          "my headaches are gone|I have more time for reading|I've saved a fortune"),
          (
              (_v("s: I gave up {vice} a month ago. / o: Seriously? How do you feel? / s: Like a new person, "
                  "{benefit}.",
                  ("What did {S} give up?", ((0, 0),), "{vice}"),
                  ("What changed for {S} after quitting?", ((0, 0), (0, 2)), "{benefit}")),),
          )),
)

GREETINGS = (
    ("Hey {B}! How's your week been?", "Pretty hectic, but good. You?"),
    ("Hi {B}, long time no talk!", "I know, sorry, it's been a mad few weeks."),
    ("Morning! Got a minute to chat?", "Always. What's new?"),
    ("Hey! I was just thinking about you.", "Good things, I hope! How are you?"),
    ("{B}! Finally, I've been meaning to call.", "Ha, me too. How are things?"),
)
CLOSINGS = (
    ("Anyway, I should get going.", "Talk soon! Take care."),
    ("I have to run, dinner's burning.", "Go, go! Speak next week."),
    ("Let's catch up again soon.", "Definitely. Bye for now!"),
    ("Right, back to work for me.", "Same. Chat later!"),
)
SMALL_TALK = (
    ("Did you watch the match last night?", "I fell asleep at half time, honestly."),
    ("It's been raining all week here.", "Same here, I've forgotten what the sun looks like."),
    ("I tried that new coffee place on the corner.", "Any good?"),
    ("Any plans for the weekend?", "Not really, maybe a long walk."),
    ("I'm so tired today.", "Early night then!"),
    ("Have you seen the new series everyone talks about?", "Two episodes in. Not sure yet."),
    ("My phone screen cracked again.", "You need a better case!"),
    ("Traffic was terrible this morning.", "It always is on Mondays."),
    ("I finally cleaned out the garage.", "Impressive. Mine is a lost cause."),
    ("I can't believe it's already the end of the month.", "Where does the time go?"),
    ("Work has been crazy this week.", "Hang in there."),
    ("I need a holiday so badly.", "Don't we all."),
    ("Dogs are so much work, aren't they?", "Worth it though."),
    ("My neighbour started learning an instrument.", "Oh no. Which one?"),
    ("I burnt the toast again this morning.", "Classic you."),
    ("Have you read anything good lately?", "Nothing I'd recommend, sadly."),
    ("The bus was forty minutes late.", "That's ridiculous."),
    ("My mum keeps sending me recipes.", "Are any of them good?"),
    ("I think I'm getting a cold.", "Lots of tea and sleep!"),
    ("It's so hot today.", "I've had three ice lollies already."),
    ("I found a great podcast about history.", "Send me the link!"),
    ("My plants are all dying.", "Too much water, probably."),
    ("Did you hear about the new supermarket opening?", "Yes, finally something close by."),
    ("I spent the whole evening doing my taxes.", "Sounds thrilling."),
    ("What did you have for dinner?", "Just pasta, nothing exciting."),
    ("I keep losing my keys.", "Get one of those trackers."),
)
REACTIONS = ("Ha, fair enough.", "That's wonderful!", "Oh no, that sounds awful.", "You'll have to tell me more "
             "next time.", "Wow.", "I'm so happy for you.", "That's so you.", "No way!", "Good for you.")
# Asides that pad a turn the way people do ("Anyway, work has been a blur."): no storyline facts,
# but everyday words that a question may share. Built as opener + clause, so they rarely repeat.
OPENERS = ("Honestly,", "Anyway,", "By the way,", "Oh, and", "To be fair,", "Funny thing is,", "I mean,", "Also,",
           "Not gonna lie,", "Between you and me,", "Random, but", "Side note:")
CLAUSES = (
    "the weather has been all over the place this week.", "I still haven't unpacked from the weekend.",
    "my sister says hi.", "I've been drinking far too much coffee.", "the neighbours had another party last night.",
    "I keep meaning to call my parents more.", "work has been a bit of a blur.", "I finally fixed the squeaky door.",
    "I've been sleeping terribly.", "I watched three documentaries in a row yesterday.",
    "my phone is on its last legs.", "the train was packed again this morning.",
    "I tried a new recipe and it was a disaster.", "I need to get back into reading.",
    "everything feels expensive lately.", "I bumped into an old teacher at the shops.",
    "the garden is completely overgrown.", "I've started going to bed earlier.", "my inbox is a nightmare.",
    "I can't stop thinking about that film we talked about.", "the kids next door are learning the recorder.",
    "I keep forgetting to water the plants.", "the dentist finally called me back.",
    "I'm trying to save a bit more each month.", "the internet was down for two days.",
    "I've been craving pizza all week.", "it's been ages since I had a proper day off.",
    "I signed up for a newsletter by accident and now I get ten emails a day.", "my brother finally paid me back.",
    "I'm thinking of repainting the living room.", "the car park at work is being dug up.",
    "I've been listening to old records all evening.", "my knee has been clicking when I walk.",
    "I found twenty quid in an old coat.", "the cat from upstairs keeps visiting.",
    "I need new shoes, these ones are done.", "the landlord still hasn't fixed the window.",
    "I spent an hour on the phone with the bank.", "my cousin is staying with us next month.",
    "I can't believe how early it gets dark now.", "I've been trying to drink more water.",
    "the market on the square has amazing bread.",
)
SPEAKERS = ("Mara", "Jonah", "Priya", "Tobias", "Alice", "Kenji", "Rosa", "Dmitri", "Nadia", "Felix", "Hana", "Caleb")


def _fill(template: str, values: dict[str, str]) -> str:
    return cap(template.format(**values))


def _padded(rng: random.Random, text: str, p: float) -> str:
    """``text`` with one or two asides after it, with probability ``p``."""
    while rng.random() < p:
        text += " " + rng.choice(OPENERS) + " " + rng.choice(CLAUSES)
        p *= 0.6
    return text


Line = tuple[str, str, tuple[int, int] | None]   # speaker, text, (plot, beat) for storyline lines


@dataclass
class _Plot:
    """One storyline as told by one speaker: its facts, the session of each beat, the variant told."""

    story: Story
    owner: str
    values: dict[str, str]
    sessions: list[int]
    variants: list[int]


def _plan(rng: random.Random, a: str, b: str, n_sessions: int) -> list[_Plot]:
    """Storylines for the two speakers; a few kinds go to both, with different facts each."""
    kinds = rng.sample(STORIES, k=rng.randint(10, 12))
    shared = set(rng.sample(range(len(kinds)), k=4))
    plots: list[_Plot] = []
    for k, story in enumerate(kinds):
        owners = [a, b] if k in shared else [rng.choice((a, b))]
        told: dict[str, str] = {}
        for owner in owners:
            values = {slot: rng.choice([o for o in opts if o != told.get(slot)] or list(opts))
                      for slot, opts in story.slots.items()}
            told = values
            sessions = sorted(rng.sample(range(n_sessions), k=len(story.beats)))
            variants = [rng.randrange(len(beat)) for beat in story.beats]
            plots.append(_Plot(story, owner, values, sessions, variants))
    return plots


def _session(rng: random.Random, s: int, a: str, b: str, plots: list[_Plot]) -> list[Line]:
    """Session ``s``: a greeting, the storyline beats due in it and small talk in random order, a goodbye."""
    first, second = (a, b) if rng.random() < 0.6 else (b, a)
    hello = rng.choice(GREETINGS)
    turns: list[Line] = [(first, hello[0].format(B=second), None), (second, hello[1], None)]
    blocks: list[list[Line]] = []
    for p, plot in enumerate(plots):
        for beat, sess in enumerate(plot.sessions):
            if sess != s:
                continue
            other = b if plot.owner == a else a
            block: list[Line] = []
            for line in plot.story.beats[beat][plot.variants[beat]].lines:
                who, text = line.split(": ", 1)
                block.append((plot.owner if who == "s" else other, _fill(text, plot.values), (p, beat)))
            if rng.random() < 0.5:   # a reaction after the beat
                block.append((other, rng.choice(REACTIONS), None))
            blocks.append(block)
    for x, y in rng.sample(SMALL_TALK, k=rng.randint(4, 9)):
        u, v = (a, b) if rng.random() < 0.5 else (b, a)
        blocks.append([(u, x, None), (v, y, None)])
    rng.shuffle(blocks)
    for block in blocks:
        turns += block
    bye = rng.choice(CLOSINGS)
    last = turns[-1][0]
    turns += [(b if last == a else a, bye[0], None), (last, bye[1], None)]
    return turns


def _category(ids: list[str]) -> str:
    sessions = {i.split(":")[0] for i in ids}
    if len(sessions) > 1:
        return "multi-session"
    if len(ids) == 1:
        return "single"
    turns = [int(i.split(":")[1]) for i in ids]
    return "q-and-reply" if len(ids) == 2 and turns[1] - turns[0] == 1 else "same-session"


def _questions(plots: list[_Plot], placed: Mapping[Hashable, list[str]]) -> list[Question]:
    out: list[Question] = []
    for p, plot in enumerate(plots):
        for beat, choice in enumerate(plot.variants):
            for template, refs, answer in plot.story.beats[beat][choice].questions:
                # Evidence from an earlier beat is valid only for the lines of the variant told there.
                if any(rb != beat and plot.variants[rb] != 0 for rb, _ in refs):
                    continue
                ids = [placed[(p, rb)][line] for rb, line in refs]
                out.append(question(_fill(template, plot.values | {"S": plot.owner}), ids,
                                    answer.format(**plot.values), _category(ids)))
    return out


def generate_dialogue(seed: int) -> Conversation:
    """One conversation of 18-26 sessions between two speakers, with its questions."""
    rng = random.Random(f"dialogue-{seed}")
    a, b = rng.sample(SPEAKERS, 2)
    n_sessions = rng.randint(18, 26)
    plots = _plan(rng, a, b, n_sessions)
    chat = ChatWriter()     # tags: (plot, beat) -> the ids of that beat's lines
    when = datetime(2023, rng.randint(1, 6), rng.randint(1, 28), rng.randint(9, 20), rng.choice((0, 15, 30, 45)))
    for s in range(n_sessions):
        chat.start_session(when)
        for speaker, text, ref in _session(rng, s, a, b, plots):
            # Storyline turns stay short half the time (a bare "Yes! 58 minutes." must lean on the
            # turn before it); everything else chats on.
            chat.say(speaker, "user" if speaker == a else "assistant", _padded(rng, text, 0.5 if ref else 0.85),
                     tags=(ref,) if ref is not None else ())
        when += timedelta(days=rng.randint(3, 21), hours=rng.randint(-3, 3))
    return chat.conversation(_questions(plots, chat.tagged))
