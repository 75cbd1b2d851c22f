"""The one loader of authored benchmark text: YAML files holding a list of records, each a
mapping with a `set` field that names the set it belongs to (`sealed`, `nearmiss`, ...).

Authored sets are evaluation data. Training reads none of them (an import-linter contract
keeps `workers` away from the modules that load them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

Record = dict[str, Any]


class AuthoredDataError(ValueError):
    """A data file that does not have the shape its set needs."""


def load_records(path: Path, set_name: str) -> list[Record]:
    """Every record of `path`; each must be a mapping whose `set` is `set_name`."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise AuthoredDataError(f"{path.name}: expected a list of records")
    records: list[Record] = []
    for position, record in enumerate(data):
        if not isinstance(record, dict):
            raise AuthoredDataError(f"{path.name}[{position}]: a record is a mapping")
        if record.get("set") != set_name:
            raise AuthoredDataError(
                f"{path.name}[{position}]: set is {record.get('set')!r}, expected {set_name!r}")
        records.append(record)
    return records


def texts(record: Record, key: str = "texts") -> tuple[str, ...]:
    """A record's non-empty list of strings under `key`."""
    value = record.get(key)
    if (not isinstance(value, list) or not value
            or not all(isinstance(t, str) and t.strip() for t in value)):
        raise AuthoredDataError(f"{record.get('table', record)!r}: {key} must list strings")
    return tuple(value)


def text(record: Record, key: str = "text") -> str:
    """A record's non-empty string under `key`."""
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise AuthoredDataError(f"{record.get('table', record)!r}: {key} must be a string")
    return value
