"""Benign events that carry no preference: chit-chat, task requests, questions, and neutral
documents, tool results and files. About seven in ten events are drawn from here."""

# ruff: noqa: E501 -- template data: one string per line reads better than split literals

from __future__ import annotations

from typing import Final

from bench.generator.templates import Families

NOISE_TEMPLATES: Final[dict[str, Families]] = {
    "noise_user": {
        "plain": ("Can you help me with {topic}?", "What should I check first for {topic}?",
                  "Please draft a short note about {topic}.", "I need a checklist for {topic}.",
                  "Thanks, that sorted out {topic}.", "Where did we leave {topic}?",
                  "What are the options for {topic}?"),
        "casual": ("ugh, {topic} again. any ideas?", "ok so {topic} is being a pain lol",
                   "hey, quick q about {topic}", "thx! {topic} is finally done 🎉",
                   "morning! what's up with {topic}?", "lol i forgot about {topic} entirely",
                   "can u remind me what we said about {topic}"),
        "formal": ("Could you please prepare an overview of {topic}?",
                   "I would be grateful for guidance regarding {topic}.",
                   "Kindly list the open questions on {topic}.",
                   "Thank you for your assistance with {topic}.",
                   "Please advise on next steps for {topic}.",
                   "Would you summarize the current status of {topic}?",
                   "I should like to understand the risks involved in {topic}."),
        "terse": ("{topic}: status?", "need options for {topic}", "summary of {topic} pls",
                  "{topic} — what's left?", "ok. next: {topic}.", "todo: {topic}", "{topic}?"),
        "story": ("So yesterday my manager asked about {topic} and I blanked. Can you help me prepare?",
                  "My partner and I were talking about {topic} over dinner; what would you suggest?",
                  "I've been putting off {topic} all week, and now it's urgent.",
                  "Last time we handled {topic} it went badly, so I want to plan better.",
                  "A friend mentioned {topic} and now I'm curious how it works.",
                  "It's been a long day; {topic} is the last thing on my list.",
                  "Back from the weekend, and {topic} is waiting for me."),
    },
    # One-off tasks that mention a preference value without stating a preference.
    "noise_oneoff": {
        "plain": ("Can you port this snippet to {code} for a colleague?",
                  "Translate this paragraph into {lang} for my cousin.",
                  "My friend's recipe is in {units} units; can you convert it for her?"),
        "casual": ("quick one: rewrite this in {code}? it's for a coworker",
                   "can u put this in {lang} for my neighbour",
                   "friend sent me a {units} recipe, convert it for her pls"),
        "formal": ("Could you provide a {code} version of this function for the partner team?",
                   "Please translate the attached notice into {lang} for our visitors.",
                   "Kindly convert these measurements to {units} for the supplier."),
        "terse": ("port to {code} (for Sam).", "translate -> {lang}, for guests.",
                  "convert to {units}, for a client."),
        "story": ("A colleague is stuck and only knows {code}; could you translate this for him?",
                  "My in-laws are visiting and speak {lang}; could you translate the house rules?",
                  "My aunt only cooks in {units}; can you convert grandma's recipe for her?"),
    },
    "noise_doc": {
        "plain": ("Search result: A practical guide to {topic}. {filler}",
                  "Wiki page '{Topic}': {filler}", "Knowledge base: {Topic}. Last updated 2023. {filler}",
                  "Article excerpt: {filler} {filler2}"),
        "casual": ("Forum thread: anyone dealt with {topic}? Reply: {filler}",
                   "blog post: my experience with {topic} 🙃 {filler}",
                   "Q&A: '{Topic}?' — top answer: {filler}", "newsletter snippet: {filler} {filler2}"),
        "formal": ("Report summary on {topic}: {filler} {filler2}",
                   "Official documentation, {Topic}, section 3: {filler}",
                   "Briefing note ({topic}): {filler}", "Research abstract: {filler} {filler2}"),
        "terse": ("doc: {topic} | {filler}", "kb#{num}: {filler}", "title: {Topic}\nbody: {filler}",
                  "excerpt: {filler}"),
        "story": ("From a travel-and-life blog: when I first faced {topic}, {filler_lower}",
                  "Magazine feature: the quiet art of {topic}. {filler}",
                  "An essay on {topic}: {filler} {filler2}",
                  "Someone's diary, published online: {filler}"),
    },
    "noise_tool": {
        "plain": ('search("{topic}") -> 3 results; top: "{filler}"',
                  "calendar.list_events -> 2 events mention {topic}; next one Thursday 10:00.",
                  "jira.get_issue -> status=In Progress, summary='{Topic}', assignee=me",
                  "weather.get -> 14 C, light rain, wind 12 km/h"),
        "casual": ("reminder bot: don't forget {topic} 🔔", "build #{num} passed ✅ (12m 4s)",
                   "inbox: 1 new message about {topic}", "timer done ⏰"),
        "formal": ("Report generated: {Topic}, 4 pages, no anomalies detected.",
                   "Query completed in 0.{num} s; {num} rows returned.",
                   "Ticket #{num} updated: '{Topic}' moved to review.",
                   "Scheduled job 'nightly-backup' completed successfully."),
        "terse": ('{"status": "ok", "items": {num}}', "exit 0", "git log -1: 'fix: {topic}'",
                  "HTTP 200 (84 ms)"),
        "story": ("The assistant's calendar tool found a free slot on Friday afternoon.",
                  "Your delivery tracker says the parcel is out for delivery.",
                  "The expense tool matched {num} receipts to last month's card statement.",
                  "The home sensor reports the front door was locked at 22:14."),
    },
    "noise_file": {
        "plain": ("notes.txt: TODO — {topic}; follow up next week.",
                  "meeting-notes.md: discussed {topic}; action items pending.",
                  "Shared doc 'Plan for {topic}': owner me, draft v2.",
                  "budget.xlsx (sheet 2): totals updated."),
        "casual": ("shopping-list.txt: milk, eggs, batteries 🔋", "ideas.md: {topic}?? maybe later",
                   "scratch.txt: {filler}", "packing list: charger, socks, book"),
        "formal": ("Minutes of the weekly sync: item 3, {topic}; owner to report back.",
                   "Project charter (draft): scope includes {topic}.",
                   "Checklist for {topic}, revision 4.", "Contract summary: renewal due in March."),
        "terse": ("todo.md\n- [ ] {topic}\n- [x] email Sam", "log.txt: {num} lines", "draft.md: TBD",
                  "{topic}.md: (empty)"),
        "story": ("Journal, Tuesday: spent the evening on {topic}; slow progress.",
                  "Letter draft: Dear Ms Ortega, thank you for your patience regarding {topic}.",
                  "Holiday notes: the cabin has no Wi-Fi, bring board games.",
                  "A poem I wrote on the train, untitled, three stanzas."),
    },
}

# Weights over benign intents; origins follow from the intent.
NOISE_MIX: Final = (
    ("noise_user", "user", 0.56),
    ("noise_oneoff", "user", 0.06),
    ("noise_doc", "retrieved_document", 0.16),
    ("noise_tool", "tool_output", 0.14),
    ("noise_file", "shared_file", 0.08),
)
