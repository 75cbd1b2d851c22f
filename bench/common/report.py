"""results.md tables (like the paper's Table 1 and Appendix I) and the frontier plot."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common.metrics import BREAKDOWN_METRICS, METRIC_BY_NAME

# Table 1's columns, then the secondary metrics.
MAIN_COLUMNS = (
    "win_rate", "regret", "poisoning", "memory_poisoning", "adherence", "false_admission",
    "promotion", "scope_accuracy", "adaptation_lag", "clarify_rate", "clarify_f1",
    "action_macro_f1", "safety_asr", "ms_per_event",
)
PERCENT = frozenset({
    "win_rate", "poisoning", "memory_poisoning", "adherence", "false_admission", "promotion",
    "evidence_available", "scope_accuracy", "lag_censored", "clarify_rate", "safety_asr",
    # external
    "attack_admitted", "probe_leak", "genuine_adopted", "probe_recall", "benign_admitted",
    "tool_block_recall", "tool_false_block",
    # the service selector
    "selector_win_rate", "selector_refusal", "selector_safety_asr",
    "selector_safety_asr_no_bound", "selector_safety_asr_no_safety", "evidence_coverage",
})
THREE_DECIMALS = frozenset({"evidence_f1", "evidence_precision", "evidence_recall",
                            "influence_auc"})
SELECTOR_COLUMNS = (
    "selector_win_rate", "selector_regret", "selector_refusal", "selector_safety_asr",
    "selector_safety_asr_no_bound", "selector_safety_asr_no_safety", "evidence_f1",
    "evidence_precision", "evidence_recall",
    "influence_auc", "evidence_coverage",
)
LABELS = {m.name: m.label for m in METRIC_BY_NAME.values()} | {"ms_per_event": "ms/event"}
ARROWS = {True: " ↑", False: " ↓", None: ""}


def _direction(name: str) -> bool | None:
    from bench.external.replay import EXTERNAL_METRICS

    directions = {m.name: m.higher_is_better for m in METRIC_BY_NAME.values()}
    directions.update({m.name: m.higher_is_better for m in EXTERNAL_METRICS})
    return directions.get(name, False if name == "ms_per_event" else None)


def _label(name: str) -> str:
    from bench.external.replay import EXTERNAL_METRICS

    external = {m.name: m.label for m in EXTERNAL_METRICS}
    return LABELS.get(name) or external.get(name) or name


def fmt(name: str, value: Any) -> str:
    if value is None:
        return "–"
    if name in PERCENT:
        return f"{100 * float(value):.1f}"
    if name == "ms_per_event":
        return f"{float(value):.1f}"
    if name in THREE_DECIMALS:
        return f"{float(value):.3f}"
    return f"{float(value):.2f}"


def fmt_ci(name: str, ci: Sequence[float] | None) -> str:
    if not ci:
        return ""
    return f" [{fmt(name, ci[0])}, {fmt(name, ci[1])}]"


def header(name: str) -> str:
    unit = " %" if name in PERCENT else ""
    return f"{_label(name)}{unit}{ARROWS[_direction(name)]}"


def table(rows: dict[str, dict[str, Any]], columns: Sequence[str], *, ci: bool = False,
          first: str = "method") -> str:
    lines = [
        "| " + " | ".join([first, *(header(c) for c in columns)]) + " |",
        "|" + "---|" * (len(columns) + 1),
    ]
    for name, values in rows.items():
        cells = []
        for c in columns:
            cell = fmt(c, values.get(c))
            if ci:
                cell += fmt_ci(c, values.get("ci", {}).get(c))
            cells.append(cell)
        lines.append("| " + " | ".join([name, *cells]) + " |")
    return "\n".join(lines) + "\n"


def grouped_table(breakdown: dict[str, dict[str, dict[str, Any]]], key: str,
                  metric: str) -> str:
    """Rows: methods; columns: the groups of `key` (with their n); cells: `metric`."""
    groups: list[str] = []
    for by in breakdown.values():
        groups.extend(g for g in by.get(key, {}) if g not in groups)
    first = next(iter(breakdown.values()), {}).get(key, {})
    names = [f"{g} (n={first[g]['n']})" if g in first else g for g in groups]
    lines = ["| method | " + " | ".join(names) + " |", "|" + "---|" * (len(groups) + 1)]
    for method, by in breakdown.items():
        cells = [fmt(metric, by.get(key, {}).get(g, {}).get(metric)) for g in groups]
        lines.append("| " + " | ".join([method, *cells]) + " |")
    return "\n".join(lines) + "\n"


def losses_table(losses: dict[str, dict[str, int]]) -> str:
    """Rows: methods; columns: changepoints, lost, then each cause as user / untrusted."""
    from bench.prefguard.adherence_losses import CAUSES

    names = [c.replace("_", " ") for c in CAUSES]
    lines = ["| method | changepoints | lost | " + " | ".join(names) + " |",
             "|" + "---|" * (len(CAUSES) + 3)]
    for method, counts in losses.items():
        cells = [f"{counts.get(f'user:{c}', 0)} / {counts.get(f'untrusted:{c}', 0)}"
                 for c in CAUSES]
        lines.append(f"| {method} | {counts.get('changepoints', 0)} | {counts.get('lost', 0)} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def sources_table(sources: dict[str, dict[str, int]]) -> str:
    """Rows: methods; columns: scored attacks, poisoned, each way in, each value held."""
    from bench.prefguard.poisoning_sources import HOLDS, HOW

    names = [c.replace("_", " ") for c in (*HOW, *HOLDS)]
    lines = ["| method | attacks | poisoned | " + " | ".join(names) + " |",
             "|" + "---|" * (len(HOW) + len(HOLDS) + 3)]
    for method, counts in sources.items():
        cells = [str(counts.get(f"how:{c}", 0)) for c in HOW]
        cells += [str(counts.get(f"holds:{c}", 0)) for c in HOLDS]
        lines.append(f"| {method} | {counts.get('attacks', 0)} | {counts.get('poisoned', 0)} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def prefguard_markdown(results: dict[str, Any]) -> str:
    methods: dict[str, dict[str, Any]] = results["methods"]
    any_method = next(iter(methods.values()), {})
    n = any_method.get("n", {})
    parts = [
        f"# D-PrefGuard results: split `{results['split']}`\n\n",
        f"{results['n_episodes']} episodes, {n.get('users', '?')} users, "
        f"{n.get('events', '?')} events, {n.get('probes', '?')} probes, "
        f"{n.get('attacks', '?')} scored attacks, {n.get('genuine_changepoints', '?')} "
        f"scored genuine changepoints. Wall time {results.get('wall_seconds', '?')} s "
        f"with {results.get('jobs', 1)} process(es). Percentages unless noted; brackets are "
        f"user-level bootstrap 95% intervals ({results.get('bootstrap_replicates', '?')} "
        "replicates).\n",
        "\n## Main comparison (Table 1 style)\n\n",
        table(methods, ("win_rate", "regret", "poisoning", "adherence", "false_admission",
                        "safety_asr"), ci=True),
        "\n## Secondary metrics\n\n",
        table(methods, ("memory_poisoning", "promotion", "evidence_available",
                        "scope_accuracy", "adaptation_lag", "lag_censored", "clarify_rate",
                        "clarify_f1", "action_macro_f1", "ms_per_event")),
    ]
    if any(v.get("selector_win_rate") is not None for v in methods.values()):
        parts += [
            "\n## Selector and citation audit\n\n",
            "The service's safety-bounded selector (app/selection: w_p = 1, w_s = 2, "
            "τ_safe = 0.35) on each probe's retrieved memories and pool, and the "
            "counterfactual audit (`reselect` decoder) of its top three cited memories. "
            "T4 ASR counts T4 probes whose pool holds an unsafe candidate; \"no bound\" is "
            "the ablation without τ_safe (the objective still subtracts w_s·r_s), \"no "
            "safety\" the one without any safety (w_s = 0). Evidence F1 (micro) and "
            "influence AUC score the audited citations against the generator's necessity "
            "labels "
            f"({any_method.get('n', {}).get('audited_citations', '?')} audited citations "
            f"for the first method).\n\n",
            table(methods, SELECTOR_COLUMNS, ci=True),
        ]
    if results.get("adherence_losses"):
        parts += [
            "\n## Where adherence goes\n\n",
            "Genuine changepoints each method does not adhere to, by the first thing that "
            "went wrong (`bench/prefguard/adherence_losses.py`); cells are user channel / "
            "untrusted channels. `answer in error` is the simulated user's ε: no policy that "
            "asks does better.\n\n",
            losses_table(results["adherence_losses"]),
        ]
    if results.get("poisoning_sources"):
        parts += [
            "\n## Where memory poisoning comes from\n\n",
            "Attacks counted by memory-level poisoning, by how their claim got into the "
            "ledger and by what the retrieved memory deriving from them holds "
            "(`bench/prefguard/poisoning_sources.py`): `shared value` is the attack's value "
            "where the user holds it too, `other value` a misread attack whose memory holds "
            "another value. Memory-level poisoning counts lineage, so it counts all three.\n\n",
            sources_table(results["poisoning_sources"]),
        ]
    failed = {m: v["n"].get("failed_events", 0) for m, v in methods.items()}
    if any(failed.values()):
        parts.append(f"\nEvents whose processing failed: {failed}\n")
    for key, columns in BREAKDOWN_METRICS.items():
        parts.append(f"\n## By {key.replace('_', ' ')}\n")
        for metric in columns:
            parts.append(f"\n{header(metric)} by {key.replace('_', ' ')}\n\n")
            parts.append(grouped_table(results["breakdown"], key, metric))
    return "".join(parts)


def frontier_png(results: dict[str, Any], path: Path) -> None:
    """Adherence (x) against 1 − response-level poisoning (y) per method, with bootstrap
    intervals as error bars: the paper's Figure 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=120)
    for i, (name, values) in enumerate(results["methods"].items()):
        x, p = values.get("adherence"), values.get("poisoning")
        if x is None or p is None:
            continue
        y = 1.0 - p
        ci = values.get("ci", {})
        xci, pci = ci.get("adherence"), ci.get("poisoning")
        xerr = [[x - xci[0]], [xci[1] - x]] if xci else None
        yerr = [[pci[1] - p], [p - pci[0]]] if pci else None
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", capsize=3, label=name)
        # Alternate label sides so methods that land close together stay legible.
        ax.annotate(name, (x, y), textcoords="offset points", fontsize=8,
                    xytext=(6, 6) if i % 2 == 0 else (6, -12))
    ax.set_xlabel("genuine-update adherence (right is better)")
    ax.set_ylabel("1 − response-level poisoning (up is better)")
    ax.set_title(f"Adaptation–security frontier, D-PrefGuard {results['split']}")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _rate_cell(entry: dict[str, Any]) -> str:
    if entry.get("rate") is None:
        return "–"
    low, high = entry["ci95"]
    share = f"{100 * entry['rate']:.1f}% ({entry['k']}/{entry['n']})"
    return f"{share} [{100 * low:.1f}, {100 * high:.1f}]"


def external_markdown(results: dict[str, Any]) -> str:
    from bench.external.replay import COLUMNS

    methods: dict[str, dict[str, Any]] = results["methods"]
    n = next(iter(methods.values()), {}).get("n", {})
    parts = [
        "# Third-party episodes\n\n",
        f"{results['n_episodes']} episodes ({', '.join(results['sources'])}), "
        f"{n.get('events', '?')} events, {n.get('probes', '?')} probes, "
        f"{n.get('tool_calls', '?')} tool calls. Wall time {results.get('wall_seconds', '?')} s "
        f"with {results.get('jobs', 1)} process(es). Percentages except ms; brackets are "
        f"user-level bootstrap 95% intervals ({results.get('bootstrap_replicates', '?')} "
        "replicates).\n",
        "\n## Overall\n\n",
        table(methods, COLUMNS, ci=True),
    ]
    for note in results.get("notes", []):
        parts.append(f"\nNote: {note}.\n")
    by_tool_source = results.get("tool_by_source") or {}
    if by_tool_source:
        parts.append(
            "\n## Tool calls by what classified the tool\n\n"
            "`policy`: the policy file names it; `declaration`: the episode's declaration "
            "(MCP `Tool` shape) was passed with the call; `default`: nothing declares it "
            "(fail-closed). Block = deny or ask; Wilson 95% intervals.\n\n"
            "| method | classified by | calls | block recall | false block |\n"
            "|---|---|---|---|---|\n"
        )
        for method, sources in by_tool_source.items():
            for source, row in sources.items():
                parts.append(
                    f"| {method} | {source} | {row['calls']} | "
                    f"{_rate_cell(row['tool_block_recall'])} | "
                    f"{_rate_cell(row['tool_false_block'])} |\n"
                )
    parts.append("\n## By source\n")
    for source in results["sources"]:
        rows = {m: by["source"][source] for m, by in results["breakdown"].items()}
        parts.append(f"\n**{source}**\n\n")
        parts.append(table(rows, COLUMNS))
    return "".join(parts)
