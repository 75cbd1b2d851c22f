"""results.md and recovery.png for a chaos run."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

KINDS = ("worker", "api", "redis", "postgres")


def _summary(values: list[float]) -> str:
    if not values:
        return "–"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):.1f} / {p95:.1f} / {ordered[-1]:.1f}"


def recovery_by_kind(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    table: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        faults = [f for f in results["faults"] if f["kind"] == kind]
        if not faults:
            continue
        backlog = [f["backlog_processed_s"] for f in faults
                   if f["backlog_processed_s"] is not None]
        table[kind] = {
            "faults": len(faults),
            "down_s": [f["down_s"] for f in faults],
            "next_processed_s": [f["next_processed_s"] for f in faults
                                 if f["next_processed_s"] is not None],
            "backlog_processed_s": backlog,
            "backlog_never_processed": len(faults) - len(backlog),
            "backlog_over_30s": sum(1 for v in backlog if v > 30.0),
        }
    return table


def markdown(results: dict[str, Any]) -> str:
    c = results["config"]
    lines = [
        "# Chaos run",
        "",
        f"{c['workers']} workers and beat, {c['users']} writers (one per user), "
        f"{len(results['faults'])} faults over {results['writing_s']} s of writing; "
        f"requeue of events pending > {c['requeue_stale_after_s']} s every "
        f"{c['requeue_interval_s']} s; seed {c['seed']}.",
        "",
        "| check | value |",
        "|---|---|",
        f"| events acknowledged by the API | {results['acknowledged']} |",
        f"| events stored | {results['events_stored']} |",
        f"| lost (acknowledged, then absent or not processed) | {results['lost']} "
        f"({results['lost_detail']}) |",
        f"| duplicated (one idempotency key stored twice, or two ids) | "
        f"{results['duplicated']} |",
        f"| out of order (per user: seq against write order, processed_at) | "
        f"{results['out_of_order']} |",
        f"| writes given up after {c['give_up_s']:.0f} s of retries | {results['gave_up']} |",
        f"| error responses not in the JSON error shape | {results['non_json_errors']} |",
        f"| pending when quiescence was declared | {results['pending_at_end']} "
        f"(after {results['quiescence_s']} s) |",
        "",
        "## Recovery per fault kind (seconds: median / p95 / max)",
        "",
        "Measured from the fault's end (the process restarted; for the API, `/readyz` "
        "answering) to the next event processed, and to the last event processed of "
        "those that were pending at that moment (faults that follow within that time "
        "add to it).",
        "",
        "| fault | count | down | next event processed | backlog processed | backlog "
        "> 30 s | backlog never processed |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, row in recovery_by_kind(results).items():
        lines.append(
            f"| {kind} | {row['faults']} | {_summary(row['down_s'])} | "
            f"{_summary(row['next_processed_s'])} | {_summary(row['backlog_processed_s'])} | "
            f"{row['backlog_over_30s']} | {row['backlog_never_processed']} |")
    lines += ["", "## Responses clients saw other than success", "",
              "| status : body | count |", "|---|---|"]
    for key, count in results["client_errors"].items():
        lines.append(f"| {key} | {count} |")
    if not results["client_errors"]:
        lines.append("| (none) | 0 |")
    lines += ["", "`connection:*` are requests that got no HTTP response (the API was down).",
              ""]
    return "\n".join(lines)


def plot(results: dict[str, Any], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = recovery_by_kind(results)
    kinds = list(table)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=False)
    for ax, metric, title in ((axes[0], "next_processed_s", "to the next event processed"),
                              (axes[1], "backlog_processed_s", "to the backlog processed")):
        data = [table[k][metric] or [0.0] for k in kinds]
        ax.boxplot(data, showfliers=False)
        for i, values in enumerate(data, start=1):
            ax.scatter([i] * len(values), values, s=8, alpha=0.5)
        ax.set_xticks(range(1, len(kinds) + 1), [f"{k} ({table[k]['faults']})" for k in kinds])
        ax.set_title(f"recovery {title}")
        ax.set_ylabel("seconds after the fault ended")
    fig.tight_layout()
    path = out / "recovery.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(results: dict[str, Any], out: Path) -> None:
    (out / "results.md").write_text(markdown(results))
    plot(results, out)
