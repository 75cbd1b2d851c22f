"""`capture import FILE.jsonl`: post a JSONL file of events to POST /v1/events:batch.

Each line is one event (the body of POST /v1/events). A line without an idempotency key
gets one derived from the file's name, the line's number and its content, so importing the
same file again writes nothing twice; a checkpoint beside the file (`FILE.import-state`)
records the lines already sent, so a resumed import starts after them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

BATCH_PATH = "/v1/events:batch"


@dataclass
class ImportReport:
    lines: int = 0
    accepted: int = 0
    duplicates: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)  # (line number, error code)
    resumed_from: int = 0


def line_key(path: Path, line_no: int, line: str) -> str:
    digest = hashlib.sha256(f"{path.name}\n{line_no}\n{line}".encode()).hexdigest()
    return f"import-{digest[:40]}"


def checkpoint_path(path: Path) -> Path:
    return path.with_name(path.name + ".import-state")


def count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for raw in f if raw.strip())


def _read_checkpoint(path: Path) -> int:
    state = checkpoint_path(path)
    if not state.exists():
        return 0
    done = json.loads(state.read_text()).get("lines_done", 0)
    return int(done)


def _write_checkpoint(path: Path, lines_done: int) -> None:
    state = checkpoint_path(path)
    tmp = state.with_name(state.name + ".tmp")
    tmp.write_text(json.dumps({"lines_done": lines_done}))
    tmp.replace(state)  # atomic: an interruption leaves the old or the new checkpoint


def _events(path: Path, skip: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, event body) of each non-blank line after the first `skip`."""
    seen = 0
    with path.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, start=1):
            stripped = line.strip()
            if not stripped:
                continue
            seen += 1
            if seen <= skip:
                continue
            try:
                body = json.loads(stripped)
            except json.JSONDecodeError as error:
                raise ValueError(f"line {line_no} is not JSON") from error
            if not isinstance(body, dict):
                raise ValueError(f"line {line_no} is not a JSON object")
            body.setdefault("idempotency_key", line_key(path, line_no, stripped))
            yield line_no, body


def import_file(
    path: Path,
    client: httpx.Client,
    *,
    batch_size: int = 500,
    progress: Callable[[int], None] = lambda _: None,
) -> ImportReport:
    """Send the file in batches, in order; the checkpoint advances after each batch the
    service answered. Raises httpx.HTTPError when the service cannot be reached or refuses
    a batch as a whole (the checkpoint then holds what was sent)."""
    report = ImportReport(resumed_from=_read_checkpoint(path))
    done = report.resumed_from
    progress(done)
    batch: list[tuple[int, dict[str, Any]]] = []

    def send() -> None:
        nonlocal done
        response = client.post(BATCH_PATH, json={"events": [body for _, body in batch]})
        response.raise_for_status()
        for (line_no, _), result in zip(batch, response.json()["results"], strict=True):
            if result["status"] == "accepted":
                report.accepted += 1
            elif result["status"] == "duplicate":
                report.duplicates += 1
            else:
                report.errors.append((line_no, result["error"]["code"]))
        done += len(batch)
        report.lines += len(batch)
        _write_checkpoint(path, done)
        progress(len(batch))
        batch.clear()

    for item in _events(path, report.resumed_from):
        batch.append(item)
        if len(batch) >= batch_size:
            send()
    if batch:
        send()
    return report
