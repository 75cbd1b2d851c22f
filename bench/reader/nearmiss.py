"""`capture bench nearmiss`: does the reader put values in the user's mouth?

The authored near-miss statements (`data/nearmiss.yaml`, `set: nearmiss`) are each near a
taxonomy dimension but about another aspect or a value the taxonomy lacks ("I prefer window
seats when I fly." is about seat position, not cabin class). Each one is written to the
service (`create_app()` over in-process HTTP, `bench.common.service.reading_service`) as a user turn
of a user of its own, so no ledger stands behind the reader, and what the configured
extractor read of it is the event's hypotheses (`GET /v1/events/{id}`). A claim *asserts an
unsaid value* when it is a taxonomy claim whose (dimension, value) is not among the values
the statement says. Open claims keep the user's words and never count. Evaluation only: no
training loader reads the statements.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.corpora import CorpusError, Record, load_records, text
from app.extraction.open_claims import is_open_subject
from app.extraction.taxonomy import DIMENSIONS_BY_NAME
from bench.common.service import BenchTenant, Read, reader_of, reading_service

NEARMISS = "nearmiss"
NEARMISS_DATA = Path(__file__).parent / "data" / "nearmiss.yaml"
# The development set (`--set dev`): statements of the same shape, written to develop the
# reader on, so that the evaluation set is read only to report.
NEARMISS_DEV = "nearmiss_dev"
NEARMISS_DEV_DATA = Path(__file__).parent / "data" / "nearmiss_dev.yaml"
# `capture bench nearmiss --set NAME`: each set's file and the `set` its records name.
SETS = {"eval": (NEARMISS_DATA, NEARMISS), "dev": (NEARMISS_DEV_DATA, NEARMISS_DEV)}
FAITHFUL_READINGS = ("open", "value", "none")
# What each statement became, worst first.
OUTCOMES = ("unsaid_value", "said_value", "open_claim", "nothing")
# A fixed time: the reading of a statement does not depend on when it is read.
READ_AT = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class NearMiss:
    dimension: str
    aspect: str
    text: str
    faithful: str
    said: frozenset[tuple[str, str]]


def _said(record: Record) -> frozenset[tuple[str, str]]:
    pairs = set()
    for item in record.get("said") or []:
        dimension, _, value = str(item).partition("=")
        if dimension not in DIMENSIONS_BY_NAME:
            raise CorpusError(f"{record['text']!r}: unknown dimension in said: {item}")
        DIMENSIONS_BY_NAME[dimension].value(value)  # KeyError: not a value of the dimension
        pairs.add((dimension, value))
    return frozenset(pairs)


def load_nearmiss(path: Path = NEARMISS_DATA, set_name: str = NEARMISS) -> list[NearMiss]:
    """The near-miss statements of `path` (every record of set `set_name`), checked against
    the taxonomy."""
    items = []
    for record in load_records(path, set_name):
        dimension = text(record, "dimension")
        if dimension not in DIMENSIONS_BY_NAME:
            raise CorpusError(f"unknown dimension {dimension!r}")
        faithful = text(record, "faithful")
        if faithful not in FAITHFUL_READINGS:
            raise CorpusError(f"{record['text']!r}: faithful must be one of "
                                    f"{FAITHFUL_READINGS}")
        said = _said(record)
        if (faithful == "value" and not said) or (faithful == "none" and said):
            raise CorpusError(
                f"{record['text']!r}: a value reading names what was said, and no other does")
        items.append(NearMiss(dimension, text(record, "aspect"), text(record), faithful, said))
    texts = [i.text for i in items]
    if len(set(texts)) != len(texts):
        raise CorpusError("a statement appears twice")
    return items


def unsaid(item: NearMiss, hypotheses: Sequence[Read]) -> list[Read]:
    """Taxonomy claims on a value the statement does not say."""
    return [h for h in hypotheses
            if not is_open_subject(h.subject) and (h.subject, h.value) not in item.said]


def outcome(item: NearMiss, hypotheses: Sequence[Read]) -> str:
    if unsaid(item, hypotheses):
        return "unsaid_value"
    if any(not is_open_subject(h.subject) for h in hypotheses):
        return "said_value"
    return "open_claim" if hypotheses else "nothing"


def is_faithful(item: NearMiss, result: str) -> bool:
    """The statement read as its label says a faithful reader reads it."""
    return result == {"open": "open_claim", "value": "said_value", "none": "nothing"}[item.faithful]


def _claim(h: Read) -> dict[str, Any]:
    return {"claim": h.claim, "subject": "open" if is_open_subject(h.subject) else h.subject,
            "value": h.value, "direction": h.direction, "scope": h.scope}


def _rate(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def measure(items: list[NearMiss], tenant: BenchTenant, extractor: str) -> dict[str, Any]:
    """Per statement what the service read (its configured extractor is `extractor`), and
    the rates overall and by dimension."""
    rows: list[dict[str, Any]] = []
    reads: list[Read] = []
    for i, item in enumerate(items):
        hypotheses = tenant.read(f"nearmiss-{i}", "nearmiss", "user", item.text, READ_AT)
        reads += hypotheses
        result = outcome(item, hypotheses)
        rows.append({
            "dimension": item.dimension, "aspect": item.aspect, "text": item.text,
            "faithful": item.faithful, "said": sorted(f"{d}={v}" for d, v in item.said),
            "outcome": result, "faithful_reading": is_faithful(item, result),
            "unsaid_claims": len(unsaid(item, hypotheses)),
            "claims": [_claim(h) for h in hypotheses],
        })
    by_dimension: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_dimension[row["dimension"]].append(row)
    return {
        "extractor": reader_of(extractor, reads),
        "statements": len(rows),
        "overall": _summary(rows),
        "by_dimension": {d: _summary(r) for d, r in sorted(by_dimension.items())},
        "by_faithful_reading": {
            f: _summary([r for r in rows if r["faithful"] == f]) for f in FAITHFUL_READINGS},
        "rows": rows,
    }


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = Counter(r["outcome"] for r in rows)
    claims = sum(len(r["claims"]) for r in rows)
    unsaid_claims = sum(r["unsaid_claims"] for r in rows)
    return {
        "statements": len(rows),
        # The headline: statements that became a claim asserting a value the user did not say.
        "unsaid_value_rate": _rate(outcomes["unsaid_value"], len(rows)),
        "unsaid_claim_share": _rate(unsaid_claims, claims),
        "faithful_reading_rate": _rate(sum(r["faithful_reading"] for r in rows), len(rows)),
        "outcomes": {o: outcomes[o] for o in OUTCOMES},
    }


def markdown(results: dict[str, Any]) -> str:
    overall = results["overall"]
    lines = [
        "# Near-miss statements",
        "",
        f"Extractor `{results['extractor']['name']}` {results['extractor']['version']}, "
        f"{results['statements']} statements (`{results['statements_file']}`).",
        "",
        f"- Statements read as a claim asserting a value the user did not say: "
        f"**{overall['unsaid_value_rate']:.1%}** "
        f"({overall['outcomes']['unsaid_value']} of {overall['statements']})",
        f"- Share of all claims read that assert an unsaid value: "
        f"{overall['unsaid_claim_share']:.1%}",
        f"- Read as the label says a faithful reader would (open claim, the said value, or "
        f"nothing): {overall['faithful_reading_rate']:.1%}",
        "",
        "| dimension | statements | unsaid value | faithful reading | unsaid / said / open / "
        "nothing |",
        "|---|---:|---:|---:|---|",
    ]
    for dimension, row in results["by_dimension"].items():
        counts = " / ".join(str(row["outcomes"][o]) for o in OUTCOMES)
        lines.append(f"| {dimension} | {row['statements']} | {row['unsaid_value_rate']:.1%} | "
                     f"{row['faithful_reading_rate']:.1%} | {counts} |")
    lines += ["", "| faithful reading is | statements | unsaid value | read that way |",
              "|---|---:|---:|---:|"]
    for label, row in results["by_faithful_reading"].items():
        lines.append(f"| {label} | {row['statements']} | {row['unsaid_value_rate']:.1%} | "
                     f"{row['faithful_reading_rate']:.1%} |")
    return "\n".join(lines) + "\n"


def run(out: Path, extractor: str | None = None, statements: str = "eval",
        server_uri: str | None = None) -> dict[str, Any]:
    """Measure the set `statements` (a key of SETS) with `extractor` as the service's reader
    (the configured one when None) and write OUT/results.json and OUT/results.md."""
    path, set_name = SETS[statements]
    items = load_nearmiss(path, set_name)
    with reading_service(extractor, server_uri, "capture_bench_nearmiss") as (tenant, name):
        results = {"statements_file": f"bench/reader/data/{path.name}",
                   **measure(items, tenant, name)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n",
                                      encoding="utf-8")
    (out / "results.md").write_text(markdown(results), encoding="utf-8")
    return results
