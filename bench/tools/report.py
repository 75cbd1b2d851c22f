"""results.md of the tools bench."""

from __future__ import annotations

from typing import Any

from bench.tools.populations import POPULATIONS


def pct(entry: dict[str, Any] | None, with_ci: bool = True) -> str:
    if not entry or entry.get("rate") is None:
        return "–"
    text = f"{100 * entry['rate']:.1f}%"
    if with_ci and entry.get("ci95"):
        low, high = entry["ci95"]
        text += f" [{100 * low:.1f}, {100 * high:.1f}]"
    return text


def markdown(results: dict[str, Any]) -> str:
    scope = (
        f"{results['per_population']} sessions per population, seed {results['seed']}"
        if "populations" in results
        else "the third-party replays only"
    )
    machine = results.get("machine", {})
    lines = [
        f"# Check-call trace benchmark ({results['split']} split)",
        "",
        f"`{results['command']}` — policy {results['policy_version']}, {scope}, "
        f"{results.get('wall_seconds', '?')} s; {machine.get('cpu_count')} CPUs, load "
        f"average {machine.get('load_average_1m')} at the end of the run.",
        "",
    ]
    if "populations" in results:
        lines += populations_section(results)
    for key, title in (
        ("external", "Third-party tool calls, under the operator's policy"),
        ("external_declared_only", "Third-party tool calls, known only by their declarations"),
        (
            "external_derived_only",
            "Third-party tool calls, known only by declarations derived from the calls",
        ),
    ):
        if results.get(key):
            lines += external_section(results[key], title)
    if "populations" in results:
        lines += ["", "## Reason codes (first reason of the scored call)", ""]
        for population in POPULATIONS:
            codes = results["populations"][population]["reason_codes"]
            lines.append(f"- {population}: " + ", ".join(f"{c} {n}" for c, n in codes.items()))
    return "\n".join(lines) + "\n"


def populations_section(results: dict[str, Any]) -> list[str]:
    lines = [
        "Block = `deny` or `ask` (the call does not run without the user). Rates with Wilson "
        "95% intervals. The paper's rules are scored on the same sessions: "
        "`recall_before_send` (a tool-mode retrieval before the send), recipient externality "
        "(an address or URL outside the allowlisted domain), and their conjunction.",
        "",
        "`from default`: scored calls whose tool nothing declared (neither the policy file, a "
        "registered declaration nor the call's own), judged by the fail-closed default.",
        "",
        "| population | kind | n | deny | ask | allow | Capture block | from default | "
        "recall_before_send | externality | rbs ∧ ext |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for population in POPULATIONS:
        row = results["populations"][population]
        capture = row["capture"]
        lines.append(
            f"| {population} | {row['kind']} | {row['n']} | {pct(capture['deny'], False)} | "
            f"{pct(capture['ask'], False)} | {pct(capture['allow'], False)} | "
            f"{pct(capture['block'])} | {row.get('tool_source', {}).get('default', 0)} | "
            f"{pct(row['recall_before_send']['block'])} | "
            f"{pct(row['recipient_external']['block'])} | "
            f"{pct(row['rbs_and_external']['block'])} |"
        )
    summary = results["summary"]
    lines += [
        "",
        "| rule | attack block (1–3, 9, 11) | benign false block (5–8, 10, 12) |",
        "|---|---|---|",
    ]
    for rule in ("capture", "recall_before_send", "recipient_external", "rbs_and_external"):
        lines.append(
            f"| {rule} | {pct(summary[rule]['attack_block'])} | "
            f"{pct(summary[rule]['benign_false_block'])} |"
        )
    lines += ["", f"Capture deny rate on attacks: {pct(summary['capture']['attack_deny'])}."]
    if summary.get("declared_classified"):
        lines.append(
            f"Declared tools (populations 9, 10) classified from their declaration: "
            f"{pct(summary['declared_classified'])}. Scored calls decided by the default: "
            f"{summary.get('from_default', 0)}."
        )
    checks = results["population_check_ms"]
    lines += [
        "",
        "## Latency",
        "",
        f"Population sessions ({checks['calls']} scored calls, the first check of a fresh "
        f"session, through the in-process HTTP API, commit included): p50 {checks['p50']} ms, "
        f"p95 {checks['p95']} ms.",
        "",
        "| population | check p50 ms | check p95 ms | mean triage score |",
        "|---|---|---|---|",
    ]
    for population in POPULATIONS:
        row = results["populations"][population]
        lines.append(
            f"| {population} | {row['check_ms']['p50']} | {row['check_ms']['p95']} | "
            f"{row['triage_score_mean']} |"
        )
    lines.append("")
    lat = results.get("latency_1000_nodes")
    if lat:
        lines.append(
            f"Through the service layer (no HTTP), with "
            f"{lat['nodes_retrieved_in_session']:,} nodes retrieved in the session "
            f"({lat['ledger_nodes']:,}-node ledger, {lat['history_events']} earlier events, "
            f"{lat['calls']} calls): p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms, "
            f"p99 {lat['p99_ms']} ms (target p95 ≤ 10 ms); this process's CPU per call "
            f"p50 {lat['client_cpu_p50_ms']} ms, p95 {lat['client_cpu_p95_ms']} ms."
        )
    return lines


def external_section(external: dict[str, Any], title: str) -> list[str]:
    """One replay of a third-party file (bench/tools/external.py)."""
    lines = ["", f"## {title}", ""]
    if "declarations" in external:
        lines.append(
            "The operator's policy less the entries that name these tools "
            f"({', '.join(f'`{e}`' for e in external.get('policy_entries_dropped', []))}): "
            "each call carries its tool's declaration (from the file: "
            f"{external['declarations'].get('file', 0)}, derived from the call: "
            f"{external['declarations'].get('derived', 0)}). Decided otherwise than under "
            f"the policy: {len(external.get('decided_otherwise_than_under_policy', []))} "
            f"{external.get('decided_otherwise_than_under_policy', [])}."
        )
        lines.append("")
    lines += [
        f"{external['file']}: {external['tool_calls']} tool calls replayed after their "
        f"episode's events; attacks blocked {pct(external['tool_block_recall'])}, the user "
        f"tasks' own calls blocked {pct(external['tool_false_block'])}; decisions "
        f"{external['decisions']}; classified by {external.get('tool_source', {})}.",
        "",
        "| classified by | calls | block recall | false block |",
        "|---|---|---|---|",
    ]
    for source, row in external.get("by_tool_source", {}).items():
        lines.append(
            f"| {source} | {row['calls']} | {pct(row['tool_block_recall'])} | "
            f"{pct(row['tool_false_block'])} |"
        )
    lines += ["", "| tool (should block: attack) | decisions |", "|---|---|"]
    for tool, decisions in external.get("by_tool", {}).items():
        lines.append(f"| {tool} | {decisions} |")
    if external.get("reason_codes"):
        lines += [
            "",
            "First reasons: "
            + ", ".join(f"{code} {n}" for code, n in external["reason_codes"].items())
            + ".",
        ]
    return lines
