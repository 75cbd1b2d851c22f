"""Cursor pagination: a stable order over (sort key, id), an opaque `next_cursor`, a bounded
page size.

A cursor is the last row's sort key and id, base64url-encoded JSON; the next page reads the
rows strictly after it in the same order, so rows written meanwhile never shift a page.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from fastapi import Query
from sqlalchemy import ColumnElement, tuple_
from sqlalchemy.orm import InstrumentedAttribute

from app.core.errors import InvalidInput
from app.core.inputs import EARLIEST, LATEST, SafeStr

MAX_PAGE_SIZE = 200
DEFAULT_PAGE_SIZE = 50
# Postgres' bigint: a larger sequence number in a cursor is refused before it reaches SQL.
MAX_SEQ = 2**63 - 1

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PageRequest:
    limit: int
    cursor: str | None


def page_request(
    limit: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE, description="Page size."),
    cursor: SafeStr | None = Query(
        None, max_length=256, description="`next_cursor` of the previous page."
    ),
) -> PageRequest:
    """FastAPI dependency: the page size and the cursor of a list endpoint."""
    return PageRequest(limit=limit, cursor=cursor)


@dataclass(frozen=True, slots=True)
class Key:
    """Where a page starts: after the row with this sort key and id."""

    sort: datetime | int
    id: uuid.UUID


def encode_cursor(sort: datetime | int, row_id: uuid.UUID) -> str:
    value = sort.isoformat() if isinstance(sort, datetime) else sort
    raw = json.dumps([value, str(row_id)], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, sort_type: type[datetime] | type[int]) -> Key | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        sort, row_id = json.loads(raw)
        key_sort: datetime | int
        if sort_type is datetime:
            key_sort = datetime.fromisoformat(sort)
            if key_sort.utcoffset() is None:
                raise ValueError("naive time")
            # Only what the service writes; far dates overflow in arithmetic on them.
            if not EARLIEST <= key_sort < LATEST:
                raise ValueError("time out of range")
        else:
            if not isinstance(sort, int) or not 0 <= sort <= MAX_SEQ:
                raise ValueError("not a sequence number")
            key_sort = sort
        return Key(key_sort, uuid.UUID(row_id))
    except (binascii.Error, ValueError, TypeError) as error:
        raise InvalidInput("invalid cursor") from error


def after(
    sort_column: InstrumentedAttribute[Any],
    id_column: InstrumentedAttribute[Any],
    key: Key | None,
    *,
    descending: bool,
) -> ColumnElement[bool] | None:
    """The keyset condition: rows strictly after `key` in the (sort, id) order."""
    if key is None:
        return None
    pair = tuple_(sort_column, id_column)
    bound = tuple_(key.sort, key.id)
    return pair < bound if descending else pair > bound


@dataclass(frozen=True, slots=True)
class Slice(Generic[T]):
    """One page of rows and the cursor of the next (None on the last page)."""

    rows: Sequence[T]
    next_key: Key | None

    @property
    def next_cursor(self) -> str | None:
        if self.next_key is None:
            return None
        return encode_cursor(self.next_key.sort, self.next_key.id)


def cut(rows: Sequence[T], limit: int, key_of: Any) -> Slice[T]:
    """`rows` were fetched with limit + 1: the extra row only says there is a next page."""
    if len(rows) <= limit:
        return Slice(rows, None)
    page = rows[:limit]
    sort, row_id = key_of(page[-1])
    return Slice(page, Key(sort, row_id))
