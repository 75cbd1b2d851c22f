"""The counterfactual citation audit (paper §3.4, eq. 6), pure: no database.

    Inf(n) = U(y_factual) − U(y_{L∖n})

y_factual is the decoder's output with the full memory set L and y_{L∖n} its output with
node n removed; U is the preference utility r_p of a response against the *full* memory set
(the user as the ledger knows them). The same decoder produces both, so a difference comes
from removing n and not from a different model. Only the top three cited nodes (by retrieval
rank) are re-decoded. A citation whose removal changes nothing — |Inf| < 0.10 and the same
output — is dropped from the explanation.

Across turns the influence accumulates per node as a running mean with decay 0.9 per audited
retrieval, starting from the retrieval prior's neutral value: a node retrieved again and
again without changing an output sinks below neutral and is down-weighted at retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.domain.audit import AuditDecoder, Decoded
from app.retrieval.scoring import NEUTRAL_INFLUENCE
from app.selection.memory import Memory, without
from app.selection.utility import PreferenceUtility, get_utility

# Paper, Appendix B.
TOP_CITED = 3  # re-decode at most the top three cited nodes per turn
DROP_THRESHOLD = 0.10  # |Inf| below this with an unchanged output: the citation is dropped
INFLUENCE_DECAY = 0.9  # running mean: new = 0.9 · old + 0.1 · observation


@dataclass(frozen=True, slots=True)
class CitationInfluence:
    node_id: str
    rank: int
    influence: float  # Inf(n)
    counterfactual_utility: float  # U(y without n)
    selection_changed: bool
    kept: bool


@dataclass(frozen=True, slots=True)
class AuditOutcome:
    factual: Decoded
    factual_utility: float  # U(y_factual)
    response_utility: float  # U(the response the agent sent)
    response_matches_factual: bool
    citations: tuple[CitationInfluence, ...]  # the audited (top) ones, in rank order

    @property
    def kept_node_ids(self) -> list[str]:
        return [c.node_id for c in self.citations if c.kept]


def top_cited(cited: Sequence[str], memories: Sequence[Memory],
              limit: int = TOP_CITED) -> list[str]:
    """Cited nodes ordered by their rank in the memory set (then citation order), top few."""
    position = {m.node_id: i for i, m in enumerate(memories)}
    unique = list(dict.fromkeys(cited))
    ordered = sorted(unique, key=lambda n: (position.get(n, len(position)), unique.index(n)))
    return ordered[:limit]


def same_output(factual: Decoded, without: Decoded) -> bool:
    """Whether the decoder, without the node, may still produce the factual output. For a
    selection decoder: the factual choice is among the counterfactual's best (its choice or
    a candidate it cannot tell from it), so removing the node showed no change; the
    difference in expected utility, Inf, then decides whether the citation is kept."""
    if factual.refused or without.refused:
        return factual.refused == without.refused
    if factual.index is not None or without.index is not None:
        return factual.index in {without.index, *without.ties}
    return factual.text.strip() == without.text.strip()


def counterfactual(
    prompt: str,
    memories: Sequence[Memory],
    cited_node_ids: Sequence[str],
    decoder: AuditDecoder[Memory],
    *,
    response: str | None = None,
    candidates: Sequence[str] = (),
    utility: PreferenceUtility | None = None,
    limit: int = TOP_CITED,
) -> AuditOutcome:
    """Audit the top `limit` cited nodes (benchmark hook). `memories` is the set L, best
    retrieval rank first; cited nodes missing from it are ignored."""
    utility = utility or get_utility()
    present = {m.node_id for m in memories}
    audited = top_cited([n for n in cited_node_ids if n in present], memories, limit)
    outputs = decoder.decode_many(prompt, [memories, *[without(memories, n) for n in audited]],
                                  candidates)
    factual, removed = outputs[0], outputs[1:]
    # Every text an output may be, scored once against the full memory set.
    texts = list(dict.fromkeys(
        [t for o in outputs for t in o.options(candidates)]
        + ([response] if response is not None else [])))
    score_of = dict(zip(texts, (float(x) for x in utility.score(prompt, memories, texts)),
                        strict=True))

    def u(output: Decoded) -> float:
        options = output.options(candidates)
        return sum(score_of[t] for t in options) / len(options)

    u_factual = u(factual)
    citations = []
    for rank, (node_id, output) in enumerate(zip(audited, removed, strict=True)):
        u_without = u(output)
        influence = u_factual - u_without
        changed = not same_output(factual, output)
        kept = changed or abs(influence) >= DROP_THRESHOLD
        citations.append(CitationInfluence(node_id, rank, round(influence, 6),
                                           round(u_without, 6), changed, kept))
    return AuditOutcome(
        factual=factual,
        factual_utility=round(u_factual, 6),
        response_utility=round(score_of[response] if response is not None else u_factual, 6),
        response_matches_factual=(response is None or factual.text.strip() == response.strip()),
        citations=tuple(citations),
    )


def updated_influence(previous: float | None, influence: float) -> float:
    """Running mean with decay 0.9 per audited retrieval, in [0, 1] (the retrieval prior's
    scale); an unaudited node starts from the neutral prior. The observation is Inf(n)
    clipped to [0, 1]: a node whose removal changed nothing observes 0."""
    start = NEUTRAL_INFLUENCE if previous is None else previous
    observation = min(1.0, max(0.0, influence))
    return round(INFLUENCE_DECAY * start + (1.0 - INFLUENCE_DECAY) * observation, 6)


