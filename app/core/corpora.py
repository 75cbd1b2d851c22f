"""The one reader of authored text kept as data: training corpora, benchmark wording and
evaluation sets.

A corpus is a YAML file beside the code that reads it (a package's `data/` folder, shipped as
package data): a list of records, each a mapping whose `set` names the set it belongs to by
its role (`train`, `dev`, `blind`, `sealed`, ...; `shared` for what every set of its file
reads). A file is parsed once per version of it and its records are handed out frozen:
mappings as read-only views, lists as tuples, so the cache cannot be changed by a caller.

Evaluation-only files (the sealed split's wording, the near-miss statements) are read by the
`bench` modules beside them, which training may not import (an import-linter contract).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

Record = Mapping[str, Any]
SET = "set"
SHARED = "shared"  # the set every other set of its file reads too
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CorpusError(ValueError):
    """A data file that does not have the shape its set needs."""


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _frozen(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


@lru_cache(maxsize=32)
def _parsed(path: Path, version: tuple[int, int]) -> tuple[Record, ...]:
    """The records of `path` as it is at `version` (modification time, size)."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    if not isinstance(data, list):
        raise CorpusError(f"{path.name}: expected a list of records")
    records: list[Record] = []
    for position, record in enumerate(data):
        if not isinstance(record, dict):
            raise CorpusError(f"{path.name}[{position}]: a record is a mapping")
        if not isinstance(record.get(SET), str) or not record[SET]:
            raise CorpusError(f"{path.name}[{position}]: a record names its set")
        records.append(_frozen(record))
    return tuple(records)


def load_records(path: Path, set_name: str | None = None) -> tuple[Record, ...]:
    """Every record of `path`, in file order. With `set_name`, the file holds that set alone
    (an evaluation set's file): a record of another set is refused."""
    stat = path.stat()
    records = _parsed(path.resolve(), (stat.st_mtime_ns, stat.st_size))
    if set_name is not None:
        for position, record in enumerate(records):
            if record[SET] != set_name:
                raise CorpusError(f"{path.name}[{position}]: set is {record[SET]!r}, "
                                  f"expected {set_name!r}")
    return records


def thawed(value: Any) -> Any:
    """A record's value as plain data (dicts and lists), for code that serializes or changes it."""
    if isinstance(value, Mapping):
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thawed(item) for item in value]
    return value


def select(path: Path, set_name: str, **fields: str) -> tuple[Record, ...]:
    """The records of `path` in set `set_name` whose `fields` have the values given, in file
    order; at least one (a set or table that matches nothing is a misspelling)."""
    found = tuple(
        r for r in load_records(path)
        if r[SET] == set_name and all(r.get(key) == value for key, value in fields.items())
    )
    if not found:
        raise CorpusError(f"{path.name}: no record of set {set_name!r} with {fields}")
    return found


def text(record: Record, key: str = "text", *, allow_empty: bool = False) -> str:
    """A record's string under `key`: non-empty unless `allow_empty`."""
    value = record.get(key)
    if not isinstance(value, str) or not (allow_empty or value.strip()):
        raise CorpusError(f"{record.get('table', dict(record))!r}: {key} must be a string")
    return value


def texts(record: Record, key: str = "texts") -> tuple[str, ...]:
    """A record's non-empty list of non-empty strings under `key`."""
    value = record.get(key)
    if (not isinstance(value, tuple) or not value
            or not all(isinstance(t, str) and t.strip() for t in value)):
        raise CorpusError(f"{record.get('table', dict(record))!r}: {key} must list strings")
    return value


def strings(records: Iterable[Record], key: str = "text", *,
            allow_empty: bool = False) -> tuple[str, ...]:
    """Each record's string under `key`, in order."""
    return tuple(text(r, key, allow_empty=allow_empty) for r in records)


def corpus_texts(path: Path, set_name: str, **fields: str) -> tuple[str, ...]:
    """The `text` of every record `select` finds, in file order."""
    return strings(select(path, set_name, **fields))
