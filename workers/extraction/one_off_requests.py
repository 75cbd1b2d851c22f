"""One-off requests that name a taxonomy value, and the same requests made standing, written
for training the extractor.

"Translate this letter into Spanish for my aunt." names a language and states no preference:
it is a task, done once, often for someone else. The benchmark's train split has such requests
in three template families; at the lower abstention threshold of version 6 the extractor read
dev's unseen family of them ("port to Go (for Sam).") as preferences, and the gate spent a
quarter of its dev questions on them (69 of 300) — questions a user's genuine revision later
in the session then lacked.

This module composes one-off requests from task frames and beneficiaries written for it
(nothing read from the benchmark's dev or test split or from third-party data): a task that
names a value of one of the taxonomy's dimensions (translate, port, convert, lay out, book,
cook, play, schedule, send, write a date, word a message), for one object ("this paragraph",
"the quote for the roofer") and, mostly, for someone or some occasion ("for my cousin", "for
Tuesday's workshop", "just this once"). They train the has-preference head only (no field
targets), as the authored chatter does. The same task frames made *standing* ("translate
your replies into Spanish from now on", `standing_events`) are preferences and train every
head, so that what the extractor learns is once-for-someone against from-now-on, not that a
task verb means no preference (without them, genuine revisions read right out of fold fell
from 94.6 to 92.0 %; docs/models/extractor.md).

Frames, objects and beneficiaries are dealt into two disjoint families, as in
`everyday_chatter.py`: `train` rows train the extractor; `dev` rows (other frames, other
objects, other beneficiaries) measure how far the lesson transfers (`score_one_off`).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Literal

from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

Family = Literal["train", "dev"]

# (dimension, (words that name a value, the value), task frames with {v} the value and {o} the
# object, objects the task fits, objects of a standing request)
Task = tuple[str, tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
TASKS: tuple[Task, ...] = (
    ("language", (("Spanish", "spanish"), ("French", "french"), ("German", "german"),
                  ("English", "english")), (
        "translate {o} into {v}", "can you put {o} into {v}", "I need {o} in {v}",
        "write {o} in {v}", "do a {v} version of {o}", "give me {o} in {v}",
    ), ("this paragraph", "the letter", "the invitation", "the welcome email", "the FAQ page",
        "the shipping form", "this menu", "the speech"),
     ("everything you write me", "your replies", "all my documents", "the emails you draft")),
    ("code_language", (("Python", "python"), ("TypeScript", "typescript"), ("Rust", "rust"),
                       ("Go", "go"), ("Java", "java")), (
        "port {o} to {v}", "rewrite {o} in {v}", "show me {o} in {v}",
        "convert {o} to {v}", "could you redo {o} in {v}", "sketch {o} in {v}",
    ), ("this snippet", "this function", "the script from the old repo", "the parser",
        "the CSV loader", "this loop", "the retry helper", "the build step"),
     ("code examples", "every script you write me", "snippets", "the code you show me")),
    ("units", (("metric", "metric"), ("imperial", "imperial"), ("miles and pounds", "imperial"),
               ("kilometres and kilograms", "metric")), (
        "convert {o} to {v}", "redo {o} in {v}", "give {o} in {v}",
        "change the units in {o} to {v}",
    ), ("the recipe", "these measurements", "the assembly instructions", "the hiking route",
        "the shelf dimensions", "the baggage rules", "the plant spacing guide", "the pattern"),
     ("every recipe", "all measurements", "distances and weights", "the numbers you give me")),
    ("format", (("a table", "table"), ("bullet points", "bullets"), ("a bulleted list", "bullets"),
                ("plain paragraphs", "prose")), (
        "put {o} in {v}", "turn {o} into {v}", "lay out {o} as {v}", "format {o} as {v}",
    ), ("these notes", "the budget numbers", "the kickoff agenda", "the survey results",
        "the packing list", "the minutes", "the price comparison", "the reading list"),
     ("your answers", "summaries", "every report", "your notes for me")),
    ("travel_class", (("an economy seat", "economy"), ("a business class seat", "business"),
                      ("a first class ticket", "first")), (
        "book {v} on {o}", "find {v} on {o}", "check the price of {v} on {o}",
        "hold {v} on {o}",
    ), ("the flight to Lisbon", "the red-eye to Boston", "the Friday flight to Oslo",
        "the train to Leeds", "the overnight to Vienna", "the flight home"),
     ("my flights", "every trip I take", "work travel", "my train journeys")),
    ("diet", (("vegan", "vegan"), ("vegetarian", "vegetarian"), ("pescatarian", "pescatarian"),
              ("meat", "omnivore")), (
        "find a {v} recipe for {o}", "suggest a {v} dish for {o}", "plan a {v} menu for {o}",
        "order {v} platters for {o}",
    ), ("the party on Saturday", "the school fundraiser", "the dinner with the in-laws",
        "the team lunch", "the picnic", "the potluck"),
     ("my meal plans", "dinners", "recipes you suggest", "my lunches")),
    ("music_genre", (("jazz", "jazz"), ("classical", "classical"), ("rock", "rock"),
                     ("pop", "pop")), (
        "make a {v} playlist for {o}", "pick some {v} songs for {o}",
        "queue up {v} for {o}", "find a {v} band for {o}",
    ), ("the wedding reception", "the road trip", "the shop opening", "the office party",
        "the dinner party", "the fundraiser"),
     ("my playlists", "focus music", "background music", "my radio")),
    ("exercise", (("running", "running"), ("cycling", "cycling"), ("yoga", "yoga"),
                  ("swimming", "swimming")), (
        "plan a {v} session for {o}", "look up {v} classes for {o}",
        "map a {v} route for {o}", "find a {v} coach for {o}",
    ), ("the weekend trip", "the team offsite", "the charity day", "the holiday",
        "the retreat", "the kids' camp"),
     ("my workouts", "my training", "my weekly sessions", "fitness plans")),
    ("meeting_time", (("morning", "morning"), ("afternoon", "afternoon"), ("evening", "evening")), (
        "set up a {v} call about {o}", "book a {v} slot to discuss {o}",
        "move the meeting on {o} to the {v}", "find a {v} time for {o}",
    ), ("the contract draft", "the roof repair", "the product announcement",
        "the quarterly numbers", "the hiring plan", "the move"),
     ("my meetings", "calls", "one-on-ones", "syncs")),
    ("notification_channel", (("email", "email"), ("Slack", "slack"), ("SMS", "sms"),
                              ("text message", "sms")), (
        "send {o} by {v}", "forward {o} over {v}", "share {o} on {v}", "post {o} via {v}",
    ), ("the receipt", "the quote for the roofer", "the photos", "the signed form",
        "the meeting link", "the invoice"),
     ("my alerts", "reminders", "updates", "notifications")),
    ("date_format", (("ISO format", "iso"), ("the US format", "us"),
                     ("day-month-year", "european")), (
        "write the dates in {o} in {v}", "put the deadline in {o} in {v}",
        "show the dates on {o} in {v}", "list the dates of {o} in {v}",
    ), ("the visa form", "the project plan", "the schedule", "the timesheet",
        "the booking request", "the itinerary"),
     ("dates", "deadlines", "every date you write", "timestamps")),
    ("tone", (("more formal", "formal"), ("more casual", "casual"), ("a bit playful", "playful")), (
        "make {o} {v}", "reword {o} to sound {v}", "rewrite {o} to be {v}",
        "edit {o} so it is {v}",
    ), ("the farewell card", "this message to my landlord", "the toast", "the cover letter",
        "the complaint email", "the club announcement"),
     ("your replies", "messages you draft for me", "your answers", "everything you write")),
)
BENEFICIARIES: tuple[str, ...] = (
    "for my aunt", "for a client", "for my cousin", "for the new intern", "for our visitors",
    "for Sam", "for the partner team", "for my neighbour", "for the supplier",
    "for my manager", "for Tuesday's workshop", "just this once", "for the school newsletter",
    "for my dad", "for the board meeting", "for a friend", "this one time", "for the auditors",
    "for my niece's class", "for the guests from Lyon", "for a colleague", "only for today",
    "for the landlord", "for the charity event",
)
LEADS: tuple[str, ...] = ("", "", "", "quick one: ", "please ", "could you ", "hey, ", "ok, ")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


# A standing request is the same task for everything of its kind, from now on: a preference.
STANDING_BEFORE: tuple[str, ...] = ("from now on, ", "going forward, ", "by default, ",
                                    "as a rule, ", "always ", "in general, ")
STANDING_AFTER: tuple[str, ...] = (" from now on", " from here on", " every time",
                                   " going forward", " by default", " as a rule")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def _dealt(items: tuple[str, ...], family: Family) -> list[str]:
    """Every fourth item is held out for the dev family."""
    return [x for i, x in enumerate(items) if (i % 4 == 3) == (family == "dev")]


def _request(rng: random.Random, family: Family, standing: bool) -> tuple[str, str, str]:
    """(text, dimension, value) of one request, one-off or standing."""
    dimension, values, frames, objects, standing_objects = rng.choice(TASKS)
    word, value = rng.choice(values)
    body = rng.choice(_dealt(frames, family)).format(
        v=word, o=rng.choice(_dealt(standing_objects if standing else objects, family)))
    if standing:
        marker = rng.randrange(2)
        text = (rng.choice(_dealt(STANDING_BEFORE, family)) + body if marker
                else rng.choice(LEADS) + body + rng.choice(_dealt(STANDING_AFTER, family)))
    else:
        text = rng.choice(LEADS) + body
        if rng.random() < 0.8:
            text += " " + rng.choice(_dealt(BENEFICIARIES, family))
    text += rng.choice((".", "?", "", " pls", ", thanks."))
    return text[0].upper() + text[1:], dimension, value


def one_off_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` user requests for a one-time task that names a taxonomy value; none states a
    preference. Most name someone or some occasion the task is for."""
    rng = random.Random(seed)
    out: list[EventRecord] = []
    for i in range(count):
        text, dimension, _ = _request(rng, family, standing=False)
        oracle = {"action": "retain", "attack": False, "mentions": dimension,
                  "template_family": f"one_off/{family}"}
        out.append(EventRecord(f"one-off-{family}-{i}", 0, _EPOCH, Origin.user, text,
                               "benign_noise", oracle))
    return out


def standing_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` standing requests with the same task frames ("translate your replies into
    Spanish from now on"): a preference for the value named (prefer, global, permanent). They
    keep the one-off lesson from teaching that a task verb means no preference."""
    rng = random.Random(seed + 1)
    out: list[EventRecord] = []
    for i in range(count):
        text, dimension, value = _request(rng, family, standing=True)
        oracle = {"action": "add", "attack": False, "dimension": dimension, "value": value,
                  "direction": "prefer", "scope": "global", "timescale": "permanent",
                  "template_family": f"standing_request/{family}"}
        out.append(EventRecord(f"standing-{family}-{i}", 0, _EPOCH, Origin.user, text,
                               "genuine_preference", oracle))
    return out
