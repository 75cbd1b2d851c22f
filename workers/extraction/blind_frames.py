"""Revision frames written blind, for measuring only: never trained on, never used to choose.

Eighty two-value revision frames ({new} wanted, {old} left) in nine styles, written by a
helper that read none of this project's code: not the rejected-side markers
(`segments.py`), not the authored frames (`augment.AUTHORED_FRAMES`), no benchmark text.
`frames("dev")` has been read while choosing rules; these have not, so `augment.compose_revisions(..., family="blind")` is the unread measure of how a
revision in unseen wording is read (docs/models/extractor.md).
"""

BLIND_FRAMES: tuple[str, ...] = (
    # formal / polite
    "Please note that I would now prefer {new}; kindly disregard my earlier request for {old}.",
    "Going forward, I would appreciate {new} in place of {old}.",
    "I wish to amend my earlier preference: {new}, not {old}.",
    "Kindly update my profile to reflect a preference for {new} rather than {old}.",
    "For the record, I no longer prefer {old}. My preference is now {new}.",
    "I would be grateful if you could use {new} from now on, as I have grown tired of {old}.",
    "Please be advised that my preference has changed. I now favour {new} over {old}.",
    "Allow me to correct my earlier instruction: where I asked for {old}, please provide {new}.",
    "With respect, I should like to withdraw my request for {old} and ask for {new} instead.",
    # casual / chatty
    "ok so scratch {old}, i'm all about {new} now",
    "honestly {new} > {old} for me these days lol",
    "yeah nah, not feeling {old} anymore. gimme {new}",
    "Dude, ditch {old}. Going full {new} from here on.",
    "lowkey over {old} at this point, can we do {new}?",
    "welp, turns out i'm team {new} now. team {old} is dead to me",
    "nope, changed my mind. {new} pls, {old} can go",
    "ngl i've flipped on this one. used to want {old}, now i want {new}",
    "Heads up, I'm swapping {old} out for {new}.",
    # terse / fragments
    "No more {old}. Just {new}.",
    "Pref change: {old} -> {new}.",
    "Drop {old}. Use {new}.",
    "Update: {new}. Was {old}.",
    "{old}? Out. {new}? In.",
    "Now {new}; formerly {old}.",
    "Switching to {new}. Forget {old}.",
    "stop {old}, start {new}",
    # short story / reason
    "I gave {old} a fair shot for a few weeks and never warmed up to the idea. Let's go with {new}.",
    "My new manager prefers {new}, so please stop giving me {old}.",
    "After a long trip I realised I'd had enough of {old}. I want {new} now.",
    "A friend showed me {new} last week and I'm hooked; no need for {old} anymore.",
    "We moved offices and the team standardised on {new}, so I've stopped asking for {old}.",
    "Long story short, {old} caused me more headaches than I'd like. I'm going with {new} now.",
    "I used {old} for years out of habit, but when I thought about what I actually enjoy, the answer was {new}.",
    "My partner kept teasing me about {old}. Fine, they win: from today it's {new} for me.",
    "I'd been asking for {old} because of an old project, but that project wrapped up. Please give me {new}.",
    # passive / indirect
    "My preference for {old} has been replaced by one for {new}.",
    "Let it be noted: the preference for {old} has been withdrawn, and a preference for {new} takes its place.",
    "It would be preferred if {new} were used from now on, rather than {old}.",
    "The earlier request for {old} should be considered superseded by a request for {new}.",
    "Consider the preference for {old} retired. What's wanted now: {new}.",
    "Any references to {old} in my settings should be changed to {new}.",
    "It has been decided that {new} will be used going forward; {old} will not.",
    "I'm told my settings still say {old}. That should be updated to {new}.",
    "Please log a change of preference: wherever {old} appeared, use {new}.",
    # old value mentioned last
    "Give me {new} from here on; I'm finished with {old}.",
    "I'd like {new}, please. I've gone off {old}.",
    "Stick with {new} for me. I've had it with {old}.",
    "My pick these days is {new}, no longer {old}.",
    "Please default to {new}. Earlier I said {old}, but I've changed my mind.",
    "Make it {new}. Forget what I said about {old}.",
    "I've come around to {new}, after a long stretch on {old}.",
    "Nowadays I want {new}. Used to be {old}.",
    "Put me down for {new} and cross off {old}.",
    # questions / requests
    "Could we switch to {new} instead of {old}?",
    "Can you stop with {old} and give me {new}?",
    "Any chance you could replace {old} with {new}?",
    "Could you update my preference? I'd like {new} now, where I previously had {old}.",
    "Would it be okay to move away from {old} and go with {new}?",
    "Can we retire {old}? I want {new} permanently.",
    "Mind swapping {old} for {new}?",
    "Please could you start giving me {new}? I've lost interest in {old}.",
    "hey, could you use {new} for me? i'm sick of {old}",
    # old first, new at the end, little or no negation
    "Had {old} for ages. Time for {new}.",
    "Been on {old} forever. Ready to move on to {new}.",
    "Enough {old} for one lifetime. Bring on {new}.",
    "I've done my time with {old}. On to {new}.",
    "So long, {old}. Hello, {new}.",
    "My {old} era is over. Welcome, {new}.",
    "Spent years on {old}; the next chapter is {new}.",
    "once upon a time, {old}. today, {new}.",
    "Out with {old}, in with {new}.",
    # comparatives, time contrasts, regret, fatigue, hedges
    "I think I'd actually prefer {new} to {old} now, if that's alright.",
    "Lately I've been much happier with {new} than with {old}; please adjust.",
    "Back then I wanted {old}; now I want {new}.",
    "I regret ever asking for {old}. Please use {new}.",
    "Honestly I'm so tired of {old}. Can I get {new}?",
    "Maybe it's just a phase, but right now I'm really into {new} and done with {old}.",
    "i'm not sure when it happened, but i've come to like {new} better than {old}.",
    "{old} used to be my go-to, but lately I'm leaning toward {new}.",
    "I'm worn out on {old}; {new} would be a welcome change.",
)
