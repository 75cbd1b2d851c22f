"""The preference ontology the deterministic extractor reads against.

A *dimension* is what a preference is about (the hypothesis ``subject``); its *values* are
mutually exclusive, so two hypotheses on one dimension with different values contradict.
Each value lists the surface cues that signal it, as regex fragments over lower-cased text:

- ``cues`` are specific enough to count on their own ("bullet points", "golang");
- ``weak_cues`` are ambiguous words ("short", "go", "morning") that count only when the
  dimension's ``context`` appears in the same sentence, or right after a preference cue
  ("I prefer morning").

A dimension may also have a ``polar`` mention: a neutral word for the dimension itself
("citations", "comments", "meat") that picks one value when wanted and another when
refused ("no citations" is the value ``never``, not an avoided ``always``).

*Scope domains* are the named contexts a preference can be narrowed to ("in standups").
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Value:
    name: str
    # Noun phrase used to write the claim: "Prefers <phrase>".
    phrase: str
    cues: tuple[str, ...]
    weak_cues: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Polar:
    """A neutral mention of a dimension: one value when wanted, another when refused."""

    pattern: str
    wanted: str
    refused: str


@dataclass(frozen=True, slots=True)
class Dimension:
    name: str
    values: tuple[Value, ...]
    # Words that show a weak cue is about this dimension ("answer" for "short").
    context: str = ""
    polar: Polar | None = None
    # A scope the dimension lives in anyway ("business class when traveling" is just
    # "business class"), so naming it does not narrow the preference.
    home_scope: str | None = None

    def value(self, name: str) -> Value:
        for value in self.values:
            if value.name == name:
                return value
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class ScopeDomain:
    name: str
    # Suffix used to write the claim: "Prefers short answers <label>".
    label: str
    cues: tuple[str, ...]


_ANSWER = r"answers?|responses?|replies|reply|summar(?:y|ies)|outputs?|explanations?|write-?ups?"
_CODE = (
    r"code|coding|program\w*|scripts?|languages?|snippets?|examples?|backend|frontend|"
    r"services?|implement\w*|repos?|librar(?:y|ies)|apis?|functions?|cli|tools?|stack"
)
_MEETING = (
    r"meetings?|meet|calls?|syncs?|schedul\w*|book\w*|slots?|1:1s?|one-on-ones?|"
    r"catch-?ups?|interviews?|appointments?|stand-?ups?"
)
_FLIGHT = r"fl(?:y|ying|ights?|ew)|seats?|class|tickets?|cabin|book\w*|plane|airline"
_MUSIC = r"music|songs?|playlists?|listen\w*|tunes|radio|artists?|genre|albums?|bands?"
_EXERCISE = (
    r"exercis\w*|workouts?|train\w*|cardio|fitness|miles|km|5k|10k|marathons?|gym|"
    r"sports?|active|in shape|stay fit|morning|mornings|weekends?"
)

DIMENSIONS: tuple[Dimension, ...] = (
    Dimension(
        name="answer_length",
        context=_ANSWER,
        values=(
            Value(
                "short",
                "short answers",
                cues=(
                    r"concise(?:ly)?",
                    r"brief(?:ly)?",
                    r"terse",
                    r"succinct(?:ly)?",
                    r"short (?:answers?|responses?|replies|reply)",
                    r"(?:keep|make) (?:it|them|things|answers|responses) (?:short|brief|tight)",
                    r"short and sweet",
                    r"to the point",
                    r"tl;?dr",
                    r"one-liners?",
                    r"in a few words",
                    r"(?:no|without|skip the|cut the) fluff",
                    r"just the facts",
                    r"less verbose",
                ),
                weak_cues=(r"short", r"shorter"),
            ),
            Value(
                "medium",
                "medium-length answers",
                cues=(
                    r"medium[- ]length",
                    r"moderate(?:ly)? length",
                    r"medium (?:answers?|responses?)",
                    r"not too long,? (?:and |but |or )?not too short",
                    r"not too short,? (?:and |but |or )?not too long",
                    r"a couple of paragraphs",
                    r"a few paragraphs",
                    r"balanced length",
                ),
                weak_cues=(r"medium", r"moderate"),
            ),
            Value(
                "detailed",
                "detailed answers",
                cues=(
                    r"detailed (?:answers?|responses?|replies|explanations?)",
                    r"long[- ]form",
                    r"in (?:full |great )?detail",
                    r"more detail(?:s|ed)?",
                    r"comprehensive (?:answers?|responses?)",
                    r"long (?:answers?|responses?|replies)",
                    r"thorough (?:answers?|responses?)",
                    r"verbose",
                    r"elaborate",
                    r"all the details",
                    r"long-winded",
                ),
                weak_cues=(
                    r"detailed",
                    r"long",
                    r"longer",
                    r"thorough",
                    r"comprehensive",
                    r"lengthy",
                ),
            ),
        ),
    ),
    Dimension(
        name="code_language",
        context=_CODE,
        values=(
            Value("python", "Python code", cues=(r"python(?:ic)?", r"py3")),
            Value(
                "typescript",
                "TypeScript code",
                cues=(r"type ?script", r"tsx"),
                weak_cues=(r"ts",),
            ),
            Value("rust", "Rust code", cues=(r"rust(?:lang)?", r"cargo crates?")),
            Value(
                "go",
                "Go code",
                cues=(r"golang", r"go (?:code|programs?|services?|modules?|language)"),
                # "go" is a verb far more often than a language.
                weak_cues=(
                    r"go(?!\s+(?:with|to|ahead|back|over|through|on|out|in|up|down|away|into|"
                    r"home|there|outside|running|cycling|swimming|get|see|check|and|the|a|an|"
                    r"deep|long|fast|slow|easy|hiking|by|beyond|for a|for it)\b)",
                ),
            ),
            Value("java", "Java code", cues=(r"java(?! ?script)", r"jvm", r"spring boot")),
        ),
    ),
    Dimension(
        name="format",
        context=r"format\w*|layout|structur\w*|answers?|responses?|replies|present\w*|written",
        values=(
            Value(
                "bullets",
                "bullet-point formatting",
                cues=(
                    r"bullet(?:ed)?[- ]?(?:points?|lists?)?",
                    r"bullets",
                    r"as a list",
                    r"in a list",
                    r"in list form",
                    r"numbered lists?",
                    r"lists",
                ),
            ),
            Value(
                "prose",
                "prose paragraphs",
                cues=(
                    r"prose",
                    r"paragraphs?",
                    r"full sentences",
                    r"flowing text",
                    r"narrative form",
                    r"essay[- ]style",
                    r"running text",
                    r"plain sentences",
                ),
            ),
            Value(
                "table",
                "tables",
                cues=(r"tables?", r"tabular", r"in a grid", r"in columns", r"spreadsheet[- ]style"),
            ),
        ),
    ),
    Dimension(
        name="citations",
        context=r"cit(?:e|es|ing|ations?)|sources?|references?|links?|footnotes?",
        polar=Polar(
            r"cit(?:e|es|ing|ations?)|sources|references|footnotes|links to sources",
            wanted="always",
            refused="never",
        ),
        values=(
            Value(
                "always",
                "always citing sources",
                cues=(r"always cite", r"cite (?:everything|every claim|each claim)"),
            ),
            Value(
                "never",
                "answers without citations",
                cues=(r"never cite", r"no (?:citations|sources|references|footnotes)"),
            ),
            Value(
                "on_request",
                "citations only on request",
                cues=(r"on request", r"upon request", r"on demand"),
                weak_cues=(
                    r"(?:only )?(?:when|if) i (?:ask|request|want)(?: for)?(?: them| it)?",
                    r"(?:only )?(?:when|if) (?:asked|requested|needed)",
                ),
            ),
        ),
    ),
    Dimension(
        name="tone",
        context=r"tone|voice|style|register|talk\w*|writ\w*|speak\w*|sound|emails?|messages?",
        values=(
            Value(
                "formal",
                "a formal tone",
                cues=(r"formal(?:ly)?", r"professional(?:ly)?", r"business-like", r"polished"),
                weak_cues=(r"polite(?:ly)?", r"serious"),
            ),
            Value(
                "casual",
                "a casual tone",
                cues=(
                    r"casual(?:ly)?",
                    r"informal(?:ly)?",
                    r"laid[- ]back",
                    r"conversational",
                    r"relaxed (?:tone|style)",
                ),
                weak_cues=(r"relaxed", r"chill", r"friendly"),
            ),
            Value(
                "playful",
                "a playful tone",
                cues=(
                    r"playful(?:ly)?",
                    r"humou?rous",
                    r"humou?r",
                    r"jokes?",
                    r"witty",
                    r"light-?hearted",
                    r"funny",
                    r"puns",
                ),
                weak_cues=(r"silly", r"fun"),
            ),
        ),
    ),
    Dimension(
        name="units",
        context=r"units?|measure\w*|distances?|weights?|temperatures?|recipes?|system",
        values=(
            Value(
                "metric",
                "metric units",
                cues=(
                    r"metric",
                    r"si units",
                    r"kilomet(?:er|re)s?",
                    r"celsius",
                    r"kilograms?",
                    r"centimet(?:er|re)s?",
                    r"met(?:er|re)s",
                    r"grams",
                ),
                weak_cues=(r"km", r"kg", r"cm"),
            ),
            Value(
                "imperial",
                "imperial units",
                cues=(
                    r"imperial",
                    r"fahrenheit",
                    r"miles",
                    r"pounds",
                    r"lbs",
                    r"feet",
                    r"inches",
                    r"ounces",
                    r"us customary(?: units)?",
                ),
            ),
            Value(
                "both",
                "both metric and imperial units",
                cues=(
                    r"both (?:units|systems)",
                    r"(?:both )?metric and imperial",
                    r"(?:both )?imperial and metric",
                    r"with (?:unit )?conversions",
                ),
            ),
        ),
    ),
    Dimension(
        name="diet",
        home_scope="cooking",
        context=r"diet\w*|eat\w*|food|meals?|recipes?|dishes|cook\w*|menu|restaurants?",
        polar=Polar(r"meat", wanted="omnivore", refused="vegetarian"),
        values=(
            Value(
                "vegetarian",
                "vegetarian food",
                cues=(r"vegetarian", r"veggie", r"meatless", r"meat-free", r"no meat"),
            ),
            Value(
                "vegan",
                "vegan food",
                cues=(r"vegan", r"plant-based", r"no animal products", r"dairy-free and meat-free"),
            ),
            Value(
                "omnivore",
                "an omnivorous diet",
                cues=(r"omnivor(?:e|ous)", r"eat (?:everything|anything)", r"meat[- ]eater"),
            ),
            Value(
                "pescatarian",
                "pescatarian food",
                cues=(r"pesc[ae]tarian", r"fish but no meat", r"seafood but no meat"),
            ),
        ),
    ),
    Dimension(
        name="explanation_depth",
        context=r"explain\w*|explanations?|walk|teach\w*|level|depth|concepts?|how",
        values=(
            Value(
                "high_level",
                "high-level explanations",
                cues=(
                    r"high[- ]level",
                    r"big[- ]picture",
                    r"overviews?",
                    r"the gist",
                    r"eli5",
                    r"like i'?m (?:five|5)",
                    r"simple terms",
                    r"layman'?s? terms",
                    r"non-technical",
                    r"dumb(?:ed)? (?:it |things )?down",
                ),
            ),
            Value(
                "step_by_step",
                "step-by-step explanations",
                cues=(
                    r"step[- ]by[- ]step",
                    r"walk me through",
                    r"walk-?throughs?",
                    r"each step",
                    r"one step at a time",
                    r"numbered steps",
                    r"hand-?holding",
                ),
            ),
            Value(
                "expert",
                "expert-level explanations",
                cues=(
                    r"expert(?:-level| level)?",
                    r"advanced",
                    r"deep[- ]dives?",
                    r"in[- ]depth",
                    r"technical depth",
                    r"skip the basics",
                    r"assume i know",
                    r"nitty[- ]gritty",
                    r"under the hood",
                    r"like (?:an|to an) expert",
                    r"(?:no|without) hand-?holding",
                ),
            ),
        ),
    ),
    Dimension(
        name="meeting_time",
        context=_MEETING,
        values=(
            Value(
                "morning",
                "morning meetings",
                cues=(r"morning (?:meetings?|calls?|slots?|syncs?)", r"meetings? in the morning"),
                weak_cues=(
                    r"mornings?",
                    r"before noon",
                    r"early in the day",
                    r"first thing",
                    r"(?:[6-9]|1[01])(?::\d\d)? ?a\.?m\.?",
                ),
            ),
            Value(
                "afternoon",
                "afternoon meetings",
                cues=(
                    r"afternoon (?:meetings?|calls?|slots?|syncs?)",
                    r"meetings? in the afternoon",
                ),
                weak_cues=(
                    r"afternoons?",
                    r"after lunch",
                    r"midday",
                    r"(?:12|[1-4])(?::\d\d)? ?p\.?m\.?",
                ),
            ),
            Value(
                "evening",
                "evening meetings",
                cues=(r"evening (?:meetings?|calls?|slots?|syncs?)", r"meetings? in the evening"),
                weak_cues=(
                    r"evenings?",
                    r"after work",
                    r"late in the day",
                    r"at night",
                    r"(?:[5-9]|1[01])(?::\d\d)? ?p\.?m\.?",
                ),
            ),
        ),
    ),
    Dimension(
        name="notification_channel",
        context=(
            r"notif\w*|alerts?|ping\w*|reach(?:ing)? me|contact\w*|updates?|remind\w*|"
            r"channels?|hear from|communicat\w*|messages?|let me know"
        ),
        values=(
            Value(
                "email",
                "notifications by email",
                cues=(
                    r"(?:by|via|over|through|on) e-?mail",
                    r"e-?mail me",
                    r"e-?mail (?:notifications?|updates?|alerts?|reminders?)",
                ),
                weak_cues=(r"e-?mails?",),
            ),
            Value(
                "slack",
                "notifications on Slack",
                cues=(r"slack(?: dms?| messages?)?",),
            ),
            Value(
                "sms",
                "notifications by SMS",
                cues=(
                    r"sms",
                    r"text messages?",
                    r"text me",
                    r"texting",
                    r"(?:via|by|over) text",
                ),
                weak_cues=(r"texts",),
            ),
        ),
    ),
    Dimension(
        name="travel_class",
        home_scope="travel",
        context=_FLIGHT,
        values=(
            Value(
                "economy",
                "economy class",
                cues=(r"economy(?: class| seats?)?", r"coach (?:class|seats?)", r"cheapest seats?"),
                weak_cues=(r"coach",),
            ),
            Value(
                "business",
                "business class",
                cues=(r"business[- ]class",),
                weak_cues=(r"business",),
            ),
            Value("first", "first class", cues=(r"first[- ]class",)),
        ),
    ),
    Dimension(
        name="date_format",
        context=r"dates?|timestamps?|format\w*|calendar|written",
        values=(
            Value(
                "iso",
                "ISO dates (YYYY-MM-DD)",
                cues=(r"iso[- ]?8601", r"yyyy-mm-dd", r"year-month-day", r"iso (?:dates?|format)"),
                weak_cues=(r"iso",),
            ),
            Value(
                "us",
                "US-style dates (MM/DD/YYYY)",
                cues=(
                    r"mm/dd(?:/yy(?:yy)?)?",
                    r"month/day(?:/year)?",
                    r"month first",
                    r"american (?:dates?|format|style)",
                    r"us[- ](?:style )?(?:dates?|format)",
                ),
            ),
            Value(
                "european",
                "European-style dates (DD/MM/YYYY)",
                cues=(
                    r"dd[/.]mm(?:[/.]yy(?:yy)?)?",
                    r"day/month(?:/year)?",
                    r"day first",
                    r"european (?:dates?|format|style)",
                    r"(?:uk|british) (?:dates?|format|style)",
                ),
            ),
        ),
    ),
    Dimension(
        name="language",
        context=r"respond\w*|answer\w*|repl\w*|writ\w*|speak\w*|talk\w*|language|chat\w*|messages?",
        values=(
            Value(
                "english",
                "answers in English",
                cues=(r"in english",),
                weak_cues=(r"english",),
            ),
            Value(
                "spanish",
                "answers in Spanish",
                cues=(r"in spanish", r"en espa(?:ñ|n)ol", r"espa(?:ñ|n)ol"),
                weak_cues=(r"spanish",),
            ),
            Value(
                "french",
                "answers in French",
                cues=(r"in french", r"en fran(?:ç|c)ais", r"fran(?:ç|c)ais"),
                weak_cues=(r"french",),
            ),
            Value(
                "german",
                "answers in German",
                cues=(r"in german", r"auf deutsch", r"deutsch"),
                weak_cues=(r"german",),
            ),
        ),
    ),
    Dimension(
        name="code_comments",
        context=r"comment\w*|docstrings?",
        polar=Polar(r"(?:code )?comments|commenting|docstrings", wanted="thorough", refused="none"),
        values=(
            Value(
                "minimal",
                "minimal code comments",
                cues=(
                    r"(?:minimal|fewer|few|less|sparse|light|brief|short) (?:code )?comments",
                    r"sparse(?:ly)? commented",
                    r"comments? (?:only )?where (?:needed|necessary)",
                    r"only (?:necessary|essential|important|the important) comments",
                ),
                weak_cues=(r"minimal", r"sparse", r"sparingly", r"light"),
            ),
            Value(
                "thorough",
                "thorough code comments",
                cues=(
                    r"(?:thorough|detailed|extensive|plenty of|lots of|more|generous) "
                    r"(?:code )?comments",
                    r"well[- ]commented",
                    r"heavily commented",
                    r"thoroughly commented",
                    r"comment (?:everything|every line|each line|generously|thoroughly)",
                ),
                weak_cues=(r"thorough(?:ly)?", r"extensive(?:ly)?", r"generous(?:ly)?"),
            ),
            Value(
                "none",
                "code without comments",
                cues=(
                    r"no (?:code )?comments",
                    r"without (?:any )?comments",
                    r"uncommented",
                    r"zero comments",
                    r"comment-free",
                ),
            ),
        ),
    ),
    Dimension(
        name="music_genre",
        context=_MUSIC,
        values=(
            Value("jazz", "jazz", cues=(r"jazz(?:y)?", r"bebop", r"swing music")),
            Value(
                "rock",
                "rock music",
                cues=(r"rock music", r"classic rock", r"rock (?:and|&|n) roll", r"hard rock"),
                weak_cues=(r"rock(?! climbing)",),
            ),
            Value(
                "classical",
                "classical music",
                cues=(r"classical music", r"orchestral", r"symphon(?:y|ies|ic)", r"baroque"),
                weak_cues=(r"classical",),
            ),
            Value(
                "pop",
                "pop music",
                cues=(r"pop music", r"pop songs?", r"top 40", r"chart music"),
                weak_cues=(r"pop(?![- ]?(?:up|ups|quiz|corn|out))",),
            ),
        ),
    ),
    Dimension(
        name="exercise",
        home_scope="workouts",
        context=_EXERCISE,
        values=(
            Value(
                "running",
                "running",
                cues=(
                    r"jogging",
                    r"go(?:ing)? (?:for a )?run(?:ning|s)?",
                    r"(?:morning|long|trail|evening) runs?",
                    r"running (?:outside|outdoors)",
                ),
                # "running the tests" and "the test runner" are not exercise.
                weak_cues=(
                    r"runs",
                    r"a run",
                    r"runner",
                    r"running(?!\s+(?:the|a|an|this|that|these|those|my|our|your|it|them|late|"
                    r"low|out|into|on|tests?|code|scripts?|jobs?|queries|commands?|builds?|"
                    r"errands|through)\b)",
                ),
            ),
            Value(
                "cycling",
                "cycling",
                cues=(
                    r"cycling(?! through)",
                    r"biking",
                    r"bike rides?",
                    r"cyclist",
                    r"spin class(?:es)?",
                    r"riding my bike",
                ),
            ),
            Value("yoga", "yoga", cues=(r"yoga", r"vinyasa")),
            Value(
                "swimming",
                "swimming",
                cues=(r"swimming", r"swim(?:s)?", r"swimmer", r"laps in the pool"),
            ),
        ),
    ),
)

DIMENSIONS_BY_NAME: dict[str, Dimension] = {d.name: d for d in DIMENSIONS}

SCOPE_DOMAINS: tuple[ScopeDomain, ...] = (
    ScopeDomain(
        "standups",
        "in standups",
        (
            r"(?:daily |morning |team )?stand-?ups?(?: updates?| notes| meetings?)?",
            r"daily (?:scrums?|syncs?|check-?ins?)",
        ),
    ),
    ScopeDomain(
        "design_reviews",
        "in design reviews",
        (
            r"design (?:doc(?:ument)? )?reviews?",
            r"architecture reviews?",
            r"design critiques?",
            r"reviewing (?:a |the )?designs?",
        ),
    ),
    ScopeDomain(
        "weekend_project",
        "for the weekend project",
        (r"weekend (?:side )?projects?", r"side projects?", r"hobby projects?", r"pet projects?"),
    ),
    ScopeDomain(
        "code_review",
        "in code reviews",
        (
            r"code reviews?",
            r"reviewing (?:code|prs|pull requests|diffs)",
            r"(?:pr|pull request) reviews?",
            r"reviewing (?:my |your |their )?(?:pr|pull request)s?",
        ),
    ),
    ScopeDomain(
        "client_emails",
        "in client emails",
        (
            r"(?:client|customer) (?:e-?mails?|communications?|correspondence|messages)",
            r"e-?mails? (?:to|for) (?:my |our )?(?:clients?|customers?)",
            r"(?:writing|talking|replying|responding) to (?:my |our )?(?:clients?|customers?)",
            r"(?:e-?mailing|messaging) (?:my |our )?(?:clients?|customers?)",
        ),
    ),
    ScopeDomain(
        "travel",
        "when traveling",
        (
            r"(?:i'?m |i am )?travel+ing",
            r"i travel",
            r"(?:business )?trips?",
            r"travel plans?",
            r"itinerar(?:y|ies)",
            r"vacations?",
            r"travel",
        ),
    ),
    ScopeDomain(
        "cooking",
        "when cooking",
        (
            r"(?:i'?m |i am )?cooking",
            r"i cook",
            r"recipes?",
            r"meal (?:plans?|planning|prep)",
            r"the kitchen",
        ),
    ),
    ScopeDomain(
        "workouts",
        "for workouts",
        (
            r"workouts?",
            r"(?:i'?m |i am )?working out",
            r"i work out",
            r"the gym",
            r"(?:training|exercise|fitness) (?:plans?|routines?|sessions?)",
        ),
    ),
    ScopeDomain(
        "blog_posts",
        "in blog posts",
        (
            r"blog(?:ging)?(?: posts?| articles?)?",
            r"(?:my|the) articles",
            r"posts? (?:that )?i write",
        ),
    ),
    ScopeDomain(
        "incident_response",
        "during incident response",
        (
            r"incident(?:s| response| reviews?)?",
            r"outages?",
            r"on-?call",
            r"post-?mortems?",
            r"(?:prod|production) (?:is down|goes down|issues|fires)",
            r"firefighting",
        ),
    ),
)

SCOPE_DOMAINS_BY_NAME: dict[str, ScopeDomain] = {s.name: s for s in SCOPE_DOMAINS}

# Prepositions that introduce a scope ("in standups", "when I'm writing to clients"), so the
# whole phrase is masked off and does not read as a preference value.
_SCOPE_LEAD = (
    r"(?<!\w)(?:(?:in|for|during|at|on|with|when|while|inside|within|about)\s+"
    r"(?:(?:the|our|my|a|an|all|any|these|those|your)\s+)?)?"
)


def _words(fragment: str) -> str:
    """A fragment bounded so it matches whole words only."""
    return r"(?<!\w)(?:" + fragment + r")(?!\w)"


def compile_cues(cues: tuple[str, ...]) -> re.Pattern[str] | None:
    if not cues:
        return None
    return re.compile(_words("|".join(cues)))


_SCOPE_RE = re.compile(
    "|".join(
        rf"(?P<s{i}>{_SCOPE_LEAD}{_words('|'.join(s.cues))})" for i, s in enumerate(SCOPE_DOMAINS)
    )
)


def find_scopes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, domain name) of each scope phrase in lower-cased text."""
    found: list[tuple[int, int, str]] = []
    for match in _SCOPE_RE.finditer(text):
        group = match.lastgroup
        if group is not None:
            found.append((match.start(), match.end(), SCOPE_DOMAINS[int(group[1:])].name))
    return found
