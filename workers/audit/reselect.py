"""`reselect`: the CPU default re-decoder. Best-of-N over the turn's candidates (plus the
response the agent sent) under the same safety-bounded selector, with the reduced memory.
Exact ties at the top are reported (`Decoded.ties`): the audit treats them as undetermined.

r_s never reads memory, so the safety verdicts are computed once per audit; candidate
embeddings are shared by every memory set.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.audit.counterfactual import Decoded
from app.core.config import get_settings
from app.selection.memory import Memory
from app.selection.safety import SafetyScorer, get_safety_scorer
from app.selection.selector import SelectorConfig, decide
from app.selection.utility import PreferenceUtility, get_utility


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
                                   ties=selection.tied))
        return out
