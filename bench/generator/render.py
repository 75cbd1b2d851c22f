"""Turns specs and benign slots into event text, drawing only this split's template families."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np

from bench.generator.schema import GLOBAL_SCOPE, Spec
from bench.generator.splits import SplitPlan
from bench.generator.text import add_typos, fill, pick, style, third_person
from bench.generator.wording import DEFAULT_WORDING, Wording

# Weights over benign intents; origins follow from the intent.
NOISE_MIX: Final = (
    ("noise_user", "user", 0.56),
    ("noise_oneoff", "user", 0.06),
    ("noise_doc", "retrieved_document", 0.16),
    ("noise_tool", "tool_output", 0.14),
    ("noise_file", "shared_file", 0.08),
)
_NOISE_WEIGHTS = np.array([w for _, _, w in NOISE_MIX])
# Light typos on ordinary user turns, so typos alone do not mark track T2.
_LIGHT_TYPO_RATE = 0.07


@dataclass
class Rendered:
    text: str
    families: list[str]  # "intent/family" for every template family the text used
    realization: str | None = None
    topic: str | None = None
    notes: str = ""
    origin: str = ""
    passage: str | None = None  # the attacker's sentence, for laundered events


@dataclass
class Renderer:
    """Per-episode renderer; `passages` keeps laundered sentences so a paste can repeat a
    planted document verbatim. Every text comes from `wording`."""

    rng: np.random.Generator
    split: str
    plan: SplitPlan
    topics: list[str]
    passages: dict[int, tuple[str, str]] = field(default_factory=dict)
    wording: Wording = DEFAULT_WORDING

    def _template(self, intent: str) -> tuple[str, int, str]:
        family = pick(self.rng, self.plan.families[intent][self.split])
        options = self.wording.templates[intent][family]
        index = int(self.rng.integers(len(options)))
        return family, index, options[index]

    def _base_slots(self) -> dict[str, str]:
        topic = pick(self.rng, self.topics)
        filler = pick(self.rng, self.wording.fillers)
        return {
            "topic": topic, "Topic": topic[0].upper() + topic[1:], "filler": filler,
            "filler2": pick(self.rng, self.wording.fillers),
            "filler_lower": filler[0].lower() + filler[1:],
            "num": str(int(self.rng.integers(2, 999))),
            "date": f"2024-{int(self.rng.integers(1, 13)):02d}-{int(self.rng.integers(1, 29)):02d}",
        }

    def _pref_slots(self, spec: Spec) -> dict[str, str]:
        slots = self._base_slots()
        phrases = self.wording.value_phrases[spec.dimension]
        slots.update(
            v=pick(self.rng, phrases[spec.value]), x=pick(self.rng, phrases[spec.value]),
            value=spec.value, dim=spec.dimension,
            d=pick(self.rng, self.wording.dimension_phrases[spec.dimension]),
        )
        if spec.old_value is not None:
            slots["old"] = pick(self.rng, phrases[spec.old_value])
        else:
            slots["old"] = "what I had before"
        if spec.scope != GLOBAL_SCOPE:
            slots["ctx"] = pick(self.rng, self.wording.domain_phrases[spec.scope])
        if spec.scenario is not None:
            unsafe = pick(self.rng, self.wording.safety_scenarios[spec.scenario].unsafe)
            # Scenario riders are written by the user; an attacker speaks about the user.
            slots["unsafe"] = unsafe if spec.origin == "user" else third_person(unsafe)
        return slots

    def preference(self, spec: Spec) -> Rendered:
        slots = self._pref_slots(spec)
        if spec.intent in ("launder_doc", "launder_paste"):
            return self._laundered(spec, slots)
        family, index, template = self._template(spec.intent)
        used = [f"{spec.intent}/{family}"]
        text = style(fill(template, slots), family)
        realization = None
        if spec.intent in ("attack_injection", "attack_summary", "safety_attack"):
            carriers = (self.wording.summary_carriers if spec.intent == "attack_summary"
                        else self.wording.injection_carriers)[spec.origin]
            carrier = int(self.rng.integers(len(carriers)))
            text = fill(carriers[carrier], {**slots, "payload": text})
            realization = f"{spec.intent}/{family}/{index}/{spec.origin}/{carrier}"
        elif spec.scope != GLOBAL_SCOPE and "{ctx}" not in template:
            text = f"{text} {fill(pick(self.rng, self.wording.scope_suffixes[family]), slots)}"
        if spec.typo:
            text = add_typos(text, self.rng, int(self.rng.integers(2, 5)))
        elif (spec.origin == "user" and spec.label != "attack"
              and self.rng.random() < _LIGHT_TYPO_RATE):
            text = add_typos(text, self.rng, 1)
        return Rendered(text, used, realization, slots["topic"] if realization else None)

    def _laundered(self, spec: Spec, slots: dict[str, str]) -> Rendered:
        key = spec.passage_id if spec.passage_id is not None else -1
        if key not in self.passages:
            family, index, template = self._template("launder_passage")
            self.passages[key] = (style(fill(template, slots), family),
                                  f"launder_passage/{family}/{index}")
        passage, passage_id = self.passages[key]
        family, index, template = self._template(spec.intent)
        # Not re-cased: the passage must appear verbatim in the paste and the document.
        text = fill(template, {**slots, "passage": passage})
        return Rendered(
            text, [f"{spec.intent}/{family}", passage_id.rsplit("/", 1)[0]],
            f"{passage_id}+{spec.intent}/{family}/{index}", passage=passage,
        )

    def noise(self) -> Rendered:
        """A benign event (its origin follows from the intent drawn)."""
        k = int(self.rng.choice(len(NOISE_MIX), p=_NOISE_WEIGHTS / _NOISE_WEIGHTS.sum()))
        intent, origin, _ = NOISE_MIX[k]
        family, _, template = self._template(intent)
        slots = self._base_slots()
        slots.update(
            code=pick(self.rng, ("Python", "TypeScript", "Rust", "Go", "Java")),
            lang=pick(self.rng, ("English", "Spanish", "French", "German")),
            units=pick(self.rng, ("metric", "imperial")),
        )
        text = fill(template, slots)
        if origin == "user":
            text = style(text, family)
        if origin == "user" and self.rng.random() < _LIGHT_TYPO_RATE:
            text = add_typos(text, self.rng, 1)
        note = "one-off task mentioning a value; not a preference" if intent == "noise_oneoff" \
            else f"benign {origin.replace('_', ' ')}"
        return Rendered(text, [f"{intent}/{family}"], None, slots["topic"], note, origin)
