"""The reader of authored text kept as data (`app/core/corpora.py`), and the corpora it reads:
every one parses, every record names its set, and every file ships as package data."""

from __future__ import annotations

import fnmatch
import os
import tomllib
from pathlib import Path

import pytest
import yaml

from app.core.corpora import (
    CorpusError,
    corpus_texts,
    load_records,
    select,
    strings,
    text,
    texts,
    thawed,
)

ROOT = Path(__file__).resolve().parents[2]
CORPORA = sorted(p for package in ("app", "workers", "bench")
                 for p in (ROOT / package).rglob("data/*.yaml"))


def write(path: Path, records: object) -> Path:
    path.write_text(yaml.safe_dump(records, allow_unicode=True), encoding="utf-8")
    return path


class TestReader:
    def test_a_record_of_another_set_is_refused_where_the_file_holds_one(
            self, tmp_path: Path) -> None:
        path = write(tmp_path / "mixed.yaml", [{"set": "sealed", "table": "topics", "texts": ["a"]},
                                              {"set": "train", "table": "topics", "texts": ["b"]}])
        assert len(load_records(path)) == 2
        with pytest.raises(CorpusError, match="expected 'sealed'"):
            load_records(path, "sealed")

    @pytest.mark.parametrize("data", [{"set": "sealed"}, ["a line"], [{"text": "no set"}],
                                      [{"set": "", "text": "an empty set"}]])
    def test_a_file_of_another_shape_is_refused(self, tmp_path: Path, data: object) -> None:
        with pytest.raises(CorpusError):
            load_records(write(tmp_path / "bad.yaml", data))

    def test_records_are_frozen_and_read_once_per_version(self, tmp_path: Path) -> None:
        path = write(tmp_path / "c.yaml", [{"set": "train", "texts": ["a", "b"],
                                            "by": {"k": ["v"]}}])
        first = load_records(path)
        assert load_records(path) is first
        record = first[0]
        assert texts(record) == ("a", "b")
        assert record["by"]["k"] == ("v",)
        with pytest.raises(TypeError):
            record["set"] = "dev"  # type: ignore[index]
        write(path, [{"set": "dev", "text": "c"}, {"set": "dev", "text": "d"}])
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        assert corpus_texts(path, "dev") == ("c", "d")

    def test_select_keeps_file_order_and_refuses_a_set_that_matches_nothing(
            self, tmp_path: Path) -> None:
        path = write(tmp_path / "t.yaml", [
            {"set": "train", "table": "frames", "text": "one"},
            {"set": "dev", "table": "frames", "text": "two"},
            {"set": "train", "table": "leads", "text": ""},
            {"set": "train", "table": "frames", "text": "three"},
        ])
        assert corpus_texts(path, "train", table="frames") == ("one", "three")
        assert strings(select(path, "train", table="leads"), allow_empty=True) == ("",)
        with pytest.raises(CorpusError):
            strings(select(path, "train", table="leads"))
        with pytest.raises(CorpusError, match="no record"):
            select(path, "trian", table="frames")

    def test_a_thawed_value_is_plain_data_apart_from_the_cache(self, tmp_path: Path) -> None:
        path = write(tmp_path / "s.yaml", [{"set": "dev", "schema": {"a": {"type": "string"}},
                                            "args": ["x"]}])
        (record,) = load_records(path)
        schema = thawed(record["schema"])
        assert schema == {"a": {"type": "string"}}
        assert type(schema["a"]) is dict
        assert thawed(record["args"]) == ["x"]
        schema["a"]["type"] = "number"
        assert record["schema"]["a"]["type"] == "string"

    def test_a_field_of_the_wrong_type_is_refused(self, tmp_path: Path) -> None:
        (record,) = load_records(write(tmp_path / "w.yaml", [{"set": "s", "text": 3,
                                                               "texts": []}]))
        with pytest.raises(CorpusError):
            text(record)
        with pytest.raises(CorpusError):
            texts(record)


class TestCorpora:
    def test_there_are_corpora_to_check(self) -> None:
        names = {p.relative_to(ROOT).as_posix() for p in CORPORA}
        assert {"workers/extraction/data/revision_frames.yaml",
                "bench/generator/data/wording.yaml", "bench/generator/data/sealed.yaml",
                "bench/generator/data/users.yaml", "bench/generator/data/typos.yaml",
                "bench/tools/data/texts.yaml", "bench/tools/data/world.yaml",
                "bench/tools/data/declared.yaml", "bench/reader/data/nearmiss.yaml"} <= names

    @pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.relative_to(ROOT).as_posix())
    def test_every_record_names_its_set(self, path: Path) -> None:
        records = load_records(path)
        assert records
        assert all(isinstance(r["set"], str) and r["set"] for r in records)

    @pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.relative_to(ROOT).as_posix())
    def test_ships_as_package_data(self, path: Path) -> None:
        """A non-editable install holds the file: its folder is a package that setuptools
        finds (namespace packages included) and a package-data pattern matches its name."""
        config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
        find = config["packages"]["find"]
        assert find.get("namespaces", True)
        package = ".".join(path.parent.relative_to(ROOT).parts)
        assert any(fnmatch.fnmatch(package, pattern) for pattern in find["include"])
        patterns = [p for key, found in config["package-data"].items()
                    if key in ("*", package) for p in found]
        assert any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)
