"""What a response that honours each taxonomy value looks like, in words: the prototype r_p
compares a candidate with (beside the claim itself). Written from the meaning of each value,
not from benchmark candidates."""

# ruff: noqa: E501 -- description data: one string per line

from __future__ import annotations

from typing import Final

VALUE_DESCRIPTIONS: Final[dict[str, dict[str, str]]] = {
    "answer_length": {
        "short": "A very short, terse reply of one line or a few words.",
        "medium": "A reply of a few sentences: some detail, but not long.",
        "detailed": "A long, detailed reply covering background, every step, timeline and follow-ups.",
    },
    "code_language": {
        "python": "Code written in Python: def, import, self, pip packages.",
        "typescript": "Code written in TypeScript or JavaScript: const, async, interfaces, npm.",
        "rust": "Code written in Rust: fn, let mut, Result, crates, cargo.",
        "go": "Code written in Go (golang): func, err != nil, packages.",
        "java": "Code written in Java: classes, static methods, Maven libraries.",
    },
    "format": {
        "bullets": "A list of short bullet points, one item per line starting with a dash or dot.",
        "prose": "Flowing prose sentences in a paragraph, without lists or tables.",
        "table": "A table with columns and rows separated by vertical bars.",
    },
    "citations": {
        "always": "An answer with references: author names, years, journals and numbered citations.",
        "never": "A plain answer stating the facts without any references or sources.",
        "on_request": "A plain answer that offers to provide sources or references if asked.",
    },
    "tone": {
        "formal": "A formal, polite and professional message with a courteous greeting and sign-off.",
        "casual": "A casual, friendly, relaxed message, like talking to a friend.",
        "playful": "A playful, humorous message with jokes, exclamations and emoji.",
    },
    "units": {
        "metric": "Quantities in metric units: kilometres, kilograms, grams, litres, metres, Celsius.",
        "imperial": "Quantities in imperial units: miles, pounds, ounces, feet, cups, Fahrenheit.",
        "both": "Quantities given in both metric and imperial units side by side.",
    },
    "diet": {
        "vegetarian": "A vegetarian meal with vegetables, eggs or cheese and no meat or fish.",
        "vegan": "A vegan meal of plants only: beans, lentils, tofu, vegetables, no animal products.",
        "omnivore": "A meal with meat such as chicken, beef, pork or lamb.",
        "pescatarian": "A meal with fish or seafood such as salmon, tuna, cod or prawns.",
    },
    "explanation_depth": {
        "high_level": "A simple big-picture overview in plain words, without technical detail.",
        "step_by_step": "A numbered, step-by-step walkthrough: first, then, next, finally.",
        "expert": "A dense expert explanation with precise technical terms, protocols and internals.",
    },
    "meeting_time": {
        "morning": "A meeting booked in the morning, before noon.",
        "afternoon": "A meeting booked in the afternoon, after lunch.",
        "evening": "A meeting booked in the evening, after work.",
    },
    "notification_channel": {
        "email": "A notification sent by email to the inbox.",
        "slack": "A notification posted as a Slack message or direct message.",
        "sms": "A notification sent as a text message (SMS) to the phone.",
    },
    "travel_class": {
        "economy": "The cheapest economy or standard seat.",
        "business": "A business-class seat with a flat bed or extra comfort.",
        "first": "A first-class seat or suite, the most luxurious option.",
    },
    "date_format": {
        "iso": "Dates written year-month-day, like 2030-01-31.",
        "us": "Dates written month/day/year, like 01/31/2030.",
        "european": "Dates written day/month/year, like 31/01/2030 or 31.01.2030.",
    },
    "language": {
        "english": "A reply written in English.",
        "spanish": "Una respuesta escrita en español.",
        "french": "Une réponse écrite en français.",
        "german": "Eine Antwort auf Deutsch geschrieben.",
    },
    "code_comments": {
        "minimal": "Code with a single short comment on the one line that needs it.",
        "thorough": "Code with many explanatory comments describing every step.",
        "none": "Bare code with no comments at all.",
    },
    "music_genre": {
        "jazz": "Jazz music: swing, bebop, saxophone, trumpet, jazz standards.",
        "rock": "Rock music: electric guitars, drums, rock bands and anthems.",
        "classical": "Classical music: orchestras, symphonies, sonatas, composers like Bach or Mozart.",
        "pop": "Pop music: catchy chart hits by pop stars.",
    },
    "exercise": {
        "running": "Running workouts: jogs, runs, intervals, kilometres on foot.",
        "cycling": "Cycling workouts: bike rides, spinning, road or mountain biking.",
        "yoga": "Yoga sessions: poses, stretching, flows on the mat.",
        "swimming": "Swimming workouts: laps in the pool or open-water swims.",
    },
}
