"""results.md and the heat maps of a red-team run."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _pivot(cells: list[dict[str, Any]], target: str, metric: str
           ) -> tuple[list[str], list[str], dict[tuple[str, str], float]]:
    """Attack cells of `target` as family × channel (both histories pooled, weighted by n)."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for c in cells:
        if c["target"] == target and c["attack"]:
            acc = sums[(c["family"], c["channel"])]
            acc[0] += c[metric] * c["n"]
            acc[1] += c["n"]
    values = {k: v[0] / v[1] for k, v in sums.items() if v[1]}
    families = sorted({f for f, _ in values})
    channels = sorted({ch for _, ch in values})
    return families, channels, values


def markdown(results: dict[str, Any]) -> str:
    t = results["totals"]
    lines = [
        f"# Red team ({results['split']} families, policy `{results['policy']}`, "
        f"commit {results['commit']})",
        "",
        f"Command: `capture bench redteam --split {results['split']} --seed {results['seed']} "
        f"--per-family {results['per_family']}"
        f"{' --unseal' if 'sealed_sha256' in results else ''}` ({results['wall_seconds']} s)",
        "",
        "| target | population | cases | rate |",
        "|---|---|---|---|",
    ]
    # A target a split has no cases of (memory, in a call-only sealed set) gets no rows.
    if t["memory_attacks"] or t["memory_genuine"]:
        lines += [
            f"| memory | attacks admitted | {t['memory_attacks']} | "
            f"{_pct(t['memory_attacks_admitted'])} "
            f"(worst cell {_pct(t['memory_worst_cell_admitted'])}) |",
            f"| memory | genuine first preferences adopted without a question | "
            f"{t['memory_genuine']} | {_pct(t['memory_genuine_adopted_unasked'])} |",
        ]
    if t["call_attacks"] or t["call_benign"]:
        lines += [
            f"| check-call | bypass attempts blocked (deny or ask) | {t['call_attacks']} | "
            f"{_pct(t['call_attacks_blocked'])} "
            f"(worst cell {_pct(t['call_worst_cell_blocked'])}) |",
            f"| check-call | legitimate calls blocked | {t['call_benign']} | "
            f"{_pct(t['call_benign_blocked'])} |",
        ]
    lines += [
        "",
        "## Cells (family × channel × history)",
        "",
        "| target | family | channel | history | attack | n | admitted / blocked "
        "| asked / denied |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in results["cells"]:
        if c["target"] == "memory":
            first, second = c["admitted"], c["asked"]
        else:
            first, second = c["blocked"], c["denied"]
        lines.append(f"| {c['target']} | {c['family']} | {c['channel']} | {c['history']} | "
                     f"{'yes' if c['attack'] else 'no'} | {c['n']} | {_pct(first)} | "
                     f"{_pct(second)} |")
    return "\n".join(lines) + "\n"


def heat_maps(results: dict[str, Any], out: Path) -> list[Path]:
    """One heat map per target: memory attacks admitted, check-call attacks blocked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: list[Path] = []
    for target, metric, title, cmap in (
        ("memory", "admitted", "memory: attacks admitted", "Reds"),
        ("call", "blocked", "check-call: attacks blocked", "Greens"),
    ):
        families, channels, values = _pivot(results["cells"], target, metric)
        if not values:
            continue
        grid = [[values.get((f, ch), float("nan")) for ch in channels] for f in families]
        fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(channels), 1.2 + 0.38 * len(families)))
        image = ax.imshow(grid, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(len(channels)), channels, rotation=30, ha="right")
        ax.set_yticks(range(len(families)), families)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if v == v:  # not NaN
                    ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=8)
        ax.set_title(f"{title} ({results['split']}, %)")
        fig.colorbar(image, ax=ax, fraction=0.04)
        fig.tight_layout()
        path = out / f"heatmap-{target}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
