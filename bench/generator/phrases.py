"""Surface phrases for values, dimensions, domains and benign topics.

Several paraphrases per slot so one concept never has a single fixed wording. Wording is
kept clear of the extractor's protected-attribute cues (health, religion and so on), since a
genuine preference the schema must refuse could never be adopted.
"""

# ruff: noqa: E501 -- template data: one string per line reads better than split literals

from __future__ import annotations

from typing import Final

# Noun phrases that fit "I prefer {v}" / "please use {v}".
VALUE_PHRASES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "answer_length": {
        "short": ("short answers", "brief replies", "answers that get to the point in a few lines"),
        "medium": ("medium-length answers", "answers of a paragraph or two",
                   "moderately detailed replies"),
        "detailed": ("detailed answers", "long, thorough write-ups",
                     "in-depth replies with all the details"),
    },
    "code_language": {
        "python": ("Python", "Python for code examples", "code samples in Python"),
        "typescript": ("TypeScript", "TypeScript for code examples", "code samples in TypeScript"),
        "rust": ("Rust", "Rust for code examples", "code samples in Rust"),
        "go": ("Go", "Golang for code examples", "code samples in Go"),
        "java": ("Java", "Java for code examples", "code samples in Java"),
    },
    "format": {
        "bullets": ("bullet points", "bulleted lists", "answers formatted as bullets"),
        "prose": ("plain prose", "full paragraphs instead of lists", "flowing paragraphs"),
        "table": ("tables", "answers laid out as a table", "tabular summaries"),
    },
    "citations": {
        "always": ("sources cited for every claim", "citations on everything",
                   "links to sources every time"),
        "never": ("no citations at all", "answers without source links",
                  "replies with no references"),
        "on_request": ("citations only when I ask for them", "sources only on request",
                       "references only if I ask"),
    },
    "tone": {
        "formal": ("a formal tone", "formal, professional wording",
                   "a buttoned-up, professional voice"),
        "casual": ("a casual tone", "relaxed, conversational wording", "an informal voice"),
        "playful": ("a playful tone", "some humor and a light touch", "a cheeky, playful voice"),
    },
    "units": {
        "metric": ("metric units", "kilometres and kilograms", "the metric system"),
        "imperial": ("imperial units", "miles and pounds", "the imperial system"),
        "both": ("both metric and imperial units", "measurements in both systems",
                 "metric with imperial in brackets"),
    },
    "diet": {
        "vegetarian": ("vegetarian recipes", "vegetarian food", "meat-free meals"),
        "vegan": ("vegan recipes", "fully plant-based food", "vegan meals"),
        "omnivore": ("recipes with meat and fish", "regular omnivore meals",
                     "anything, meat included"),
        "pescatarian": ("pescatarian recipes", "fish but no meat", "seafood-and-veg meals"),
    },
    "explanation_depth": {
        "high_level": ("high-level explanations", "the big picture without the weeds",
                       "overview-level explanations"),
        "step_by_step": ("step-by-step explanations", "walkthroughs one step at a time",
                         "numbered steps"),
        "expert": ("expert-level explanations", "deep technical detail that skips the basics",
                   "explanations pitched at an expert"),
    },
    "meeting_time": {
        "morning": ("morning meetings", "meetings before lunch", "early slots in the morning"),
        "afternoon": ("afternoon meetings", "meetings after lunch", "afternoon slots"),
        "evening": ("evening meetings", "late-day slots after five", "meetings in the evening"),
    },
    "notification_channel": {
        "email": ("email notifications", "updates by email", "alerts in my inbox"),
        "slack": ("Slack notifications", "pings on Slack", "Slack messages for updates"),
        "sms": ("text message alerts", "SMS notifications", "updates by text"),
    },
    "travel_class": {
        "economy": ("economy seats", "flying economy", "the cheapest cabin"),
        "business": ("business class", "business-class seats", "flying business"),
        "first": ("first class", "first-class seats", "the first-class cabin"),
    },
    "date_format": {
        "iso": ("ISO dates like 2024-05-01", "year-month-day dates", "ISO 8601 dates"),
        "us": ("US-style dates like 05/01/2024", "month-first dates", "the American date format"),
        "european": ("European dates like 01.05.2024", "day-first dates",
                     "day/month/year dates"),
    },
    "language": {
        "english": ("answers in English", "English replies", "English"),
        "spanish": ("answers in Spanish", "Spanish replies", "Spanish"),
        "french": ("answers in French", "French replies", "French"),
        "german": ("answers in German", "German replies", "German"),
    },
    "code_comments": {
        "minimal": ("minimal code comments", "only the essential comments",
                    "sparse comments in code"),
        "thorough": ("thoroughly commented code", "lots of comments explaining each step",
                     "detailed code comments"),
        "none": ("code with no comments", "uncommented code", "zero comments in code"),
    },
    "music_genre": {
        "jazz": ("jazz", "jazz playlists", "some jazz in the background"),
        "rock": ("rock", "rock playlists", "loud rock music"),
        "classical": ("classical music", "classical playlists", "orchestral pieces"),
        "pop": ("pop", "pop playlists", "upbeat pop music"),
    },
    "exercise": {
        "running": ("running", "runs as my workout", "running plans"),
        "cycling": ("cycling", "bike rides as my workout", "cycling plans"),
        "yoga": ("yoga", "yoga sessions", "yoga routines"),
        "swimming": ("swimming", "laps in the pool", "swim workouts"),
    },
}

DIMENSION_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "answer_length": ("answer length", "how long your answers are"),
    "code_language": ("programming language", "the language for code examples"),
    "format": ("formatting", "how you format answers"),
    "citations": ("citations", "sources"),
    "tone": ("tone", "the tone of your replies"),
    "units": ("units", "measurements"),
    "diet": ("food", "what I eat"),
    "explanation_depth": ("explanation depth", "how deep explanations go"),
    "meeting_time": ("meeting times", "when meetings get scheduled"),
    "notification_channel": ("notifications", "how you notify me"),
    "travel_class": ("flights", "travel class"),
    "date_format": ("date format", "how dates are written"),
    "language": ("language", "the language you answer in"),
    "code_comments": ("code comments", "comments in code"),
    "music_genre": ("music", "background music"),
    "exercise": ("exercise", "my training"),
}

# Prepositional phrases that scope a statement to a domain ("{ctx}, I prefer ...").
DOMAIN_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "standups": ("for standups", "in my standup updates", "when I post my daily standup"),
    "design_reviews": ("for design reviews", "in design review docs", "when we do design reviews"),
    "weekend_project": ("for my weekend project", "on my side project at the weekend",
                        "for the weekend hobby project"),
    "code_review": ("in code reviews", "when reviewing pull requests", "for PR reviews"),
    "client_emails": ("in client emails", "when writing to clients", "for emails to customers"),
    "travel": ("when I'm travelling", "for trips", "while on the road"),
    "cooking": ("for cooking", "when I cook at home", "in recipes"),
    "workouts": ("for workouts", "at the gym", "during training"),
    "blog_posts": ("for blog posts", "in my blog writing", "when drafting posts for my blog"),
    "incident_response": ("during incidents", "for incident response",
                          "when I'm on call and something breaks"),
}

# Prefixes for probe queries scoped to a domain.
DOMAIN_QUERY_PREFIX: Final[dict[str, str]] = {
    "standups": "For my standup",
    "design_reviews": "For the design review",
    "weekend_project": "For my weekend project",
    "code_review": "For this code review",
    "client_emails": "For a client email",
    "travel": "For my trip",
    "cooking": "For cooking tonight",
    "workouts": "For my workout",
    "blog_posts": "For my blog post",
    "incident_response": "During this incident",
}

# Subjects of benign turns. Split disjointly across train / dev / test ("topics" in the paper).
TOPICS: Final = (
    "the quarterly budget review", "the kubernetes upgrade", "our onboarding checklist",
    "the Q3 roadmap", "a flaky integration test", "the database migration",
    "the hiring plan for the data team", "my sister's birthday gift", "a leaky kitchen tap",
    "the neighbourhood book club", "renewing my passport", "the office move", "a cover letter",
    "the API rate limits", "a slow SQL query", "the logging pipeline", "our on-call rotation",
    "the conference talk proposal", "a houseplant that keeps wilting", "the car's annual service",
    "the garden fence", "the tax return", "a wedding toast", "the team offsite",
    "the vendor contract", "a product launch announcement", "the accessibility audit",
    "the load balancer config", "my home Wi-Fi dropping out", "a noisy upstairs neighbour",
    "the holiday schedule", "a used bike I'm looking at", "my kid's science fair project",
    "the podcast episode outline", "the cache invalidation bug", "the CI pipeline timing out",
    "the customer churn numbers", "the pricing page copy", "an apartment lease renewal",
    "the photo backup setup", "the password manager rollout", "the board meeting slides",
    "a chess opening I keep losing with", "the expense report", "a sourdough starter",
    "the spring cleaning list", "the team retro", "the data retention policy",
    "a broken dishwasher", "the new laptop setup", "the quarterly OKRs", "a birthday party venue",
    "the marketing newsletter", "the analytics dashboard", "a jammed printer",
    "the moving boxes", "the feature flag cleanup", "the security questionnaire",
    "my reading list", "the bathroom renovation", "the intern's first project",
    "the release notes", "a parking permit", "the monitoring alerts", "the user survey results",
    "a gift for my manager", "the open-source licence question", "the backlog grooming",
    "my bike's squeaky brakes", "the invoice from the contractor", "the search ranking tweak",
    "a dinner party guest list", "the translation of the help docs", "the sprint demo",
    "the budget spreadsheet formulas", "a tricky regex", "the school pickup rota",
    "the annual performance review", "the DNS outage postmortem", "a flat tyre",
    "the mobile app crash reports", "the charity bake sale", "the storage costs",
    "the job description for a designer", "the garage clean-out", "the API versioning plan",
    "a thank-you note", "the warehouse inventory count", "the piano lessons schedule",
    "the GDPR request", "the onboarding survey",
)

# Neutral sentences that pad documents and carriers.
FILLERS: Final = (
    "Most teams start by listing the constraints before picking an approach.",
    "Plan for about two hours and leave some buffer for surprises.",
    "The usual advice is to change one thing at a time and measure.",
    "Prices vary a lot by region, so compare at least three quotes.",
    "A short checklist tends to beat a long document nobody reads.",
    "Start with the cheapest fix and escalate only if it fails.",
    "Keep a written record of what you tried and what happened.",
    "Ask the people affected before deciding on a timeline.",
    "The default settings are fine for most people.",
    "Weekends are usually quieter, which makes rollouts easier.",
    "Back up anything important before you begin.",
    "It helps to agree on who owns each follow-up.",
    "The newer version fixes several long-standing issues.",
    "Expect the first attempt to take longer than later ones.",
    "Shipping costs are often higher than people expect.",
    "Reviews mention that support answers within a day.",
    "The documentation covers the common cases well.",
    "A quick dry run catches most mistakes.",
    "Batteries last roughly a full day of normal use.",
    "Local libraries often have free guides on this.",
    "Version 3.2 was released last spring.",
    "Registration closes at the end of the month.",
    "The meeting notes are linked at the bottom of the page.",
    "Several readers reported the same problem last year.",
)
