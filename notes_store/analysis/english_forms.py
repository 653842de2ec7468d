"""English irregular verb forms, read as their base form before stemming.

A stemmer strips suffixes, so "gave" never meets "give", nor "bought" "buy" or "went" "go": a question
("What did Priya's grandmother give her?") and the turn that answers it ("she gave me two of her gold
bangles") shared no term. Irregular past forms are a closed grammatical class, as the pronouns are; this
is morphology, not meaning (no synonyms). Left out: forms that are as often another word ("left",
"found", "felt", "fell", "saw", "rose", "lay", "lit", "bit", "spoke", "ground", "wound", "bound",
"bore", "stuck", "had"), and forms the stemmer already joins to their base ("beaten", "proved").
"""

from __future__ import annotations

_PAIRS = """
arose:arise arisen:arise awoke:awake awoken:awake became:become began:begin begun:begin bent:bend
bled:bleed blew:blow blown:blow broke:break broken:break bred:breed brought:bring built:build burnt:burn
bought:buy caught:catch chose:choose chosen:choose clung:cling came:come crept:creep dealt:deal dug:dig
did:do done:do drew:draw drawn:draw dreamt:dream drank:drink drunk:drink drove:drive driven:drive ate:eat
eaten:eat fed:feed fought:fight fled:flee flung:fling flew:fly flown:fly forbade:forbid forbidden:forbid
forgot:forget forgotten:forget forgave:forgive forgiven:forgive froze:freeze frozen:freeze got:get
gotten:get gave:give given:give went:go gone:go grew:grow grown:grow hung:hang heard:hear hid:hide
hidden:hide held:hold kept:keep knelt:kneel knew:know known:know laid:lay led:lead leant:lean leapt:leap
learnt:learn lent:lend lost:lose made:make meant:mean met:meet mistook:mistake mistaken:mistake
overcame:overcome paid:pay proven:prove rode:ride ridden:ride rang:ring rung:ring ran:run said:say
sought:seek sold:sell sent:send shook:shake shaken:shake shone:shine shot:shoot shown:show shrank:shrink
sang:sing sung:sing sank:sink sunk:sink sat:sit slept:sleep slid:slide spent:spend spun:spin spat:spit
stood:stand stole:steal stolen:steal stung:sting stank:stink strode:stride struck:strike swore:swear
sworn:swear swept:sweep swam:swim swum:swim swung:swing took:take taken:take taught:teach tore:tear
torn:tear told:tell thought:think threw:throw thrown:throw understood:understand woke:wake woken:wake
wore:wear worn:wear wept:weep won:win withdrew:withdraw wrote:write written:write
"""

# Lower-case irregular form -> base form.
BASE_FORM: dict[str, str] = dict(pair.split(":") for pair in _PAIRS.split())
