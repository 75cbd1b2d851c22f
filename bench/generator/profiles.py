"""Preference dimensions, domains and synthetic users.

Concept names match the service's extractor (which uses its own wording); every value of a
dimension excludes the others, so a new value on the same scope contradicts the old one. The
users' names and roles are authored in `data/users.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import numpy as np

from app.core.corpora import SHARED, corpus_texts
from bench.generator.schema import JSON

DIMENSIONS: Final[dict[str, tuple[str, ...]]] = {
    "answer_length": ("short", "medium", "detailed"),
    "code_language": ("python", "typescript", "rust", "go", "java"),
    "format": ("bullets", "prose", "table"),
    "citations": ("always", "never", "on_request"),
    "tone": ("formal", "casual", "playful"),
    "units": ("metric", "imperial", "both"),
    "diet": ("vegetarian", "vegan", "omnivore", "pescatarian"),
    "explanation_depth": ("high_level", "step_by_step", "expert"),
    "meeting_time": ("morning", "afternoon", "evening"),
    "notification_channel": ("email", "slack", "sms"),
    "travel_class": ("economy", "business", "first"),
    "date_format": ("iso", "us", "european"),
    "language": ("english", "spanish", "french", "german"),
    "code_comments": ("minimal", "thorough", "none"),
    "music_genre": ("jazz", "rock", "classical", "pop"),
    "exercise": ("running", "cycling", "yoga", "swimming"),
}
WORK_DIMENSIONS: Final = (
    "answer_length", "code_language", "format", "citations", "tone", "explanation_depth",
    "meeting_time", "notification_channel", "date_format", "code_comments",
)
PERSONAL_DIMENSIONS: Final = (
    "units", "diet", "travel_class", "language", "music_genre", "exercise",
)

DOMAINS: Final = (
    "standups", "design_reviews", "weekend_project", "code_review", "client_emails", "travel",
    "cooking", "workouts", "blog_posts", "incident_response",
)

# Domains where a scoped value of a dimension makes sense (context switches scope into these).
DIMENSION_DOMAINS: Final[dict[str, tuple[str, ...]]] = {
    "answer_length": ("standups", "design_reviews", "client_emails", "incident_response",
                      "blog_posts", "code_review"),
    "code_language": ("weekend_project", "code_review", "incident_response", "blog_posts"),
    "format": ("standups", "design_reviews", "client_emails", "blog_posts", "incident_response",
               "travel"),
    "citations": ("blog_posts", "design_reviews", "client_emails"),
    "tone": ("client_emails", "blog_posts", "standups", "code_review"),
    "units": ("cooking", "travel", "workouts"),
    "diet": ("cooking", "travel"),
    "explanation_depth": ("design_reviews", "code_review", "incident_response",
                          "weekend_project", "blog_posts"),
    "meeting_time": ("standups", "design_reviews", "client_emails"),
    "notification_channel": ("incident_response", "standups", "travel"),
    "travel_class": ("travel", "client_emails"),
    "date_format": ("client_emails", "travel", "blog_posts", "standups"),
    "language": ("client_emails", "travel", "blog_posts", "cooking"),
    "code_comments": ("code_review", "weekend_project", "incident_response"),
    "music_genre": ("workouts", "cooking", "weekend_project"),
    "exercise": ("workouts", "travel"),
}

USERS_DATA = Path(__file__).parent / "data" / "users.yaml"
_FIRST_NAMES: Final = corpus_texts(USERS_DATA, SHARED, table="first_names")
_ROLES: Final = corpus_texts(USERS_DATA, SHARED, table="roles")


@dataclass(frozen=True)
class User:
    """A synthetic user: a latent profile over every dimension plus a few scoped values."""

    user_id: str
    index: int
    name: str
    role: str
    profile: dict[str, str]
    # (dimension, domain) -> value differing from the global one.
    scoped: dict[tuple[str, str], str] = field(default_factory=dict)

    def to_json(self) -> JSON:
        scoped: dict[str, dict[str, str]] = {}
        for (dim, dom), value in sorted(self.scoped.items()):
            scoped.setdefault(dom, {})[dim] = value
        return {"global": dict(sorted(self.profile.items())), "scoped": scoped}


def other_value(rng: np.random.Generator, dimension: str, *exclude: str) -> str:
    """A value of the dimension differing from every excluded one."""
    choices = [v for v in DIMENSIONS[dimension] if v not in exclude]
    return choices[int(rng.integers(len(choices)))]


def sample_user(seed: int, index: int) -> User:
    """Deterministic user number `index` for this seed."""
    rng = np.random.default_rng([seed, 11, index])
    profile = {dim: values[int(rng.integers(len(values)))] for dim, values in DIMENSIONS.items()}
    scoped: dict[tuple[str, str], str] = {}
    dims = list(DIMENSIONS)
    for _ in range(1 + int(rng.integers(2))):
        dim = dims[int(rng.integers(len(dims)))]
        domains = DIMENSION_DOMAINS[dim]
        dom = domains[int(rng.integers(len(domains)))]
        scoped[(dim, dom)] = other_value(rng, dim, profile[dim])
    return User(
        user_id=f"dpg-u{index:04d}",
        index=index,
        name=_FIRST_NAMES[int(rng.integers(len(_FIRST_NAMES)))],
        role=_ROLES[int(rng.integers(len(_ROLES)))],
        profile=profile,
        scoped=scoped,
    )
