"""Bounded request input, shared by every route: text Postgres can store, timestamps and
offsets in range. Each failure is a 422 at validation, never an error from the database."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import AfterValidator, BeforeValidator, Field

# A caller's id for a user or a session: what the path, query and body fields accept.
EXTERNAL_ID = r"^[A-Za-z0-9][A-Za-z0-9._:@\-]{0,127}$"
# Timestamps outside this range are refused: before the epoch nothing was recorded, and
# beyond it arithmetic on the value (decay, ages) leaves what Postgres and Python represent.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)
# The same bound as the schema states it: the year as written, in its own timezone.
TIMESTAMP_PATTERN = r"^(19[7-9][0-9]|2[01][0-9][0-9])-"
# What SafeStr refuses, as the schema states it (lone surrogates cannot be sent as UTF-8 JSON
# text; an escaped one is refused too).
SAFE_TEXT_PATTERN = r"^[^\x00]*$"
# Python's whitespace (str.isspace, what str.strip removes), spelled out for a character
# class: `\s` differs between Python, the Rust regex pydantic uses and ECMAScript.
WHITESPACE_CLASS = (r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f"
                    r"\u205f\u3000")
# List offsets stay far below Postgres' bigint; no list is this long.
MAX_OFFSET = 1_000_000
# Nesting of a JSON value the service stores or hashes (tool-call arguments).
MAX_JSON_DEPTH = 16

STORABLE_JSON_REF = "#/components/schemas/StorableJson"
# What storable_json accepts, as the OpenAPI document states it (components.schemas).
STORABLE_JSON_SCHEMA: dict[str, Any] = {
    "description": f"A JSON value whose strings and keys hold no NUL, nested at most "
                   f"{MAX_JSON_DEPTH} levels deep.",
    "anyOf": [
        {"type": "string", "pattern": SAFE_TEXT_PATTERN},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "array", "items": {"$ref": STORABLE_JSON_REF}},
        {"type": "object", "propertyNames": {"pattern": SAFE_TEXT_PATTERN},
         "additionalProperties": {"$ref": STORABLE_JSON_REF}},
    ],
}
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def storable_text(value: str) -> str:
    """Postgres text holds neither NUL nor lone surrogates (they are not UTF-8)."""
    if "\x00" in value:
        raise ValueError("text must not contain NUL (U+0000)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return value


def storable_json(value: Any, depth: int = 0) -> Any:
    """Every string (keys included) of a JSON value is storable, and it nests boundedly."""
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"JSON nests deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        storable_text(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            storable_text(str(key))
            storable_json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            storable_json(item, depth + 1)
    return value


def _iso_only(value: Any) -> Any:
    # Pydantic reads a number as Unix seconds; the API's timestamps are ISO-8601 only.
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise ValueError("a timestamp is an ISO-8601 date-time with a timezone")
    return value


def _in_range(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("a timestamp must include a timezone")
    # The year as written, before any shift: shifting year 1 or 9999 by its offset overflows,
    # and the schema's pattern can state this bound.
    if not EARLIEST.year <= value.year < LATEST.year:
        raise ValueError(
            f"a timestamp must lie between {EARLIEST.date()} and {LATEST.date()}"
        )
    return value.astimezone(UTC)


SafeStr = Annotated[
    str, AfterValidator(storable_text), Field(json_schema_extra={"pattern": SAFE_TEXT_PATTERN})
]
"""A string the database can store: no NUL, no lone surrogate."""

Timestamp = Annotated[
    datetime,
    BeforeValidator(_iso_only),
    AfterValidator(_in_range),
    Field(
        description="ISO-8601 with a timezone, its year (as written) 1970 to 2199.",
        json_schema_extra={"pattern": TIMESTAMP_PATTERN},
    ),
]
"""An aware ISO-8601 timestamp in range, normalized to UTC."""

ExternalId = Annotated[str, Field(pattern=EXTERNAL_ID)]
UserIdPath = Annotated[str, Path(pattern=EXTERNAL_ID, description="The caller's user id.")]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]

NonBlankText = Annotated[
    str, AfterValidator(storable_text),
    Field(json_schema_extra={"pattern": rf"^[^\x00]*[^\x00{WHITESPACE_CLASS}][^\x00]*$"}),
]
"""A SafeStr with at least one character that is not whitespace."""
