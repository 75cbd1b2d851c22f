"""Preferences the taxonomy does not cover, written for training the extractor's open class.

The benchmark's events only ever state preferences on the sixteen taxonomy dimensions, so an
extractor trained on them alone files every other preference under the nearest dimension
("I can't stand horror movies" became a preference for high-level explanations). Users state
such preferences all the time; the right reading is an *open* claim in the user's own words,
not a wrong taxonomy value. This module composes them from topics and sentence frames written
for it (nothing is read from the benchmark's dev or test split or from the third-party data),
plus sentences about the same topics that state no preference of the user's (requests,
questions, other people's tastes) and sarcastic praise ("Oh great, my flight got delayed
again. Just what I wanted."), so that neither a topic nor praise alone reads as a preference.

The same frames are also filled with the taxonomy's own values (`taxonomy_statements`, surface
forms seen in train events), labelled with their taxonomy claim: the wording of a frame then
says that a preference is stated, and only the topic says whether the taxonomy covers it.

Frames and topics are dealt into two disjoint families: `train` rows train the extractor,
`dev` rows (other frames, other topics) are held out to measure how the open class transfers.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Literal

from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

# The subject an open claim is filed under in training labels (`dataset.build_rows`).
OPEN_DIMENSION = "open"
Family = Literal["train", "dev"]

# Topics outside the taxonomy, by domain. Every fourth topic of a domain is held out for dev.
TOPICS: dict[str, tuple[str, ...]] = {
    "screen": ("horror movies", "romantic comedies", "documentaries", "subtitled films",
               "long TV series", "reality shows", "animated films", "superhero movies",
               "sitcoms", "true-crime podcasts", "slow-paced dramas", "black-and-white films"),
    "reading": ("paperback books", "e-books", "audiobooks", "fantasy novels", "short stories",
                "self-help books", "biographies", "graphic novels", "poetry collections",
                "detective novels", "magazines", "long newsletters"),
    "clothing": ("skirts", "pants", "wool sweaters", "bright colours", "neutral colours",
                 "sneakers", "high heels", "loose-fitting clothes", "synthetic fabrics",
                 "cotton shirts", "leather jackets", "flashy jewellery"),
    "getting_around": ("manual transmission cars", "automatic cars", "electric cars", "SUVs",
                       "public transport", "ride-sharing apps", "motorcycles",
                       "long road trips", "overnight trains", "ferries", "scooters",
                       "walking to work"),
    "lodging": ("boutique hotels", "big chain hotels", "hostels", "camping",
                "vacation rentals", "family-run guesthouses", "all-inclusive resorts",
                "beachfront stays", "city-centre apartments", "mountain cabins", "motels",
                "bed and breakfasts"),
    "pastimes": ("crowded places", "theme parks", "museums", "hiking in the mountains",
                 "board games", "video games", "gardening", "painting", "pottery classes",
                 "escape rooms", "karaoke nights", "chess"),
    "food_items": ("spicy food", "cilantro", "mushrooms", "olives", "dark chocolate",
                   "sweet desserts", "strong coffee", "green tea", "sparkling water",
                   "fast food", "street food", "sushi"),
    "devices": ("Android phones", "iPhones", "mechanical keyboards", "dark mode",
                "laptops", "desktop computers", "cloud storage", "smart speakers",
                "wireless earbuds", "e-readers", "smartwatches", "tablets"),
    "shopping": ("indie brands", "big-name brands", "secondhand clothes", "online shopping",
                 "shopping in person", "eco-friendly products", "handmade goods",
                 "subscription boxes", "discount stores", "luxury labels", "local markets",
                 "bulk buying"),
    "places": ("cold climates", "warm weather", "big cities", "quiet small towns",
               "beach holidays", "ski trips", "rainy days", "island getaways",
               "guided tours", "road-side diners", "national parks", "old town centres"),
    "social": ("large parties", "small gatherings", "loud bars", "dinner parties",
               "group trips", "solo travel", "networking events", "quiet evenings at home",
               "surprise parties", "live concerts", "team-building events", "crowded festivals"),
    "home": ("minimalist decor", "houseplants", "open-plan offices", "natural light",
             "carpeted floors", "bold wallpaper", "scented candles", "cluttered shelves",
             "standing desks", "air conditioning", "wooden furniture", "smart lighting"),
}

REASONS: tuple[str, ...] = (
    "because it suits me better", "since it fits how I live", "after a few bad experiences",
    "because I find it relaxing", "for practical reasons", "since I grew up with it",
    "because it's more comfortable for me", "as it never really worked for me",
    "because of the cost", "since it's just more my style",
)
LEADS: tuple[str, ...] = (
    "", "", "", "Just so you know, ", "For what it's worth, ", "FYI, ", "By the way, ",
    "Personally, ", "As a rule, ", "Honestly, ",
)

# {x} the topic, {y} another topic of its domain, {r} a reason. (frame, direction) pairs.
PREFERENCE_FRAMES: dict[Family, tuple[tuple[str, str], ...]] = {
    "train": (
        ("I prefer {x}.", "prefer"), ("I really like {x}.", "prefer"),
        ("I love {x}, {r}.", "prefer"), ("I'm a big fan of {x}.", "prefer"),
        ("I always go for {x}.", "prefer"), ("I strongly prefer {x} over {y}.", "prefer"),
        ("I'd rather have {x} than {y}.", "prefer"),
        ("Given the choice, I pick {x} every time.", "prefer"),
        ("{x} is what I enjoy most.", "prefer"), ("I enjoy {x} a lot, {r}.", "prefer"),
        ("I avoid {x}.", "avoid"), ("I don't like {x}.", "avoid"),
        ("I can't stand {x}.", "avoid"), ("I'm not a fan of {x}, {r}.", "avoid"),
        ("I stay away from {x} {r}.", "avoid"), ("{x} isn't for me.", "avoid"),
        ("Please don't suggest {x}; I dislike it.", "avoid"),
        ("I really dislike {x}.", "avoid"),
        ("I've always loved {x}.", "prefer"), ("Nothing beats {x} for me.", "prefer"),
        ("When I have the choice, {x} wins over {y}.", "prefer"),
        ("I usually choose {x} over {y}, {r}.", "prefer"), ("I only go with {x}.", "prefer"),
        ("I tend to prefer {x}.", "prefer"), ("{x} are my favourite, {r}.", "prefer"),
        ("I'm really fond of {x}.", "prefer"), ("I much prefer {x} to {y}.", "prefer"),
        ("I hate {x}.", "avoid"), ("{x} really isn't my thing.", "avoid"),
        ("I'm not into {x} at all.", "avoid"), ("I'd like to avoid {x}, {r}.", "avoid"),
        ("I have zero interest in {x}.", "avoid"), ("I prefer to skip {x}.", "avoid"),
        ("Please leave {x} out of any suggestions for me.", "avoid"),
        ("{x} make me uncomfortable, so I avoid them.", "avoid"),
        ("I strongly prefer not to have {x}.", "avoid"),
    ),
    "dev": (
        ("Honestly, {x} is more my thing than {y}.", "prefer"),
        ("Whenever possible I choose {x}.", "prefer"),
        ("My go-to is always {x}.", "prefer"), ("I'm really into {x}, {r}.", "prefer"),
        ("If I get a say, it's {x} for me.", "prefer"),
        ("I tend to steer clear of {x}.", "avoid"),
        ("Keep in mind that I dislike {x}.", "avoid"),
        ("I never go for {x} {r}.", "avoid"),
        ("I'd prefer not to deal with {x}.", "avoid"),
        ("{x}? Not for me, thanks.", "avoid"),
    ),
}
# The same topics in sentences that state no preference of the user's.
NEUTRAL_FRAMES: dict[Family, tuple[str, ...]] = {
    "train": (
        "Can you recommend some {x}?", "What are the pros and cons of {x}?",
        "Tell me a bit about the history of {x}.", "How much do {x} usually cost?",
        "My friend asked me about {x} yesterday.", "Are {x} getting more popular?",
        "Write a short paragraph about {x}.", "Compare {x} and {y} for me.",
        "What do people usually like about {x}?", "My sister loves {x}.",
        "My neighbour can't stand {x}.", "I need to write a report on {x} by Friday.",
        "Do you know any good {x}?", "Are {x} worth it?",
        "What's the difference between {x} and {y}?", "Plan a day around {x} for my parents.",
        "My kids keep asking for {x}.", "I bought {x} last week for a friend.",
        "Find me a few options for {x} near the station.", "Why do so many people hate {x}?",
        "My boss prefers {x} over {y}.", "Summarize the reviews of {x}.",
    ),
    "dev": (
        "Could you list a few facts about {x}?", "I read an article on {x} this morning.",
        "Which is cheaper, {x} or {y}?", "My colleague really dislikes {x}.",
        "Is there a good guide to {x}?", "We talked about {x} at lunch today.",
    ),
}
# Sarcasm praises what nobody wants; it states no preference to remember. {z} a nuisance.
NUISANCES: tuple[str, ...] = (
    "waiting in line for an hour", "my flight getting delayed again", "Monday mornings",
    "sitting in traffic", "being put on hold", "my laptop crashing before a deadline",
    "getting soaked on the way to work", "a meeting that could have been an email",
    "losing my keys", "the wifi dropping mid-call", "stepping on Lego",
    "my alarm not going off", "paying twice for the same thing", "cold coffee",
    "a twelve-hour shift", "my train being cancelled",
)
SARCASM_FRAMES: dict[Family, tuple[str, ...]] = {
    "train": (
        "Oh great, {z}. Just what I wanted.", "I just love {z}. Best day ever.",
        "Nothing like {z} to make my day.", "Wow, {z} again, I'm thrilled.",
        "Yeah, because {z} is so much fun.", "My favourite thing in the world: {z}. Not.",
    ),
    "dev": (
        "Ah yes, {z}, truly the highlight of my week.", "Can't get enough of {z}, really.",
        "{z}? Love that for me.",
    ),
}
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def _topics(family: Family) -> dict[str, list[str]]:
    """Each domain's topics of one family: every fourth is held out for dev."""
    return {
        domain: [t for i, t in enumerate(topics) if (i % 4 == 3) == (family == "dev")]
        for domain, topics in TOPICS.items()
    }


def _fill(frame: str, rng: random.Random, topics: list[str]) -> str:
    x, y = rng.sample(topics, 2)
    text = frame.format(x=x, y=y, r=rng.choice(REASONS))
    return text[0].upper() + text[1:]


def taxonomy_statements(
    forms: dict[tuple[str, str], list[str]], count: int, seed: int
) -> list[EventRecord]:
    """`count` preferences on taxonomy values written with the `train` frames: {x} a surface
    form of the value stated, {y} one of another value of its dimension."""
    rng = random.Random(seed)
    by_dimension: dict[str, list[str]] = {}
    for dimension, value in forms:
        by_dimension.setdefault(dimension, []).append(value)
    dimensions = sorted(d for d, values in by_dimension.items() if len(values) >= 2)
    out: list[EventRecord] = []
    for i in range(count):
        dimension = rng.choice(dimensions)
        value, other = rng.sample(sorted(by_dimension[dimension]), 2)
        frame, direction = rng.choice(PREFERENCE_FRAMES["train"])
        text = frame.format(x=rng.choice(forms[(dimension, value)]),
                            y=rng.choice(forms[(dimension, other)]), r=rng.choice(REASONS))
        oracle = {"action": "add", "attack": False, "dimension": dimension, "value": value,
                  "direction": direction, "scope": "global", "timescale": "permanent",
                  "template_family": "open_frame_taxonomy/train"}
        out.append(EventRecord(f"open-frame-{i}", 0, _EPOCH, Origin.user,
                               text[0].upper() + text[1:], "genuine_preference", oracle))
    return out


def open_preference_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` user events, half stating an open preference (prefer or avoid, global,
    permanent), half stating none: the same topics in requests, questions and other people's
    tastes, and (one in six events) sarcastic praise of a nuisance."""
    rng = random.Random(seed)
    topics = _topics(family)
    domains = sorted(topics)
    out: list[EventRecord] = []
    for i in range(count):
        domain_topics = topics[rng.choice(domains)]
        if i % 2 == 0:
            frame, direction = rng.choice(PREFERENCE_FRAMES[family])
            lead = rng.choice(LEADS)
            body = _fill(frame, rng, domain_topics)
            pronoun_i = body[0] == "I" and not body[1].isalpha()  # "I ...", "I'm ...": kept
            text = lead + (body[0].lower() + body[1:] if lead and not pronoun_i else body)
            oracle = {"action": "add", "attack": False, "dimension": OPEN_DIMENSION,
                      "value": OPEN_DIMENSION, "direction": direction, "scope": "global",
                      "timescale": "permanent", "template_family": f"open_preference/{family}"}
            label = "genuine_preference"
        elif i % 6 == 5:
            nuisance = rng.choice(NUISANCES[:12] if family == "train" else NUISANCES[12:])
            text = rng.choice(SARCASM_FRAMES[family]).format(z=nuisance)
            text = text[0].upper() + text[1:]
            oracle = {"action": "retain", "attack": False,
                      "template_family": f"open_sarcasm/{family}"}
            label = "sarcasm"
        else:
            text = _fill(rng.choice(NEUTRAL_FRAMES[family]), rng, domain_topics)
            oracle = {"action": "retain", "attack": False,
                      "template_family": f"open_neutral/{family}"}
            label = "benign_noise"
        out.append(EventRecord(f"open-{family}-{i}", 0, _EPOCH, Origin.user, text, label,
                               oracle))
    return out
