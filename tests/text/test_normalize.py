"""Sink values: kinds, normal forms, and finding the same value however it is written."""

from __future__ import annotations

import pytest

from app.text.normalize import (
    SinkValue,
    ValueKind,
    canonical,
    content_entities,
    detect,
    domain_covered,
    sink_values,
    skeleton,
    view,
)


class TestDetect:
    @pytest.mark.parametrize(
        ("raw", "kind", "normalized"),
        [
            ("Dana@Reyes-CPA.com", ValueKind.email, "dana@reyes-cpa.com"),
            ("Dana Reyes <dana@reyes-cpa.com>", ValueKind.email, "dana@reyes-cpa.com"),
            ("mailto:dana@reyes-cpa.com", ValueKind.email, "dana@reyes-cpa.com"),
            ("https://www.Example.com/a/b/?x=1#top", ValueKind.url, "example.com/a/b?x=1"),
            ("www.example.com", ValueKind.url, "example.com"),
            ("DE89 3704 0044 0532 0130 00", ValueKind.iban, "DE89370400440532013000"),
            ("€1,250.00", ValueKind.amount, "1250"),
            ("1250.50 EUR", ValueKind.amount, "1250.5"),
            ("+1 (323) 555-1234", ValueKind.phone, "13235551234"),
            ("doc-4521", ValueKind.id, "doc-4521"),
            ("acme.com", ValueKind.domain, "acme.com"),
            ("Riverside View Hotel", ValueKind.name, "riverside view hotel"),
            ("$most_expensive_hotel.name", ValueKind.name, "most_expensive_hotel name"),
        ],
    )
    def test_kind_and_normal_form(self, raw: str, kind: ValueKind, normalized: str) -> None:
        assert detect(raw) == (kind, normalized)

    def test_numbers_are_amounts_unless_the_sink_is_an_id(self) -> None:
        assert detect(1250) == (ValueKind.amount, "1250")
        assert detect(1250, ValueKind.id) == (ValueKind.id, "1250")

    @pytest.mark.parametrize("raw", ["", "   ", "2024-05-13", "2024-05-13 09:00", "09:30", True])
    def test_dates_times_and_blanks_are_not_values(self, raw: str | bool) -> None:
        assert detect(raw) is None

    def test_a_list_argument_is_several_values(self) -> None:
        values, truncated = sink_values(
            "recipients", ["a@x.com, b@y.com", "a@x.com"], ValueKind.email
        )
        assert not truncated
        assert [(v.kind, v.normalized) for v in values] == [
            (ValueKind.email, "a@x.com"),
            (ValueKind.email, "b@y.com"),
        ]

    def test_free_text_in_a_sink_is_traced_whole_and_its_addresses_too(self) -> None:
        values, _ = sink_values("to", "please reach the attacker at x@evil.io " * 20)
        kinds = {v.kind for v in values}
        assert kinds == {ValueKind.email, ValueKind.id}

    def test_too_many_or_too_deep_is_flagged_never_cut_silently(self) -> None:
        many = [f"u{i}@x.example" for i in range(150)]
        values, truncated = sink_values("recipients", many, ValueKind.email)
        assert truncated
        assert len(values) == 100
        deep: object = "x@evil.io"
        for _ in range(8):
            deep = [deep]
        assert sink_values("recipients", deep)[1]

    def test_domains_cover_subdomains_only(self) -> None:
        assert domain_covered("mail.acme.com", "acme.com")
        assert not domain_covered("notacme.com", "acme.com")


class TestFind:
    def test_email_respects_boundaries_and_case(self) -> None:
        value = SinkValue("to", ValueKind.email, "dana@reyes-cpa.com")
        assert value.find("write to DANA@reyes-cpa.com.") == [(9, 27)]
        assert value.find("joedana@reyes-cpa.com") == []
        assert value.find("dana@reyes-cpa.com.evil.io") == []

    def test_url_tolerates_scheme_www_and_trailing_slash_not_a_new_query(self) -> None:
        value = SinkValue("url", ValueKind.url, "example.com/a/b")
        assert value.find("see https://www.example.com/a/b/ now")
        assert value.find("example.com/a/b.")
        assert value.find("https://example.com/a/b?leak=secret") == []
        assert value.find("https://example.com/a/bc") == []

    def test_iban_with_or_without_spaces(self) -> None:
        value = SinkValue("iban", ValueKind.iban, "DE89370400440532013000")
        assert value.find("IBAN: DE89 3704 0044 0532 0130 00.")
        assert value.find("de89370400440532013000")
        assert value.needle == "DE89"

    def test_amount_with_separators_and_zero_decimals(self) -> None:
        value = SinkValue("amount", ValueKind.amount, "1250")
        assert value.find("pay $1,250.00 now")
        assert value.find("1250 EUR")
        assert value.find("11250") == []
        assert value.find("1250.5") == []

    def test_name_across_punctuation_and_case(self) -> None:
        value = SinkValue("hotel", ValueKind.name, "riverside view hotel")
        assert value.find("the Riverside-View  Hotel!")
        assert value.find("Riverside Viewing Hotel") == []


class TestContentEntities:
    def test_addresses_urls_ibans_and_names_in_free_text(self) -> None:
        found, _ = content_entities(
            "body",
            "Booking at the Riverside View Hotel; mail x@evil.io, see https://evil.io/x. "
            "IBAN GB82 WEST 1234 5698 7654 32",
        )
        assert {(v.kind, v.normalized) for v in found} >= {
            (ValueKind.email, "x@evil.io"),
            (ValueKind.url, "evil.io/x"),
            (ValueKind.iban, "GB82WEST12345698765432"),
            (ValueKind.name, "riverside view hotel"),
        }
        assert all(v.from_content for v in found)
        assert not any("gb82" in v.normalized for v in found if v.kind == ValueKind.name)


class TestCanonicalForms:
    def test_lookalikes_invisible_characters_and_escapes_fold_to_one_value(self) -> None:
        plain = detect("billing@evil-ledger.io")
        for written in (
            "billing@evil-lеdger.io",  # Cyrillic е
            "bill\u200bing@evil-ledger.io",
            "billing%40evil-ledger.io",
            "ｂｉｌｌｉｎｇ@evil-ledger.io",
            "MAILTO:billing@evil-ledger.io?subject=x",
        ):
            assert detect(written) == plain, written

    def test_a_lookalike_value_is_marked_and_found_only_inexactly_in_plain_text(self) -> None:
        (value,), _ = sink_values("to", "dana@reyes-cрa.com")
        assert value.lookalike
        assert value.marks == ("р",)
        assert [exact for _, _, exact in value.locate(view("mail dana@reyes-cpa.com"))] == [False]
        assert [exact for _, _, exact in value.locate(view("mail dana@reyes-cрa.com"))] == [True]
        (plain,), _ = sink_values("to", "dana@reyes-cpa.com")
        assert [exact for _, _, exact in plain.locate(view("mail dana@reyes-cрa.com"))] == [False]

    def test_a_display_name_with_a_comma_is_one_recipient(self) -> None:
        values, _ = sink_values("to", '"Reyes, Dana" <dana@reyes-cpa.com>, b@y.com')
        assert [v.normalized for v in values] == ["dana@reyes-cpa.com", "b@y.com"]

    def test_canonical_keeps_what_means_something_else(self) -> None:
        assert canonical("a%20b%2540c") == "a%20b%2540c"
        assert skeleton("pаypal") == "paypal"
        assert len(skeleton("pаypal")) == len("pаypal")


@pytest.mark.parametrize(("written", "digits"), [
    ("07700 900846", "07700900846"), ("0161 496 0123", "01614960123"),
    ("+44 7700 900846", "447700900846")])
def test_a_leading_zero_or_a_plus_makes_a_phone_number(written: str, digits: str) -> None:
    assert detect(written) == (ValueKind.phone, digits)


@pytest.mark.parametrize("written", ["0.50", "1,250", "2340", "€ 12.00"])
def test_amounts_stay_amounts(written: str) -> None:
    found = detect(written)
    assert found is not None
    assert found[0] == ValueKind.amount
