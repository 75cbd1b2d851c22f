"""Sink values: detect the kind of an argument value, normalize it, and find it in text.

A value is matched in a text by a pattern built from its normalized form that tolerates
the ways the same value is written (case, `www.`, spaces inside an IBAN, thousands
separators, punctuation between the words of a name), with boundaries so that `ann@x.io`
is not found inside `joann@x.io`. Values never leave this process: what is stored is
their kind and a SHA-256 of the normalized form.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import lru_cache
from typing import Any
from urllib.parse import unquote_plus, urlsplit

# Longest string value traced as a sink; longer strings are free text, not a value.
MAX_SINK_CHARS = 512
MAX_NAME_WORDS = 10
# At most this many atomic values per argument (a recipients list, say), and nesting this
# deep; a call with more is asked about (`too_many_values`), never silently cut.
MAX_VALUES_PER_ARG = 100
MAX_DEPTH = 6


class ValueKind(StrEnum):
    email = "email"
    url = "url"
    domain = "domain"
    iban = "iban"
    phone = "phone"
    amount = "amount"
    id = "id"
    name = "name"


_EMAIL = re.compile(r"^[A-Za-z0-9._%+\-']+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}$")
_EMAIL_IN_ANGLES = re.compile(r"<\s*([^<>\s]+@[^<>\s]+)\s*>")
_MAILTO = re.compile(r"^\s*mailto:", re.IGNORECASE)
_EMAIL_IN_TEXT = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(r"^(?:https?://|www\.)\S+$", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"(?:https?://|www\.)[^\s\"'<>)\]]+", re.IGNORECASE)
_DOMAIN = re.compile(r"^(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,}$", re.IGNORECASE)
_IBAN = re.compile(r"^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$")
_IBAN_IN_TEXT = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b")
_DATE = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
    r"|^\d{1,2}:\d{2}(?::\d{2})?$|^\d{1,2}[./]\d{1,2}[./]\d{2,4}$"
)
_AMOUNT = re.compile(
    r"^(?:[€$£]|EUR|USD|GBP|CHF)?\s?-?\d{1,3}(?:[,\s']?\d{3})*(?:\.\d+)?\s?(?:[€$£]|EUR|USD|GBP|CHF)?$"
    r"|^(?:[€$£]|EUR|USD|GBP|CHF)?\s?-?\d+(?:\.\d+)?\s?(?:[€$£]|EUR|USD|GBP|CHF)?$",
    re.IGNORECASE,
)
_PHONE = re.compile(r"^\+?[\d\s().\-]{7,24}$")
# A number written with a leading zero ("07700 900846", "0049 …") is a phone number or an
# id, not an amount: amounts are not written that way ("0.50" is).
_LEADING_ZERO = re.compile(r"^(?:[€$£]|EUR|USD|GBP|CHF)?\s?-?0\d", re.IGNORECASE)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-./:#]{1,127}$")
_WORD = re.compile(r"\w+", re.UNICODE)
# Two to six capitalized words (with small joiners) inside free text: hotel, company and
# person names an argument mentions.
_NAME_IN_TEXT = re.compile(
    r"\b[A-Z][\w'’\-]*(?:\s+(?:(?:of|the|de|da|do|del|la|le|van|von|and|&)\s+)?[A-Z][\w'’\-]*){1,5}"
)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ── what an attacker can vary: one canonical form for arguments and recorded text ──────
# Zero-width and invisible characters, removed before anything is matched.
INVISIBLE_CHARS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e"
        "\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\ufeff"
)
_INVISIBLE = dict.fromkeys(map(ord, INVISIBLE_CHARS), None)
# Non-Latin letters that look like Latin ones (Cyrillic, Greek, IPA), one character for
# one, so a skeleton keeps the offsets of the text it folds.
CONFUSABLES = {
    **dict(zip("аеорсухіјѕԁһӏԛԝɡѵ", "aeopcyxijsdhlqwgv", strict=True)),
    **dict(zip("АВЕКМНОРСТУХЅІЈ", "ABEKMHOPCTYXSIJ", strict=True)),
    **dict(zip("αορινκχυ", "aopivkxu", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
    **dict(zip("ıɑɩ\u2010\u2011\u2012\u2013\u2212", "iai-----", strict=True)),
}
_SKELETON = str.maketrans(CONFUSABLES)
# Percent-encoded characters that mean the same decoded (RFC 3986 unreserved, `@`, `:`).
_PERCENT = re.compile(
    r"%(4[0-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|2[DdEe]|3[0-9Aa]|5[Ff]|7[Ee])"
)


def canonical(text: str) -> str:
    """NFKC (fullwidth forms), no invisible characters, unreserved percent-escapes decoded.
    Applied the same way to argument values and to recorded text before matching."""
    if text.isascii():
        return _PERCENT.sub(_unescape, text) if "%" in text else text
    text = unicodedata.normalize("NFKC", text.translate(_INVISIBLE)).translate(_INVISIBLE)
    return _PERCENT.sub(_unescape, text) if "%" in text else text


def _unescape(m: re.Match[str]) -> str:
    return chr(int(m.group(1), 16))


def skeleton(text: str) -> str:
    """`text` with Latin lookalikes folded to Latin, character for character."""
    return text if text.isascii() else text.translate(_SKELETON)


def lookalikes(text: str) -> tuple[str, ...]:
    """The lookalike characters of `text`, in order (casefolded): a value found through its
    skeleton is the same value only where these agree."""
    if text.isascii():
        return ()
    return tuple(c for c in text.casefold() if c in CONFUSABLES)


def has_invisible(text: str) -> bool:
    return not text.isascii() and text.translate(_INVISIBLE) != text


def normalize_email(value: str) -> str | None:
    value = value.strip()
    inner = _EMAIL_IN_ANGLES.search(value)
    if inner:
        value = inner.group(1)
    value = _MAILTO.sub("", value).split("?", 1)[0].strip().strip(".,;\"'")
    return value.lower() if _EMAIL.match(value) else None


def normalize_iban(value: str) -> str | None:
    compact = re.sub(r"[\s\-]", "", value).upper()
    return compact if _IBAN.match(compact) else None


def normalize_domain(value: str) -> str | None:
    value = value.strip().lower().rstrip(".").removeprefix("www.")
    return value if _DOMAIN.match(value) else None


def normalize_url(value: str) -> tuple[str, str] | None:
    """(host/path[?query], host) of a URL, without scheme, `www.` or fragment."""
    value = value.strip()
    if not _URL.match(value):
        return None
    parts = urlsplit(value if "://" in value else f"http://{value}")
    host = (parts.hostname or "").lower().removeprefix("www.")
    if not host or not _DOMAIN.match(host):
        return None
    path = parts.path.rstrip("/")
    normalized = host + path + (f"?{parts.query}" if parts.query else "")
    return normalized, host


def url_carried(url: str) -> list[tuple[ValueKind, str]]:
    """Addresses a URL carries in its path, query or fragment, percent-decoded (twice, for a
    double-encoded one): e-mails, IBANs and URLs of another host. An allowlisted host does
    not vouch for where what it is handed goes next."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = (parts.hostname or "").lower().removeprefix("www.")
    carried = " ".join((parts.path, parts.query, parts.fragment))
    for _ in range(2):
        decoded = unquote_plus(carried)
        if decoded == carried:
            break
        carried = decoded
    text = skeleton(canonical(carried.replace("&", " ").replace(";", " ")))
    out = [(kind, normalized) for kind, normalized, host_of, _ in addresses_in(text)
           if normalized and host_of != host]
    return list(dict.fromkeys(out))


def addresses_in(text: str) -> Iterator[tuple[ValueKind, str | None, str | None, re.Match[str]]]:
    """The e-mails, URLs and IBANs in folded `text`: each one's kind, normalized form (None
    where it does not normalize), host (URLs only) and match."""
    for m in _EMAIL_IN_TEXT.finditer(text):
        yield ValueKind.email, normalize_email(m.group(0)), None, m
    for m in _URL_IN_TEXT.finditer(text):
        url = normalize_url(m.group(0).rstrip(".,;:!?"))
        yield ValueKind.url, url[0] if url else None, url[1] if url else None, m
    for m in _IBAN_IN_TEXT.finditer(text):
        yield ValueKind.iban, normalize_iban(m.group(0)), None, m


def normalize_amount(value: str | int | float) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        text = repr(value)
    else:
        text = value.strip()
        if not _AMOUNT.match(text) or _LEADING_ZERO.match(text):
            return None
        text = re.sub(r"[€$£\s',]|EUR|USD|GBP|CHF", "", text, flags=re.IGNORECASE)
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    normalized = format(number.normalize(), "f")
    return normalized.rstrip("0").rstrip(".") if "." in normalized else normalized


def normalize_phone(value: str) -> str | None:
    if not _PHONE.match(value.strip()):
        return None
    digits = re.sub(r"\D", "", value)
    return digits if 7 <= len(digits) <= 15 else None


def normalize_name(value: str) -> str | None:
    words = _WORD.findall(value.casefold())
    if not words or len(words) > MAX_NAME_WORDS or not any(w.isalpha() for w in words):
        return None
    return " ".join(words)


def domain_of(kind: ValueKind, normalized: str) -> str | None:
    if kind == ValueKind.email:
        return normalized.rsplit("@", 1)[1]
    if kind == ValueKind.url:
        return normalized.split("/", 1)[0].split("?", 1)[0]
    if kind == ValueKind.domain:
        return normalized
    return None


def domain_covered(domain: str, allowed: str) -> bool:
    """`mail.acme.com` is covered by `acme.com`; `notacme.com` is not."""
    return domain == allowed or domain.endswith("." + allowed)


@dataclass(frozen=True, slots=True)
class TextView:
    """A recorded text as it is matched: its canonical form (what its labels' offsets refer
    to) and that form's skeleton (same offsets)."""

    canonical: str
    skeleton: str


def view(text: str) -> TextView:
    folded = canonical(text)
    return TextView(folded, skeleton(folded))


@dataclass(frozen=True, slots=True)
class SinkValue:
    """One atomic value of one argument, normalized (its skeleton: lookalikes folded)."""

    arg: str
    kind: ValueKind
    normalized: str
    # True for an entity found inside a content argument (a name in an e-mail body).
    from_content: bool = False
    # The lookalike characters the value was written with (casefolded, in order), and
    # whether it held invisible characters: such a value is only the same as a recorded
    # one written with the same lookalikes, and never one the allowlist covers.
    marks: tuple[str, ...] = ()
    hidden: bool = False

    @property
    def lookalike(self) -> bool:
        return bool(self.marks) or self.hidden

    @property
    def value_sha256(self) -> str:
        marked = f":{''.join(self.marks)}" if self.marks else ""
        return sha256(f"{self.kind.value}:{self.normalized}{marked}")

    @property
    def domain(self) -> str | None:
        return domain_of(self.kind, self.normalized)

    def find(self, text: str) -> list[tuple[int, int]]:
        """Where the value occurs in `text` (offsets in its canonical form), lookalikes
        folded."""
        return [(s, e) for s, e, _ in self.locate(view(text))]

    def locate(self, text: TextView) -> list[tuple[int, int, bool]]:
        """Where the value occurs in a text's skeleton, each with whether it is written
        there exactly as in the argument (the same lookalikes, no invisible characters)."""
        out = []
        for m in matcher(self.kind, self.normalized).finditer(text.skeleton):
            start, end = m.span()
            exact = not self.hidden and lookalikes(text.canonical[start:end]) == self.marks
            out.append((start, end, exact))
        return out

    @property
    def needle(self) -> str:
        """A literal every occurrence contains: the SQL prefilter (ILIKE) of the ledger search."""
        return needle(self.kind, self.normalized)


def detect(
    value: str | int | float, hint: ValueKind | str = "auto"
) -> tuple[ValueKind, str] | None:
    """The kind and normalized form of an atomic argument value, or None when it is not a
    traceable value (empty, a date or time, a boolean, an unfilled template, free text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if hint in (ValueKind.id, ValueKind.phone):
            return ValueKind.id, str(value)
        amount = normalize_amount(value)
        return (ValueKind.amount, amount) if amount is not None else None
    text = skeleton(canonical(value)).strip()
    if not text or len(text) > MAX_SINK_CHARS:
        return None
    email = normalize_email(text)
    if email:
        return ValueKind.email, email
    url = normalize_url(text)
    if url:
        return ValueKind.url, url[0]
    iban = normalize_iban(text)
    if iban:
        return ValueKind.iban, iban
    if _DATE.match(text):
        return None
    if hint != ValueKind.phone:
        amount = normalize_amount(text)
        if amount is not None:
            return (
                (ValueKind.id, text.casefold())
                if hint == ValueKind.id
                else (
                    ValueKind.amount,
                    amount,
                )
            )
    phone = normalize_phone(text)
    if phone:
        return ValueKind.phone, phone
    domain = normalize_domain(text)
    if domain and hint in ("auto", ValueKind.domain, ValueKind.url, ValueKind.email):
        return ValueKind.domain, domain
    if hint == ValueKind.id or (
        hint == "auto" and _ID.match(text) and any(c.isdigit() for c in text)
    ):
        return ValueKind.id, text.casefold()
    name = normalize_name(text)
    if name:
        return ValueKind.name, name
    return None


def _atoms(value: Any) -> tuple[list[str | int | float], bool]:
    """The scalar leaves of an argument value, and whether some were nested too deep."""
    out: list[str | int | float] = []
    too_deep = False

    def walk(item: Any, depth: int) -> None:
        nonlocal too_deep
        if isinstance(item, str | int | float) and not isinstance(item, bool):
            out.append(item)
        elif isinstance(item, list | tuple | dict):
            if depth >= MAX_DEPTH:
                too_deep = True
                return
            for child in item.values() if isinstance(item, dict) else item:
                walk(child, depth + 1)

    walk(value, 0)
    return out, too_deep


def _opaque(value: str | int | float) -> tuple[ValueKind, str] | None:
    """Free text in a sink argument: traced whole as an opaque id (it goes out unchecked
    otherwise); blanks and dates are not values."""
    if not isinstance(value, str):
        return None
    text = skeleton(canonical(value)).strip()
    if not text or _DATE.match(text):
        return None
    return ValueKind.id, text.casefold()[:MAX_SINK_CHARS]


_LIST_SPLIT = re.compile(r',(?=(?:[^"]*"[^"]*")*[^"]*$)')


def _marks(part: str, kind: ValueKind) -> tuple[str, ...]:
    """The lookalikes of the value itself (an address, not the display name around it)."""
    if part.isascii():
        return ()
    if kind == ValueKind.email:
        inner = _EMAIL_IN_ANGLES.search(part)
        if inner:
            part = inner.group(1)
    return lookalikes(part)


def sink_values(
    arg: str, value: Any, hint: ValueKind | str = "auto"
) -> tuple[list[SinkValue], bool]:
    """The atomic values of one sink argument (a list of recipients is several), and whether
    there were more than are traced."""
    atoms, truncated = _atoms(value)
    out: list[SinkValue] = []
    seen: set[tuple[ValueKind, str, tuple[str, ...], bool]] = set()

    def add(kind: ValueKind, normalized: str, marks: tuple[str, ...], hidden: bool) -> None:
        key = (kind, normalized, marks, hidden)
        if key not in seen:
            seen.add(key)
            out.append(
                SinkValue(arg=arg, kind=kind, normalized=normalized, marks=marks, hidden=hidden)
            )

    for atom in atoms:
        hidden = isinstance(atom, str) and has_invisible(atom)
        if isinstance(atom, str):
            atom = canonical(atom)
        # A list of addresses splits at its commas; an amount's thousands ("1,260.50 EUR")
        # do not.
        if (
            isinstance(atom, str)
            and hint in (ValueKind.email, "auto")
            and "," in atom
            and normalize_amount(atom) is None
        ):
            parts: list[str | int | float] = [p for p in _LIST_SPLIT.split(atom) if p.strip()]
        else:
            parts = [atom]
        for part in parts:
            found = detect(part, hint)
            if found is None:
                found = _opaque(part)
                if found is None:
                    continue
                # Addresses inside free text in a sink are sink values of their own.
                entities, _ = content_entities(arg, part)
                for entity in entities:
                    if entity.kind != ValueKind.name:
                        add(entity.kind, entity.normalized, entity.marks, hidden)
            marks = _marks(part, found[0]) if isinstance(part, str) else ()
            add(found[0], found[1], marks, hidden)
            if found[0] == ValueKind.url and isinstance(part, str):
                for kind, normalized in url_carried(skeleton(part.strip())):
                    add(kind, normalized, (), hidden)
            if len(out) > MAX_VALUES_PER_ARG:
                return out[:MAX_VALUES_PER_ARG], True
    return out, truncated


def content_entities(arg: str, value: Any) -> tuple[list[SinkValue], bool]:
    """Addresses, URLs, IBANs and capitalized multi-word names inside a free-text argument,
    and whether there were more than are traced."""
    atoms, truncated = _atoms(value)
    out: list[SinkValue] = []
    seen: set[tuple[ValueKind, str, tuple[str, ...]]] = set()

    def add(
        kind: ValueKind, normalized: str | None, marks: tuple[str, ...], hidden: bool
    ) -> None:
        nonlocal truncated
        if normalized and (kind, normalized, marks) not in seen:
            if len(out) >= MAX_VALUES_PER_ARG:
                truncated = True
                return
            seen.add((kind, normalized, marks))
            out.append(
                SinkValue(
                    arg=arg,
                    kind=kind,
                    normalized=normalized,
                    from_content=True,
                    marks=marks,
                    hidden=hidden,
                )
            )

    for atom in atoms:
        if not isinstance(atom, str):
            continue
        hidden = has_invisible(atom)
        folded = canonical(atom)
        text = skeleton(folded)
        rest = text
        for kind, normalized, _, m in addresses_in(text):
            add(kind, normalized, _marks_at(folded, m), hidden)
            rest = _blank(rest, m.span())
        # Names in what is left, so an IBAN's letters are not read as a name.
        for m in _NAME_IN_TEXT.finditer(rest):
            add(ValueKind.name, normalize_name(m.group(0)), _marks_at(folded, m), hidden)
    return out, truncated


def _marks_at(folded: str, m: re.Match[str]) -> tuple[str, ...]:
    return lookalikes(folded[m.start() : m.end()])


def _blank(text: str, span: tuple[int, int]) -> str:
    start, end = span
    return text[:start] + " . " + " " * max(0, end - start - 3) + text[end:]


# ── matching ───────────────────────────────────────────────────────────────────────


@lru_cache(maxsize=4096)
def matcher(kind: ValueKind, normalized: str) -> re.Pattern[str]:
    """A pattern that finds the value in text however it is written."""
    if kind == ValueKind.email:
        body = re.escape(normalized)
        return re.compile(rf"(?<![\w.+%'\-]){body}(?![\w\-]|\.[A-Za-z0-9])", re.IGNORECASE)
    if kind == ValueKind.domain:
        return re.compile(
            rf"(?<![\w\-]){re.escape(normalized)}(?![\w\-]|\.[A-Za-z0-9])", re.IGNORECASE
        )
    if kind == ValueKind.url:
        base, _, query = normalized.partition("?")
        tail = re.escape(base) + "/?" + (r"\?" + re.escape(query) if query else "")
        return re.compile(
            rf"(?<![\w.\-/@])(?:https?://)?(?:www\.)?{tail}(?![\w/?&=%#\-]|\.[A-Za-z0-9])",
            re.IGNORECASE,
        )
    if kind == ValueKind.iban:
        body = r"[\s\-.]{0,2}".join(re.escape(c) for c in normalized)
        return re.compile(rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])", re.IGNORECASE)
    if kind == ValueKind.phone:
        forms = [normalized, *_national_forms(normalized)]
        body = "|".join(r"[\s().\-]*".join(form) for form in forms)
        return re.compile(rf"(?<!\d)(?:{body})(?!\d)")
    if kind == ValueKind.amount:
        return re.compile(_amount_pattern(normalized))
    if kind == ValueKind.id:
        digits = re.sub(r"[\s\-./]", "", normalized)
        if digits.isdigit() and len(digits) >= LONG_NUMBER_DIGITS - 1:
            # A sort code or reference of digits: grouped the way the writer likes.
            body = r"[\s\-./]?".join(digits)
            return re.compile(rf"(?<![\w\-]){body}(?![\w\-])")
        return re.compile(rf"(?<![\w\-]){re.escape(normalized)}(?![\w\-])", re.IGNORECASE)
    words = normalized.split(" ")
    body = r"[\W_]+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


# Country codes whose numbers are written at home with a trunk prefix in place of the code
# ("+44 117 496 0341" is "0117 496 0341"), with the national number's length where it is
# fixed; NANP numbers drop the "1".
_TRUNK: dict[str, tuple[str, int | None]] = {
    "1": ("", 10), "44": ("0", 10), "33": ("0", 9), "49": ("0", None), "31": ("0", 9),
    "32": ("0", None), "41": ("0", 9), "43": ("0", None), "46": ("0", None), "61": ("0", 9),
    "64": ("0", None), "353": ("0", None), "27": ("0", 9),
}
_MIN_NATIONAL_DIGITS = 8


def _national_forms(digits: str) -> list[str]:
    """How an international number (digits after "+" or "00") is written inside its own
    country, and how a national one with a trunk zero is written from abroad."""
    out = [
        code + digits[1:]
        for code, (trunk, length) in _TRUNK.items()
        if trunk == "0"
        and digits.startswith("0")
        and not digits.startswith("00")
        and len(digits) - 1 >= _MIN_NATIONAL_DIGITS
        and (length is None or len(digits) - 1 == length)
    ]
    for international in (digits, digits[2:] if digits.startswith("00") else ""):
        for code, (trunk, length) in _TRUNK.items():
            rest = international[len(code):]
            if (
                international.startswith(code)
                and len(rest) >= _MIN_NATIONAL_DIGITS
                and (length is None or len(rest) == length)
            ):
                out.append(trunk + rest)
    return out


def _amount_pattern(normalized: str) -> str:
    """An amount as people write it: grouped with commas, spaces or apostrophes and a
    decimal point ("1,260.50"), grouped with points and a decimal comma ("1.260,50"), in
    thousands with a "k" ("1.2k", "1,2k"), in English words ("seven hundred and twenty"),
    and a long whole number (an account number) grouped any way ("7001 2345")."""
    sign = "-" if normalized.startswith("-") else ""
    integer, _, fraction = normalized.lstrip("-").partition(".")
    groups = []
    head = len(integer) % 3 or 3
    groups.append(integer[:head])
    groups.extend(integer[i : i + 3] for i in range(head, len(integer), 3))
    point = r"[,\s'’]?".join(re.escape(g) for g in groups)
    point += rf"\.{re.escape(fraction)}0*" if fraction else r"(?:\.0+)?"
    comma = r"[.\s'’]?".join(re.escape(g) for g in groups)
    comma += rf",{re.escape(fraction)}0*" if fraction else r"(?:,0+)?"
    forms = [point, comma]
    thousands = Decimal(normalized.lstrip("-")) / 1000
    if thousands >= 1 and thousands == round(thousands, 2):
        short = format(thousands.normalize(), "f")
        forms.append(r"[.,]".join(re.escape(p) for p in short.split(".")) + r"\s?[kK]")
    if not fraction and len(integer) >= LONG_NUMBER_DIGITS:
        forms.append(r"[\s\-.]?".join(integer))
    numeric = rf"(?<![\d.,]){re.escape(sign)}(?:{'|'.join(forms)})(?![\d]|[.,]\d)"
    spoken = _spoken_number(int(integer)) if not fraction and not sign else None
    return f"{numeric}|(?i:{_NOT_AFTER_NUMBER}{spoken}{_NOT_BEFORE_NUMBER})" if spoken else numeric


# A whole number of this many digits or more is an account or reference number as often as
# an amount: its digits match grouped any way.
LONG_NUMBER_DIGITS = 6
_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SPOKEN_BELOW = 1_000_000
_NUMBER_WORD = "|".join([*_UNITS, *_TENS[2:], "hundred", "thousand", "million", "billion"])
# Words of a larger number around it: "seven hundred and twenty" is not 720 inside "two
# thousand seven hundred and twenty thousand".
_NOT_AFTER_NUMBER = (
    r"(?<![\w-])(?<!hundred )(?<!thousand )(?<!hundred and )(?<!thousand and )(?<!ty-)(?<!ty )"
)
_NOT_BEFORE_NUMBER = rf"(?![\w-]|[\s\-]+(?:and[\s\-]+)?(?:{_NUMBER_WORD})\b)"


def _number_words(n: int) -> list[str]:
    if n < 20:
        return [_UNITS[n]]
    if n < 100:
        return [_TENS[n // 10]] + ([_UNITS[n % 10]] if n % 10 else [])
    if n < 1000:
        return [_UNITS[n // 100], "hundred"] + (_number_words(n % 100) if n % 100 else [])
    return _number_words(n // 1000) + ["thousand"] + (
        _number_words(n % 1000) if n % 1000 else []
    )


def _spoken_number(n: int) -> str | None:
    """A pattern of `n` in English words ("two thousand and fifty", "ninety-five", "a
    hundred"), or None outside 1 to 999,999."""
    if not 0 < n < _SPOKEN_BELOW:
        return None
    words = _number_words(n)
    joint = r"(?:[\s\-]+(?:and[\s\-]+)?)"
    first = "(?:one|a)" if words[0] == "one" and len(words) > 1 else re.escape(words[0])
    return joint.join([first, *(re.escape(w) for w in words[1:])])


def needle(kind: ValueKind, normalized: str) -> str:
    if kind in (ValueKind.email, ValueKind.domain, ValueKind.id):
        return normalized
    if kind == ValueKind.url:
        return normalized.split("/", 1)[0].split("?", 1)[0]
    if kind == ValueKind.iban:
        return normalized[:4]
    if kind == ValueKind.phone:
        return normalized[-4:]
    if kind == ValueKind.amount:
        integer = normalized.lstrip("-").partition(".")[0]
        return integer[-3:]
    return max(normalized.split(" "), key=len)
