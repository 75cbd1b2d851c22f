"""`reselect`: the CPU default re-decoder. Best-of-N over the turn's candidates (plus the
response the agent sent) under the same safety-bounded selector, with the reduced memory.
Candidates whose objective is within `INDIFFERENCE` of the chosen one's are reported as ties
(`Decoded.ties`): r_p cannot tell them apart, so the audit treats the choice among them as
undetermined rather than as something a memory decided.

r_s never reads memory, so the safety verdicts are computed once per audit; candidate
embeddings are shared by every memory set.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.config import get_settings
from app.domain.audit import Decoded
from app.selection.memory import Memory
from app.selection.safety import SafetyScorer, get_safety_scorer
from app.selection.selector import Selection, SelectorConfig, decide, tied_with
from app.selection.utility import PreferenceUtility, get_utility

# Objectives this close to the chosen one's are indifferent to the decoder. Set on the dev
# split among 0.01–0.1 (docs/RESULTS.md); with nothing relevant in memory, r_p's top two
# candidates are 0.019 apart in the median train pool and 0.12 at the 90th percentile.
INDIFFERENCE = 0.05


class ReselectDecoder:
    name = "reselect"

    def __init__(self, utility: PreferenceUtility | None = None,
                 safety: SafetyScorer | None = None,
                 config: SelectorConfig | None = None) -> None:
        self._utility = utility
        self._safety = safety
        self._config = config

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                    candidates: Sequence[str]) -> list[Decoded]:
        if not candidates:
            raise ValueError("the reselect decoder needs candidates")
        utility = self._utility or get_utility()
        safety = self._safety or get_safety_scorer()
        config = self._config or SelectorConfig.from_settings(get_settings())
        assessments = safety.assess(prompt, candidates)
        prompt_emb, cand_emb, style = utility.embed_candidates(prompt, candidates)
        out = []
        for memories in memory_sets:
            r_p = utility.score_embedded(prompt_emb, cand_emb, style,
                                         utility.memory_features(memories))
            selection = decide([float(x) for x in r_p], assessments, config)
            if selection.chosen is None:
                refusal = selection.refusal.message if selection.refusal else ""
                out.append(Decoded(refusal, None, refused=True))
            else:
                out.append(Decoded(candidates[selection.chosen], selection.chosen,
                                   ties=indifferent(selection)))
        return out


def indifferent(selection: Selection, margin: float = INDIFFERENCE) -> tuple[int, ...]:
    """In-bound candidates other than the chosen one whose objective is within `margin`."""
    return tied_with(selection.chosen, [s.objective for s in selection.scores],
                     selection.scores, margin)
