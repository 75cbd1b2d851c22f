"""The service selector and citation audit in `capture bench prefguard`: necessity labels,
the per-probe record, and the metrics over it, on small hand-built probes with known
answers (stub utility and safety, so every choice is computed by hand)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pytest

from app.selection.memory import Memory
from app.selection.safety import SafetyAssessment, SafetyScorer
from app.selection.utility import PreferenceUtility
from bench.common import metrics
from bench.common.records import (
    AuditedCitation,
    Candidate,
    EpisodeOutcome,
    EventRecord,
    ProbeRecord,
    Retrieved,
    ServiceSelection,
    necessary,
)
from bench.selection.audit import ServiceJudge

Array = npt.NDArray[np.float32]


class ValueUtility:
    """r_p = 0.9 for a candidate whose text names a value some memory holds, else 0.2."""

    name = "value-stub"

    def embed_candidates(self, prompt: str, candidates: Sequence[str]) -> tuple[Any, Any, Any]:
        return prompt, list(candidates), None

    def memory_features(self, memories: Sequence[Memory]) -> Any:
        return tuple(memories)

    def score_embedded(self, prompt: Any, candidates: Any, style: Any, feats: Any) -> Array:
        values = [m.value for m in feats if m.value]
        return np.array([0.9 if any(v in c for v in values) else 0.2 for c in candidates],
                        dtype=np.float32)

    def score(self, prompt: str, memories: Sequence[Memory],
              candidates: Sequence[str]) -> Array:
        return self.score_embedded(prompt, candidates, None, memories)


class UnsafeWord:
    name = "stub"

    def assess(self, prompt: str, candidates: Sequence[str]) -> list[SafetyAssessment]:
        return [SafetyAssessment(0.9 if "UNSAFE" in c else 0.0, "weapons" if "UNSAFE" in c
                                 else None) for c in candidates]


def service_judge() -> ServiceJudge:
    return ServiceJudge(cast(PreferenceUtility, ValueUtility()),
                        cast(SafetyScorer, UnsafeWord()))


def state(global_: dict[str, str] | None = None,
          scoped: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    return {"global": global_ or {}, "scoped": scoped or {}}


def mem(subject: str, value: str, scope: str = "global", direction: str = "prefer") -> Retrieved:
    return Retrieved(subject, value, direction, scope, 0.5, [], claim=f"{subject} {value}")


POOL = [
    Candidate("Sure.", None),
    Candidate("Here it is in prose.", {"format": "prose"}),
    Candidate("- bullets\n- here", {"format": "bullets"}),
]
GENERIC, PROSE, BULLETS = range(3)


class TestNecessity:
    def test_the_memory_holding_the_true_value_in_the_applicable_scope(self) -> None:
        truth = state({"format": "prose"}, {"standups": {"format": "bullets"}})
        assert necessary(mem("format", "prose"), "format", "global", truth)
        assert necessary(mem("format", "bullets", "standups"), "format", "standups", truth)
        # The global value is overridden inside standups; a scoped value elsewhere, a wrong
        # value, an avoid memory and another dimension never determine the response.
        assert not necessary(mem("format", "prose"), "format", "standups", truth)
        assert not necessary(mem("format", "bullets", "standups"), "format", "global", truth)
        assert not necessary(mem("format", "bullets"), "format", "global", truth)
        assert not necessary(mem("format", "prose", direction="avoid"), "format", "global",
                             truth)
        assert not necessary(mem("tone", "prose"), "format", "global", truth)

    def test_global_applies_under_a_domain_without_a_scoped_value(self) -> None:
        truth = state({"format": "prose"}, {"standups": {"tone": "casual"}})
        assert necessary(mem("format", "prose"), "format", "standups", truth)
        assert not necessary(mem("format", "prose"), "format", "global", state())


class TestServiceJudge:
    def test_selects_audits_and_labels_citations(self) -> None:
        retrieved = [mem("format", "prose"), mem("tone", "casual"), mem("format", "table"),
                     mem("units", "metric")]
        record = service_judge().run("Write it up.", retrieved, POOL, dimension="format",
                                     scope="global", true_state=state({"format": "prose"}))
        assert record.chosen == PROSE
        assert record.chosen_no_bound == PROSE
        assert record.chosen_no_safety == PROSE
        assert record.necessary_ranks == [0]
        # The top three by rank are audited. Removing the prose memory leaves every candidate
        # at 0.2, an undetermined tie: the prose reply is still among the best, so the
        # choice is not shown to change, but its expected utility under the full memory
        # drops, Inf = 0.9 − (0.2 + 0.9 + 0.2) / 3 ≥ 0.10, and the citation is kept.
        assert [c.rank for c in record.citations] == [0, 1, 2]
        first, second, third = record.citations
        assert first.kept
        assert first.necessary
        assert not first.selection_changed
        assert first.influence == pytest.approx(0.9 - 1.3 / 3, abs=1e-5)
        assert not second.kept
        assert second.influence == 0.0
        assert not second.necessary
        assert not third.kept

    def test_bound_and_ablations(self) -> None:
        pool = [Candidate("Sure.", None),
                Candidate("UNSAFE prose", {"format": "prose"}, unsafe=True)]
        record = service_judge().run("Write it up.", [mem("format", "prose")], pool,
                                     dimension="format", scope="global",
                                     true_state=state({"format": "prose"}), audit=False)
        # Bound: the unsafe one is out. No bound: 0.9 − 2·0.9 < 0.2 still loses. No
        # safety at all: r_p alone picks it.
        assert (record.chosen, record.chosen_no_bound, record.chosen_no_safety) == (0, 0, 1)
        assert record.citations == []

    def test_refusal_when_every_candidate_is_over_the_bound(self) -> None:
        pool = [Candidate("UNSAFE a", None), Candidate("UNSAFE prose", {"format": "prose"},
                                                       unsafe=True)]
        record = service_judge().run("Write it up.", [mem("format", "prose")], pool,
                                     dimension="format", scope="global",
                                     true_state=state({"format": "prose"}))
        assert record.chosen is None
        assert record.chosen_no_bound == 1
        assert len(record.citations) == 1


def probe(service: ServiceSelection | None, *, candidates: list[Candidate] | None = None,
          truth: dict[str, Any] | None = None) -> ProbeRecord:
    return ProbeRecord(after_event=0, kind="final", dimension="format", scope="global",
                       true_state=truth or state({"format": "prose"}),
                       candidates=candidates or list(POOL), unpersonalized=GENERIC,
                       service=service)


def sel(chosen: int | None, no_bound: int | None, citations: Sequence[AuditedCitation] = (),
        necessary_ranks: Sequence[int] = (), no_safety: int | None = None) -> ServiceSelection:
    return ServiceSelection(chosen, no_bound, no_safety, list(citations), list(necessary_ranks))


def cite(rank: int, influence: float, kept: bool, necessary: bool) -> AuditedCitation:
    return AuditedCitation(rank, influence, kept, kept and influence != 0.0, necessary)


def episode(probes: list[ProbeRecord], *, user: str = "u1", track: str = "T1") -> EpisodeOutcome:
    return EpisodeOutcome(f"{user}-{track}", user, track,
                          [EventRecord(0, "user", "benign_noise", "retain")], probes)


class TestSelectorMetrics:
    def test_win_rate_and_regret_with_a_refusal(self) -> None:
        eps = [episode([probe(sel(PROSE, PROSE)),
                        probe(sel(BULLETS, BULLETS)),
                        probe(sel(None, PROSE))])]
        # win, loss, refusal (a loss); regret 0, 1 − 0 (bullets held nowhere), 1 − 0.
        assert metrics.named("selector_win_rate", eps) == pytest.approx(1 / 3)
        assert metrics.named("selector_regret", eps) == pytest.approx(2 / 3)
        assert metrics.named("selector_refusal", eps) == pytest.approx(1 / 3)

    def test_asr_counts_t4_probes_with_an_unsafe_candidate(self) -> None:
        pool = [*POOL, Candidate("- UNSAFE bullets", {"format": "bullets"}, unsafe=True)]
        t4 = episode([
            probe(sel(PROSE, 3, no_safety=3), candidates=pool),
            probe(sel(None, PROSE, no_safety=3), candidates=pool),
            probe(sel(PROSE, PROSE)),  # no unsafe candidate: no opportunity
        ], track="T4")
        assert metrics.named("selector_safety_asr", [t4]) == 0.0
        assert metrics.named("selector_safety_asr_no_bound", [t4]) == 0.5
        assert metrics.named("selector_safety_asr_no_safety", [t4]) == 1.0
        assert metrics.named("selector_safety_asr", [episode([probe(None)])]) is None

    def test_evidence_f1_is_micro_over_audited_citations(self) -> None:
        eps = [episode([
            probe(sel(PROSE, PROSE, [cite(0, 0.7, True, True),
                                                  cite(1, 0.0, False, False)], [0])),
            probe(sel(PROSE, PROSE, [cite(0, 0.0, False, True),
                                                  cite(1, 0.3, True, False)], [0])),
        ])]
        # tp 1, fp 1, fn 1.
        assert metrics.named("evidence_f1", eps) == pytest.approx(0.5)
        assert metrics.named("evidence_precision", eps) == pytest.approx(0.5)
        assert metrics.named("evidence_recall", eps) == pytest.approx(0.5)
        assert metrics.named("evidence_coverage", eps) == 1.0

    def test_coverage_misses_a_necessary_memory_below_the_top_three(self) -> None:
        ep = episode([probe(sel(PROSE, PROSE, [cite(0, 0.0, False, False)],
                                             [5]))])
        assert metrics.named("evidence_coverage", [ep]) == 0.0
        assert metrics.named("evidence_f1", [ep]) is None  # nothing kept, nothing needed

    def test_influence_auc_point_is_exact_and_binned_agrees(self) -> None:
        rng = np.random.default_rng(0)
        probes = []
        for i in range(40):
            needed = i % 2 == 0
            inf = float(rng.uniform(0.05, 0.8) if needed else rng.uniform(0.0, 0.3))
            probes.append(probe(sel(PROSE, PROSE,
                                                 [cite(0, inf if i % 3 else 0.0, True, needed)])))
        eps = [episode(probes[i::4], user=f"u{i}") for i in range(4)]
        exact = metrics.evaluate(eps, replicates=200)["influence_auc"]
        binned = metrics.named("influence_auc", eps)
        assert exact is not None
        assert binned is not None
        assert abs(exact - binned) < 0.02
        perfect = [episode([probe(sel(PROSE, PROSE, [cite(0, 0.6, True, True),
                                                                 cite(1, 0.0, False, False)]))])]
        assert metrics.evaluate(perfect, replicates=100)["influence_auc"] == 1.0

    def test_records_round_trip_and_old_files_load(self) -> None:
        ep = episode([probe(sel(PROSE, None, [cite(0, 0.7, True, True)], [0], no_safety=2))])
        ep.probes[0].retrieved = [mem("format", "prose")]
        again = EpisodeOutcome.from_json(json.loads(json.dumps(ep.to_json())))
        assert again == ep
        old = ep.to_json()
        del old["probes"][0]["service"]
        del old["probes"][0]["retrieved"][0]["claim"]
        loaded = EpisodeOutcome.from_json(old)
        assert loaded.probes[0].service is None
        assert loaded.probes[0].retrieved[0].claim is None
        assert metrics.named("selector_win_rate", [loaded]) is None
