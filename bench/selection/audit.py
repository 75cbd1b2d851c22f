"""The service's selector and citation audit on one benchmark probe, scored as model
components on fixed inputs: the memories `POST /v1/retrieve` returned for the probe (read
through the API by bench/prefguard/harness.py) and the probe's candidates.

1. The safety-bounded best-of-N of app/selection (deployment weights and τ_safe) as
   `POST /v1/select` decides it, and the same r_p and r_s with the bound removed (the
   ablation; the objective keeps its −w_s·r_s term) and with no safety at all (w_s = 0, no
   bound).
2. The counterfactual audit with the `reselect` decoder as `POST /v1/audit` runs it, with the
   selector's response and every retrieved memory cited in rank order: it re-decodes without
   each of the top three (app/audit/counterfactual.py).

Not through the API, by design: `POST /v1/select` retrieves for itself (no domain, at the
current time, where the probe retrieves in its domain at its own time) and no request can
move the bound, so neither the probe's memories nor the ablations can reach it;
`POST /v1/audit` writes each audited node's running influence, the retrieval prior, so
auditing through it would change every later probe's retrieval in the episode. The calls are
the pure hooks the services themselves call (`app.selection.selector.decide`,
`app.audit.counterfactual.counterfactual`).

Each audited citation is labelled with the generator's necessity (bench/common/records.py
`necessary`). Candidate texts are embedded once per probe; the utility model's memory
feature cache and the embedder's cache serve the audit's re-decodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.audit.counterfactual import counterfactual
from app.core.config import get_settings
from app.selection.memory import Memory
from app.selection.safety import SafetyScorer, get_safety_scorer
from app.selection.selector import SelectorConfig, decide
from app.selection.utility import PreferenceUtility, get_utility
from bench.common.records import AuditedCitation, Candidate, Retrieved, ServiceSelection, necessary
from workers.audit.reselect import ReselectDecoder


def node_id(rank: int) -> str:
    """A retrieved memory's id inside one probe: its retrieval rank."""
    return f"r{rank}"


def to_memory(rank: int, memory: Retrieved) -> Memory:
    """The selector's view of a retrieved memory: its claim and structured fields."""
    return Memory(node_id=node_id(rank), claim=memory.claim, subject=memory.subject,
                  value=memory.value, direction=memory.direction, scope=memory.scope,
                  score=memory.score)


class ServiceJudge:
    """The service selector and `reselect` audit with shared models (one per process)."""

    def __init__(self, utility: PreferenceUtility | None = None,
                 safety: SafetyScorer | None = None,
                 config: SelectorConfig | None = None) -> None:
        self.utility = utility or get_utility()
        self.safety = safety or get_safety_scorer()
        self.config = config or SelectorConfig.from_settings(get_settings())
        self.no_bound = replace(self.config, tau_safe=None)
        self.no_safety = replace(self.config, tau_safe=None, weight_safety=0.0)
        self.decoder = ReselectDecoder(self.utility, self.safety, self.config)

    def run(self, prompt: str, retrieved: Sequence[Retrieved], candidates: Sequence[Candidate],
            *, dimension: str, scope: str, true_state: dict[str, Any],
            audit: bool = True) -> ServiceSelection:
        memories = [to_memory(i, m) for i, m in enumerate(retrieved)]
        texts = [c.text for c in candidates]
        prompt_emb, cand_emb, style = self.utility.embed_candidates(prompt, texts)
        r_p = self.utility.score_embedded(prompt_emb, cand_emb, style,
                                          self.utility.memory_features(memories))
        assessments = self.safety.assess(prompt, texts)
        scores = [float(x) for x in r_p]
        bounded = decide(scores, assessments, self.config)
        unbounded = decide(scores, assessments, self.no_bound)
        needed = [i for i, m in enumerate(retrieved)
                  if necessary(m, dimension, scope, true_state)]
        unguarded = decide(scores, assessments, self.no_safety)
        record = ServiceSelection(chosen=bounded.chosen, chosen_no_bound=unbounded.chosen,
                                  chosen_no_safety=unguarded.chosen, necessary_ranks=needed)
        if not audit or not memories:
            return record
        if bounded.chosen is not None:
            response = texts[bounded.chosen]
        else:
            response = bounded.refusal.message if bounded.refusal else ""
        pool = texts if response in texts else [*texts, response]  # as the audit service
        outcome = counterfactual(prompt, memories, [m.node_id for m in memories], self.decoder,
                                 response=response, candidates=pool, utility=self.utility)
        rank_of = {m.node_id: i for i, m in enumerate(memories)}
        record.citations = [
            AuditedCitation(rank=rank_of[c.node_id], influence=c.influence, kept=c.kept,
                            selection_changed=c.selection_changed,
                            necessary=rank_of[c.node_id] in needed)
            for c in outcome.citations
        ]
        return record
