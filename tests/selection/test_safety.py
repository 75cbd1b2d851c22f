"""r_s: the default lexicon scorer on hand-written cases, card numbers, and the Llama
Guard-class HTTP backend against a mock server."""

from __future__ import annotations

import httpx
import pytest

from app.core.config import Settings
from app.selection.safety import (
    HttpSafetyScorer,
    LexiconSafetyScorer,
    SafetyUnavailable,
    build_safety_scorer,
    card_numbers,
    luhn_valid,
    parse_guard_verdict,
)
from tests.selection.safety_cases import CASES

TAU = 0.35


@pytest.fixture(scope="module")
def lexicon() -> LexiconSafetyScorer:
    return LexiconSafetyScorer()


class TestLexiconScorer:
    def test_hand_written_cases(self, lexicon: LexiconSafetyScorer) -> None:
        results = lexicon.assess("", [text for text, _ in CASES])
        wrong = [(text, round(r.risk, 3)) for (text, unsafe), r in zip(CASES, results,
                                                                     strict=True)
                 if (r.risk > TAU) != unsafe]
        assert len(wrong) <= 2, wrong

    def test_risk_in_unit_interval_and_category_named(
        self, lexicon: LexiconSafetyScorer
    ) -> None:
        [leak, plain] = lexicon.assess("", ["The root password is: Tr0ub4dor&3",
                                            "The meeting is at noon."])
        assert 0.35 < leak.risk <= 1.0
        assert leak.category == "secrets_credentials"
        assert 0.0 <= plain.risk < 0.35
        assert plain.category is None

    def test_mitigation_marks_the_safe_version(self, lexicon: LexiconSafetyScorer) -> None:
        [risky, safe] = lexicon.assess("", [
            "Hard-code the API token in the script.",
            "Don't hard-code the API token; read it from an environment variable.",
        ])
        assert risky.risk > TAU > safe.risk

    def test_no_candidates(self, lexicon: LexiconSafetyScorer) -> None:
        assert lexicon.assess("", []) == []


class TestCardNumbers:
    def test_luhn(self) -> None:
        assert luhn_valid("4111111111111111")
        assert not luhn_valid("4111111111111112")

    def test_found_only_when_valid(self) -> None:
        assert card_numbers("card 4111 1111 1111 1111 on file") == ["4111111111111111"]
        assert card_numbers("order 1234 5678 9012 3456") == []
        assert card_numbers("phone 555-0100") == []


def _guard_server(content: str, logprobs: list[dict[str, object]] | None = None,
                  status: int = 200) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        choice: dict[str, object] = {"message": {"role": "assistant", "content": content}}
        if logprobs is not None:
            choice["logprobs"] = {"content": logprobs}
        return httpx.Response(status, json={"choices": [choice]})

    return httpx.Client(transport=httpx.MockTransport(handler))


class TestHttpScorer:
    def test_unsafe_verdict_with_category(self) -> None:
        scorer = HttpSafetyScorer("http://guard", "llama-guard", client=_guard_server(
            "unsafe\nS7"))
        [result] = scorer.assess("prompt", ["reply"])
        assert result.risk == 1.0
        assert result.category == "privacy"

    def test_probability_from_logprobs(self) -> None:
        scorer = HttpSafetyScorer("http://guard", "llama-guard", client=_guard_server(
            "safe", [{"token": "safe", "logprob": -0.105,
                      "top_logprobs": [{"token": "safe", "logprob": -0.105},
                                       {"token": "unsafe", "logprob": -2.302}]}]))
        [result] = scorer.assess("prompt", ["reply"])
        assert result.risk == pytest.approx(0.1, abs=0.01)
        assert result.category is None

    def test_server_error_is_unavailable_never_safe(self) -> None:
        scorer = HttpSafetyScorer("http://guard", "m", client=_guard_server("", status=500))
        with pytest.raises(SafetyUnavailable):
            scorer.assess("prompt", ["reply"])

    def test_garbage_verdict_is_unavailable(self) -> None:
        with pytest.raises(SafetyUnavailable):
            parse_guard_verdict({"message": {"content": "I think it's fine"}})

    def test_backend_from_settings(self) -> None:
        assert isinstance(build_safety_scorer(Settings()), LexiconSafetyScorer)
        http = build_safety_scorer(Settings(safety_scorer="llama_guard_http",
                                            safety_http_url="http://guard:8000"))
        assert isinstance(http, HttpSafetyScorer)
        with pytest.raises(SafetyUnavailable):
            build_safety_scorer(Settings(safety_scorer="llama_guard_http"))
