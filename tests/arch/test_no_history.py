"""The code and docs describe what is, not how it came to be: no comment, docstring, name,
help text or doc under app/ workers/ bench/ tests/ docs/ or README.md names a round of work
("session 20", "the twenty-second session", `TWENTY_SECOND_SESSION_FRAMES`, "issue 4") or
narrates a change ("was X, now Y", "previously"). That story belongs in commit messages."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("app", "workers", "bench", "tests", "docs", "README.md")
SUFFIXES = frozenset({".py", ".md", ".yaml", ".yml", ".toml", ".txt"})

_ORDINAL = (r"(?:fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[a-z]+teenth"
            r"|twentieth|twenty[- ]?[a-z]+|thirtieth|thirty[- ]?[a-z]+)")
# Anywhere in a file, string literals included: nothing but a round of work reads like these.
STRICT = (
    re.compile(r"\b(?:sessions?|rounds?|issues?) #?\d+\b", re.IGNORECASE),
    re.compile(rf"\b{_ORDINAL}[- ](?:sessions?|rounds?|helpers?)\b", re.IGNORECASE),
    re.compile(r"\b(?:before|since|after|until) (?:the )?(?:session|round)\b", re.IGNORECASE),
    # Constants named by an ordinal: a set gets a neutral name (`BLIND3_FRAMES`).
    re.compile(r"\b(?:FIRST|SECOND|THIRD|FOURTH|FIFTH|SIXTH|SEVENTH|EIGHTH|NINTH|TENTH"
               r"|ELEVENTH|TWELFTH|[A-Z]+TEENTH|TWENTIETH|TWENTY|THIRTY)_[A-Z0-9_]+\b"),
)
# In prose only (comments, docstrings, Markdown): training text may say "I previously asked".
PROSE = (
    re.compile(r"\b(?:previously|formerly|originally)\b", re.IGNORECASE),
    re.compile(r"\bwas\b(?:[^.;:!?\n]|\.(?=\d)){1,60}[,;] now\b", re.IGNORECASE),
    re.compile(r"\(was [^)]{1,40}\)", re.IGNORECASE),
    re.compile(r"\b(?:earlier|previous|older|old) (?:recipe|version)s?\b", re.IGNORECASE),
)
# Legitimate words the patterns also match.
ALLOWED = frozenset({
    "SECOND_LOOK_MIN_WRITE",  # the gate's second look at an untrusted channel
    "FIRST_NAMES",  # the tool world's given names
})


def _files() -> Iterator[Path]:
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for found in sorted(path.rglob("*")):
            if found.suffix in SUFFIXES and found.is_file() and "__pycache__" not in found.parts:
                yield found


def _python_prose(source: str) -> list[str]:
    """The comments and docstrings of a Python module."""
    prose = [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                prose.append(docstring)
    return prose


def _prose(path: Path, text: str) -> list[str]:
    if path.suffix == ".py":
        return _python_prose(text)
    if path.suffix == ".md":
        return [text]
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def history_hits(path: Path, text: str) -> list[str]:
    """The phrases of `text` (the contents of `path`) that name a round of work or narrate a
    change, less the allowed ones."""
    hits = [m.group(0) for pattern in STRICT for m in pattern.finditer(text)]
    hits += [m.group(0) for block in _prose(path, text) for pattern in PROSE
             for m in pattern.finditer(block)]
    return [hit for hit in hits if hit not in ALLOWED]


def test_nothing_names_a_round_of_work_or_narrates_a_change() -> None:
    this = Path(__file__).resolve()
    offenders = {
        str(path.relative_to(ROOT)): hits
        for path in _files()
        if path.resolve() != this and (hits := history_hits(path, path.read_text()))
    }
    assert offenders == {}


def test_the_check_sees_each_kind_of_history(tmp_path: Path) -> None:
    module = tmp_path / "frames.py"
    source = (
        '"""Frames written in the twenty-second session."""\n'
        "# The recipe before session 20; the threshold was 0.5, now 0.1 (issue 4).\n"
        "TWENTY_SECOND_SESSION_FRAMES = ('I previously asked for {old}.',)\n"
        "SECOND_LOOK_MIN_WRITE = 0.05  # previously unset\n"
    )
    assert sorted(history_hits(module, source)) == sorted([
        "twenty-second session", "session 20", "issue 4", "before session",
        "TWENTY_SECOND_SESSION_FRAMES", "was 0.5, now", "previously",
    ])


def test_the_check_leaves_ordinary_words_alone(tmp_path: Path) -> None:
    module = tmp_path / "ledger.py"
    source = (
        '"""A repeat adds evidence, not a second node; the first session holds no preference."""\n'
        "# What was held at `as_of`, as recorded by now; every fourth frame is held out.\n"
        "TEMPLATES = ('Was {old}. Now {new}.', 'I previously asked for {old}.')\n"
        "FIRST_NAMES = ('Ana',)\n"
    )
    assert history_hits(module, source) == []
