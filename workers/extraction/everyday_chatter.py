"""Everyday events that state no preference, written for training the has-preference head.

The benchmark's train split holds its benign chatter in fifteen template families over 55
topics, and none of those topics touches a taxonomy value. An extractor trained on it alone
learned "an unfamiliar sentence about an unfamiliar topic is a preference" and "a taxonomy word
is a preference": on dev, "Where did we leave the piano lessons schedule?" was read as a
preference for classical music, and chatter in a register train never used as an open
preference — confidently enough that the abstention threshold had to sit at 0.995, where terse
genuine revisions ("Update: business class from here on.") fell below it.

This module composes chatter from frames and topics written for it (nothing is read from the
benchmark's dev or test split or from the third-party data): thanks, follow-ups, questions,
scheduling, status lines, tool outputs, documents and file listings, on everyday topics and on
topics that *mention* a taxonomy value without the user stating a preference for it ("the jazz
festival tickets", "the Python migration script", "the business class upgrade receipt"). They
train the has-preference head only (no field targets).

Frames and topics are dealt into two disjoint families, as in `open_preferences.py`: `train`
rows train the extractor; `dev` rows (other frames, other topics) measure how far the lesson
transfers (`score_chatter` in the training report).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Literal

from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

Family = Literal["train", "dev"]

# Everyday topics; every fourth is held out for the dev family.
EVERYDAY_TOPICS: tuple[str, ...] = (
    "the car insurance renewal", "the dentist appointment", "the team retrospective",
    "the leaky bathroom faucet", "the onboarding checklist", "my tax documents",
    "the birthday card for Dana", "the vet visit", "the grocery order",
    "the website redesign", "the quarterly OKRs", "the conference badge pickup",
    "the new hire's laptop", "the kitchen renovation quote", "my gym membership",
    "the holiday rota", "the broken garage door", "the podcast interview",
    "the load test results", "the invoice from the plumber", "the school trip form",
    "the server room cooling", "the newsletter draft", "the moving boxes",
    "the API deprecation notice", "the wedding seating chart", "the lost luggage claim",
    "the SSL certificate expiry", "the parking permit", "the customer interview notes",
    "the office plant watering schedule", "the charity run sign-up", "the lawn mower repair",
    "the sprint demo", "the mortgage paperwork", "the hackathon judging",
    "the fridge that keeps beeping", "the library book return", "the annual performance review",
    "the cat's flea treatment", "the backup drive", "the book club snacks",
    "the travel reimbursement", "the shared calendar invite", "the hallway lightbulb",
    "the data export for finance", "the roof gutter cleaning", "the kids' swimming gala tickets",
    "the staging database", "the farewell gift collection", "the window blinds order",
    "the printer toner", "the marathon training plan for my brother", "the phone bill dispute",
    "the status page incident", "the neighbour's noisy dog", "the volunteer schedule",
    "the slide deck for Monday", "the apartment viewing", "the bank card replacement",
)
# Topics that mention a taxonomy value in passing: the value is there, a preference is not.
MENTION_TOPICS: tuple[str, ...] = (
    "the jazz festival tickets", "the Python migration script",
    "the business class upgrade receipt",
    "the vegan bakery order for the office party", "the piano recital programme",
    "the Spanish homework for my daughter", "the yoga studio invoice", "the Rust workshop slides",
    "the spreadsheet tables for the audit", "the bullet list in the meeting minutes",
    "the email thread with the landlord", "the Slack workspace migration",
    "the SMS verification codes", "the formal dinner invitation", "the casual Friday memo",
    "the metric conversion chart on the fridge", "the first class mail delivery",
    "the economy parking lot shuttle", "the cycling club newsletter", "the swimming pool closure",
    "the running shoes return", "the classical concert recording", "the rock climbing wall booking",
    "the pop-up shop permit", "the Java heap dump", "the TypeScript build errors",
    "the Go module cache", "the French bakery's opening hours", "the German visa appointment",
    "the English exam results", "the step-by-step assembly manual for the shelf",
    "the high-level roadmap doc", "the expert witness report", "the code comments linter",
    "the detailed invoice breakdown", "the short film screening", "the morning standup notes",
    "the evening shift roster", "the afternoon tea booking", "the ISO audit checklist",
    "the vegetarian options at the caterer", "the pescatarian menu the restaurant sent",
    "the playlist for the office party", "the citation style guide for the paper",
    "the table reservation for Friday", "the paragraph count in the essay",
    "the miles on the rental car", "the kilograms on the shipping label",
)

# {x} a topic, {y} another topic, {n} a number.
FRAMES: dict[Family, dict[Origin, tuple[str, ...]]] = {
    "train": {
        Origin.user: (
            "Thanks, that fixed {x}.", "Perfect, {x} is done now.", "Any update on {x}?",
            "Remind me about {x} tomorrow.", "Can we go over {x} again?",
            "What was the deadline for {x}?", "I forgot about {x}, can you summarise it?",
            "Ok, moving on from {x} to {y}.", "Did I already send {x}?",
            "Who is handling {x}?", "Quick question about {x}.", "Let's pick up {x} after lunch.",
            "Add {x} to my to-do list.", "How long will {x} take?", "I'm stuck on {x}.",
            "Great, that helps with {x}.", "Can you draft a note about {x}?",
            "Is {x} still on for Thursday?", "Where are we with {x}?",
            "Got it, thanks for the help with {x}!", "Never mind {x}, it's sorted.",
            "Can you find the file about {x}?", "Let's park {x} for now.",
            "Ugh, {x} again. Can you help me deal with it?",
        ),
        Origin.tool_output: (
            "calendar.create -> '{x}' on Tue {n}:00", "Reminder set: {x}",
            "Task #{n} '{x}' marked done.", "search(\"{x}\") -> {n} results",
            "email.send -> ok (subject: {x})", "Status: {x} - pending approval",
            "Build {n} passed. Artifact: {x}.", "Upload complete: {x} ({n} KB)",
            "Notification: {x} was updated by a teammate.", "Form submitted: {x}, ref {n}.",
        ),
        Origin.retrieved_document: (
            "Help centre: how to handle {x}. Most cases take about {n} minutes.",
            "News: local council discusses {x}; a decision is expected next month.",
            "FAQ - {x}: contact support if the problem persists after {n} days.",
            "Blog post: what I learned from {x}. Plan ahead and keep receipts.",
            "Guide to {x}, part {n}: gather the documents before you start.",
        ),
        Origin.shared_file: (
            "notes.txt: {x} - follow up with Sam; {y} - done.",
            "Agenda: 1. {x} 2. {y} 3. AOB",
            "checklist.md: [x] {x} [ ] {y}", "Minutes: discussed {x}; no decisions yet.",
            "Budget sheet: {x} line item updated to {n}.",
        ),
    },
    "dev": {
        Origin.user: (
            "Appreciate it, {x} is sorted.", "What's left to do on {x}?",
            "Can you pull up what we said about {x}?", "Let's circle back to {x} next week.",
            "Hmm, I still have questions about {x}.", "Cool, {x} can wait until Monday.",
        ),
        Origin.tool_output: (
            "Ticket {n} closed: {x}.", "cron: job '{x}' finished in {n}s",
            "Doc shared with you: {x}",
        ),
        Origin.retrieved_document: (
            "Community answer about {x}: it usually resolves itself within {n} hours.",
            "Wiki: {x} overview, last edited {n} days ago.",
        ),
        Origin.shared_file: (
            "todo: {x}; then {y}", "Project log: {x} moved to next sprint.",
        ),
    },
}
_ORIGINS: tuple[Origin, ...] = (
    Origin.user, Origin.user, Origin.user, Origin.tool_output, Origin.retrieved_document,
    Origin.shared_file,
)
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def _topics(family: Family) -> list[str]:
    every = EVERYDAY_TOPICS + MENTION_TOPICS
    return [t for i, t in enumerate(every) if (i % 4 == 3) == (family == "dev")]


def chatter_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` benign events (half of the users' own lines, the rest tool outputs,
    documents and files) about everyday topics, a third of them topics that mention a
    taxonomy value; none states a preference."""
    rng = random.Random(seed)
    topics = _topics(family)
    mentions = [t for t in topics if t in MENTION_TOPICS]
    out: list[EventRecord] = []
    for i in range(count):
        origin = rng.choice(_ORIGINS)
        x = rng.choice(mentions) if i % 3 == 0 else rng.choice(topics)
        y = rng.choice([t for t in topics if t != x])
        text = rng.choice(FRAMES[family][origin]).format(x=x, y=y, n=rng.randint(2, 999))
        oracle = {"action": "retain", "attack": False, "topic": x,
                  "template_family": f"chatter/{family}"}
        out.append(EventRecord(f"chatter-{family}-{i}", 0, _EPOCH, origin,
                               text[0].upper() + text[1:], "benign_noise", oracle))
    return out
