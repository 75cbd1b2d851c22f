"""The near-miss statements and the dev-split noise measurement: loaders, the unsaid-value
rule, and both commands end to end with the deterministic extractor, through the service on
their own database of the test server."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from app.cli import app as capture_app
from app.core.corpora import CorpusError
from app.domain.vocabulary import Direction
from app.extraction.open_claims import OPEN_VALUE, open_subject
from app.extraction.taxonomy import DIMENSIONS
from bench.common import service as bench_service
from bench.common.service import Read, ServiceError, reader_of
from bench.generator import generate
from bench.reader import nearmiss, noise_reading

ROOT = Path(__file__).resolve().parents[2]


def claim(subject: str, value: str, direction: Direction = Direction.prefer) -> Read:
    return Read(f"{subject} {value}", subject, value, direction.value, "global", "learned", "1")


def open_claim(text: str) -> Read:
    return Read(text, open_subject(text), OPEN_VALUE, "prefer", "global", "learned", "1")


@pytest.fixture
def test_server(server_uri: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The commands' service databases go on the test server, not the embedded one."""
    monkeypatch.setattr(bench_service, "embedded_server_uri", lambda: server_uri)
    return server_uri


WINDOW = nearmiss.NearMiss("travel_class", "seat position", "I prefer window seats when I fly.",
                           "open", frozenset())
BUSINESS = nearmiss.NearMiss("travel_class", "the class itself", "Business class, please.",
                             "value", frozenset({("travel_class", "business")}))


class TestNearMissSet:
    def test_at_least_150_statements_over_every_dimension(self) -> None:
        items = nearmiss.load_nearmiss()
        assert len(items) >= 150
        per_dimension = Counter(i.dimension for i in items)
        assert set(per_dimension) == {d.name for d in DIMENSIONS}
        assert min(per_dimension.values()) >= 5
        assert {i.faithful for i in items} == set(nearmiss.FAITHFUL_READINGS)

    def test_no_training_code_reads_it(self) -> None:
        sources = [p.read_text() for p in (ROOT / "workers").rglob("*.py")]
        for name in ("nearmiss", "sealed.yaml", "generator.sealed", "reader/data",
                     "generator/data"):
            assert not any(name in source for source in sources), name
        assert '"bench.reader.nearmiss"' in (ROOT / "pyproject.toml").read_text()

    @pytest.mark.parametrize(("said", "faithful"), [([], "value"), (["diet=vegan"], "none"),
                                                    (["diet=keto"], "open")])
    def test_inconsistent_labels_are_refused(self, tmp_path: Path, said: list[str],
                                             faithful: str) -> None:
        path = tmp_path / "nm.yaml"
        path.write_text(yaml.safe_dump([{"set": "nearmiss", "dimension": "diet", "aspect": "x",
                                         "faithful": faithful, "said": said,
                                         "text": "I like food."}]))
        with pytest.raises((CorpusError, KeyError)):
            nearmiss.load_nearmiss(path)


class TestNearMissDevSet:
    def test_a_development_set_of_its_own_over_every_dimension(self) -> None:
        items = nearmiss.load_nearmiss(nearmiss.NEARMISS_DEV_DATA, nearmiss.NEARMISS_DEV)
        assert len(items) >= 150
        per_dimension = Counter(i.dimension for i in items)
        assert set(per_dimension) == {d.name for d in DIMENSIONS}
        assert min(per_dimension.values()) >= 5
        values = sum(i.faithful == "value" for i in items)
        assert 0.05 <= values / len(items) <= 0.15
        assert "DEVELOPMENT SET" in nearmiss.NEARMISS_DEV_DATA.read_text().splitlines()[0]

    def test_each_file_holds_its_own_set(self) -> None:
        with pytest.raises(CorpusError):
            nearmiss.load_nearmiss(nearmiss.NEARMISS_DEV_DATA, nearmiss.NEARMISS)
        assert nearmiss.SETS["eval"] == (nearmiss.NEARMISS_DATA, nearmiss.NEARMISS)


class TestUnsaidValue:
    def test_the_nearest_taxonomy_value_is_unsaid(self) -> None:
        hypotheses = (claim("travel_class", "economy"),)
        assert nearmiss.outcome(WINDOW, hypotheses) == "unsaid_value"
        assert not nearmiss.is_faithful(WINDOW, "unsaid_value")

    def test_an_open_claim_is_faithful(self) -> None:
        hypotheses = (open_claim(WINDOW.text),)
        assert nearmiss.unsaid(WINDOW, hypotheses) == []
        assert nearmiss.outcome(WINDOW, hypotheses) == "open_claim"
        assert nearmiss.is_faithful(WINDOW, "open_claim")

    def test_the_said_value_is_not_unsaid_but_another_is(self) -> None:
        assert nearmiss.outcome(BUSINESS, (claim("travel_class", "business"),)) == "said_value"
        both = (claim("travel_class", "business"), claim("travel_class", "first"))
        assert [h.value for h in nearmiss.unsaid(BUSINESS, both)] == ["first"]
        assert nearmiss.outcome(BUSINESS, ()) == "nothing"


class TestReaderOf:
    def test_names_the_configured_reader_and_the_version_its_reads_record(self) -> None:
        assert reader_of("learned", [claim("diet", "vegan")]) == {"name": "learned",
                                                                   "version": "1"}
        assert reader_of("learned", []) == {"name": "learned", "version": None}

    def test_reads_by_another_reader_are_refused(self) -> None:
        fallback = claim("diet", "vegan")  # read by learned
        with pytest.raises(ServiceError):
            reader_of("openai_compatible", [fallback])
        other_version = Read("diet keto", "diet", "keto", "prefer", "global", "learned", "2")
        with pytest.raises(ServiceError):
            reader_of("learned", [fallback, other_version])


class TestNearMissCommand:
    def test_writes_rates_by_dimension(self, tmp_path: Path, test_server: str) -> None:
        result = CliRunner().invoke(capture_app, ["bench", "nearmiss", "--out", str(tmp_path),
                                                  "--extractor", "deterministic"])
        assert result.exit_code == 0, result.output
        results = json.loads((tmp_path / "results.json").read_text())
        rows = results["rows"]
        assert results["statements"] == len(rows) == len(nearmiss.load_nearmiss())
        unsaid = sum(r["outcome"] == "unsaid_value" for r in rows)
        assert results["overall"]["unsaid_value_rate"] == round(unsaid / len(rows), 4)
        assert all((r["unsaid_claims"] > 0) == (r["outcome"] == "unsaid_value") for r in rows)
        assert sum(d["statements"] for d in results["by_dimension"].values()) == len(rows)
        assert "unsaid value" in (tmp_path / "results.md").read_text()
        # The reader the service reports on its reads is the one the command configured.
        assert results["extractor"]["name"] == "deterministic"
        assert results["extractor"]["version"]


    def test_reads_the_development_set_when_asked(self, tmp_path: Path,
                                                  test_server: str) -> None:
        result = CliRunner().invoke(capture_app, ["bench", "nearmiss", "--out", str(tmp_path),
                                                  "--extractor", "deterministic", "--set", "dev"])
        assert result.exit_code == 0, result.output
        results = json.loads((tmp_path / "results.json").read_text())
        dev = nearmiss.load_nearmiss(nearmiss.NEARMISS_DEV_DATA, nearmiss.NEARMISS_DEV)
        assert [r["text"] for r in results["rows"]] == [i.text for i in dev]
        assert results["statements_file"] == "bench/reader/data/nearmiss_dev.yaml"
        assert "nearmiss_dev.yaml" in (tmp_path / "results.md").read_text()

    def test_an_unknown_set_is_refused(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(capture_app, ["bench", "nearmiss", "--out", str(tmp_path),
                                                  "--set", "sealed"])
        assert result.exit_code != 0
        assert not (tmp_path / "results.json").exists()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dpg-noise")
    generate(out, seed=3, episodes_per_track=15, progress=False)
    return out


class TestNoiseCommand:
    def test_reads_every_kind_of_the_dev_split(self, data: Path, tmp_path: Path,
                                                server_uri: str) -> None:
        results = noise_reading.run(tmp_path, "deterministic", data=data, server_uri=server_uri)
        assert results["split"] == "dev"
        dev = [json.loads(line) for line in (data / "dev.jsonl").read_text().splitlines()]
        kinds = Counter(noise_reading.kind_of(e) for ep in dev for e in ep["events"])
        for kind, row in results["by_kind"].items():
            assert row["events"] == kinds[kind]
            rates = [v for k, v in row.items() if k.endswith("_rate")]
            assert rates
            assert all(0.0 <= r <= 1.0 for r in rates)
        assert results["by_kind"]["small_talk"]["events"] > 0
        assert "read_literal_rate" in results["by_kind"]["sarcasm"]

    def test_cli_reads_dev_only(self, data: Path, tmp_path: Path, test_server: str) -> None:
        runner = CliRunner()
        result = runner.invoke(capture_app, ["bench", "noise", "--out", str(tmp_path),
                                             "--data", str(data), "--extractor",
                                             "deterministic", "--limit", "5"])
        assert result.exit_code == 0, result.output
        assert json.loads((tmp_path / "results.json").read_text())["episodes"] == 5
        refused = runner.invoke(capture_app, ["bench", "noise", "--out", str(tmp_path),
                                              "--split", "test"])
        assert refused.exit_code == 2
