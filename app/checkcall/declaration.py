"""A tool's own declaration in the MCP `Tool` shape (name, description, `inputSchema`,
`annotations`), read into the ToolSpec check-call decides with when the operator's policy
does not name the tool; read with the policy's spec where the policy names it only by a
pattern (`over_pattern`: the stricter of the two), or names it as a read (`over_read_entry`:
its destination arguments are traced).

The side effect comes from the annotations where they give one (`readOnlyHint`: read;
`openWorldHint`: external send; otherwise write). Without them it is inferred from the
tool's name, then its description, conservatively: only a clear read verb (get, list,
search, read, find, check, ...) makes a tool read-only; a side-effecting verb, or no verb
at all, makes it side-effecting. A read-verb tool that declares where it delivers
(deliver_to, recipients, cc, webhook, callback_url; without a read-only hint also any
e-mail, party or account argument) is not a pure read: it is an external send whose
destination arguments are traced. So is one whose declaration says so in words: an
argument described as receiving the output ("who receives the export"), or a tool
description that says the tool sends its output on ("… and e-mails it to the owner"),
which makes its party arguments destinations. Sinks come from the input schema: formats
`email`/`uri`, and property names and descriptions of recipients, addresses, accounts,
IBANs, amounts, URLs and phone numbers. Content arguments from names like body, subject,
message, text, title, description. Every other argument is traced as an unlisted argument
(an `auto` sink, `service.unlisted_sink`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.checkcall.policy import Risk, SideEffect, Sink, ToolSource, ToolSpec
from app.core.inputs import SAFE_TEXT_PATTERN, STORABLE_JSON_REF, SafeStr, storable_json
from app.text.normalize import ValueKind

TOOL_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.:\-]{0,127}$"
# A declaration is read on every check of its tool: bounded like the call itself.
MAX_SCHEMA_BYTES = 32 * 1024
MAX_PROPERTIES = 128
MAX_DESCRIPTION = 4096


class ToolAnnotations(BaseModel):
    """MCP tool annotations: hints, as the tool's server states them."""

    model_config = ConfigDict(extra="ignore")

    title: SafeStr | None = Field(default=None, max_length=256)
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


class ToolDeclaration(BaseModel):
    """A tool as an MCP server lists it (`tools/list`). Fields of the MCP `Tool` this
    service does not read (`outputSchema`, `icons`, `_meta`) are accepted and ignored."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            "examples": [
                {
                    "name": "post_invoice_reminder",
                    "description": "Sends a payment reminder for an invoice to a customer.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "customer_email": {"type": "string", "format": "email"},
                            "invoice_id": {"type": "string"},
                            "message": {"type": "string"},
                        },
                        "required": ["customer_email", "invoice_id"],
                    },
                    "annotations": {"readOnlyHint": False, "openWorldHint": True},
                }
            ]
        },
    )

    name: str = Field(pattern=TOOL_NAME)
    title: SafeStr | None = Field(default=None, max_length=256)
    description: SafeStr | None = Field(default=None, max_length=MAX_DESCRIPTION)
    inputSchema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object"},
        description="The tool's JSON Schema for its arguments (an object schema).",
        json_schema_extra={
            "propertyNames": {"pattern": SAFE_TEXT_PATTERN},
            "additionalProperties": {"$ref": STORABLE_JSON_REF},
            "properties": {"properties": {
                "type": "object", "maxProperties": MAX_PROPERTIES,
                "propertyNames": {"pattern": SAFE_TEXT_PATTERN},
                "additionalProperties": {"$ref": STORABLE_JSON_REF},
            }},
        },
    )
    annotations: ToolAnnotations | None = None

    @field_validator("inputSchema")
    @classmethod
    def _bounded_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        storable_json(value)
        if len(json.dumps(value, default=str)) > MAX_SCHEMA_BYTES:
            raise ValueError(f"inputSchema is larger than {MAX_SCHEMA_BYTES} bytes")
        properties = value.get("properties")
        if properties is not None and not isinstance(properties, dict):
            raise ValueError("inputSchema.properties must be an object")
        if properties is not None and len(properties) > MAX_PROPERTIES:
            raise ValueError(f"at most {MAX_PROPERTIES} properties")
        return value

    def canonical(self) -> str:
        """The fields classification reads, as one canonical JSON string."""
        return json.dumps(
            self.model_dump(mode="json", exclude_none=True), sort_keys=True, default=str
        )


# ── verbs ─────────────────────────────────────────────────────────────────────────
# Clear read verbs: the only words that make a tool read-only without annotations.
READ_VERBS = frozenset({
    "get", "list", "search", "read", "find", "check", "lookup", "query", "view", "show",
    "describe", "count", "browse", "inspect", "preview", "retrieve", "look",
})
# Data, money or a message leaves the user.
SEND_VERBS = frozenset({
    "send", "email", "mail", "message", "msg", "sms", "text", "post", "publish", "tweet",
    "share", "forward", "reply", "respond", "invite", "notify", "pay", "transfer", "wire",
    "refund", "charge", "purchase", "buy", "order", "book", "reserve", "rent", "hire",
    "submit", "upload", "export", "call", "dial", "broadcast", "announce", "transmit",
    "deliver", "donate", "tip", "sell", "checkout", "request", "schedule", "sync",
    "push", "webhook", "subscribe", "unsubscribe", "comment", "dm", "ping", "escalate",
})
# The user's own data changes.
WRITE_VERBS = frozenset({
    "create", "add", "update", "edit", "modify", "set", "change", "delete", "remove",
    "erase", "purge", "clear", "cancel", "archive", "rename", "move", "copy", "append",
    "write", "save", "store", "insert", "upsert", "put", "patch", "enable", "disable",
    "reset", "revoke", "grant", "approve", "reject", "decline", "accept", "join", "leave",
    "kick", "ban", "mute", "block", "unblock", "lock", "unlock", "install", "uninstall",
    "deploy", "run", "execute", "exec", "start", "stop", "restart", "kill", "close", "mark",
    "tag", "label", "assign", "unassign", "reschedule", "rate", "like", "follow",
    "unfollow", "star", "pin", "restore", "import", "merge", "commit", "register",
    "login", "logout", "activate", "deactivate", "toggle", "configure", "apply", "drop",
    "empty", "destroy", "terminate", "suspend", "upgrade",
    "downgrade", "exit", "quit", "confirm", "verify", "attach", "detach", "link", "unlink",
    "draft", "record", "log", "fill", "replace", "sign", "generate",
})
# Words that are nouns as often as verbs ("get_message", "list_orders"): they decide only
# at the head or the tail of a name, never from its middle.
NOUN_LIKE = frozenset({
    "email", "mail", "message", "msg", "sms", "text", "post", "order", "book", "call",
    "comment", "tag", "label", "rate", "like", "star", "pin", "record", "log", "link",
    "draft", "charge", "transfer", "request", "schedule", "reply", "export", "import",
    "store", "set", "copy", "block", "lock", "mark", "sync", "push", "webhook", "tip",
    "check",
})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")
_LEADING_FILLER = frozenset({"this", "the", "tool", "function", "will", "can", "to", "it",
                             "a", "an", "used", "use", "for", "please", "you", "we"})


def words(text: str) -> list[str]:
    """Lowercase words of a name or text: snake, kebab, dotted and camel case split."""
    return [w for w in _SPLIT.split(_CAMEL.sub("_", text).lower()) if w]


def _base(word: str) -> str:
    """A verb's base form from its third person or participle ("sends", "creates",
    "reserved", "replies")."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"),
                                ("xes", "x"), ("es", "e"), ("s", ""), ("ed", ""), ("ed", "e"),
                                ("ing", ""), ("ing", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            candidate = word[: len(word) - len(suffix)] + replacement
            if candidate in READ_VERBS or candidate in SEND_VERBS or candidate in WRITE_VERBS:
                return candidate
    return word


Verb = Literal["read", "send", "write"]


def verb_class(word: str) -> Verb | None:
    base = _base(word)
    if base in SEND_VERBS:
        return "send"
    if base in WRITE_VERBS:
        return "write"
    if base in READ_VERBS:
        return "read"
    return None


def name_effect(name: str) -> Verb | None:
    """What a tool's name says it does: its head word, else its tail word, else any
    unambiguous verb inside it. A read head with a side-effecting verb inside
    ("get_or_create_user", "search_and_delete") is side-effecting."""
    parts = words(name)
    if not parts:
        return None
    head = verb_class(parts[0])
    inner = [verb_class(w) for w in parts[1:] if _base(w) not in NOUN_LIKE]
    if head == "read":
        if "send" in inner:
            return "send"
        if "write" in inner:
            return "write"
        return "read"
    if head is not None:
        return head
    tail = verb_class(parts[-1]) if len(parts) > 1 else None
    if tail is not None:
        return tail
    for found in inner:
        if found is not None:
            return found
    return None


def description_effect(description: str | None) -> Verb | None:
    """The verb a description opens with ("Sends an email …", "Returns the …")."""
    if not description:
        return None
    first_sentence = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0]
    for word in words(first_sentence)[:6]:
        if word in _LEADING_FILLER:
            continue
        if word in ("return", "returns", "fetch", "fetches", "gets", "lists"):
            return "read"
        found = verb_class(word)
        if found is not None:
            return found
        return None
    return None


# ── arguments ─────────────────────────────────────────────────────────────────────
_EMAIL_FORMATS = frozenset({"email", "idn-email"})
_URL_FORMATS = frozenset({"uri", "iri", "uri-reference", "iri-reference", "url"})
# Property-name words that name where something goes (a party).
_RECIPIENT_WORDS = frozenset({
    "recipient", "recipients", "to", "cc", "bcc", "destination", "dest", "target",
    "payee", "beneficiary", "receiver", "receivers", "addressee", "attendee", "attendees",
    "participant", "participants", "invitee", "invitees", "guest", "guests", "member",
    "members", "user", "users", "username", "channel", "contact", "contacts", "assignee",
    "share", "with", "email", "emails", "mail", "address", "addresses", "handle", "owner",
    "reviewer", "reviewers", "creditor", "counterparty",
})
_URL_WORDS = frozenset({"url", "uri", "link", "href", "endpoint", "webhook", "website",
                        "callback", "site", "domain"})
_ACCOUNT_WORDS = frozenset({"iban", "account", "bic", "swift", "routing", "wallet", "card"})
_AMOUNT_WORDS = frozenset({"amount", "price", "sum", "total", "fee", "payment", "cost"})
_PHONE_WORDS = frozenset({"phone", "mobile", "tel", "telephone", "cell", "whatsapp", "fax"})
_CONTENT_WORDS = frozenset({
    "body", "subject", "message", "content", "contents", "text", "title", "description",
    "note", "notes", "comment", "comments", "summary", "caption", "memo", "reason",
    "details", "html", "markdown", "attachments", "attachment", "bio", "status", "topic",
    "greeting", "signature", "headline", "excerpt", "review", "feedback", "answer",
    "reference", "remarks",
})
_ID_WORDS = frozenset({"id", "ids", "uuid", "key", "number", "no", "num", "code", "index"})
_DESCRIPTION_CUES: tuple[tuple[re.Pattern[str], ValueKind | Literal["auto"], str], ...] = (
    (re.compile(r"\be-?mail address|\bemail\b", re.I), ValueKind.email, "party"),
    (re.compile(r"\bIBAN\b|\baccount number|\bbank account", re.I), "auto", "account"),
    (re.compile(r"\bphone number|\bmobile number|\btelephone", re.I), ValueKind.phone, "party"),
    (re.compile(r"\bURL\b|\bURI\b|\bweb ?site\b|\bweb address|\blink\b|\bendpoint", re.I),
     ValueKind.url, "url"),
    (re.compile(r"\brecipients?\b|\bsend (?:it )?to\b|\bpayee\b|\bbeneficiar", re.I), "auto",
     "party"),
    (re.compile(r"\bamount\b|\bhow much\b|\bsum of money", re.I), ValueKind.amount, "amount"),
)


def _items(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a property's values (its items, for an array)."""
    items = schema.get("items")
    return items if isinstance(items, dict) else schema


def argument_sink(
    prop: str, schema: dict[str, Any], effect: SideEffect
) -> Sink | Literal["content"] | None:
    """The sink a property's schema declares, "content" for free text, None when neither
    (the argument is traced as an unlisted one)."""
    schema = schema if isinstance(schema, dict) else {}
    values = _items(schema)
    fmt = str(values.get("format") or schema.get("format") or "").lower()
    parts = words(prop)
    described = " ".join(
        str(s) for s in (schema.get("description"), values.get("description"), schema.get("title"))
        if s
    )
    external_default = effect == SideEffect.external_send
    if fmt in _EMAIL_FORMATS:
        return Sink(kind=ValueKind.email, risk=Risk.high, external=True)
    if fmt in _URL_FORMATS or any(w in _URL_WORDS for w in parts):
        return Sink(kind=ValueKind.url, risk=Risk.high, external=True)
    if any(w in _ACCOUNT_WORDS for w in parts):
        return Sink(kind="auto", risk=Risk.high, external=True)
    if any(w in _PHONE_WORDS for w in parts):
        return Sink(kind=ValueKind.phone, risk=Risk.high, external=True)
    if any(w in _AMOUNT_WORDS for w in parts):
        return Sink(kind=ValueKind.amount, risk=Risk.high, external=external_default)
    tail = parts[-1] if parts else ""
    if tail in _CONTENT_WORDS:
        return "content"
    if any(w in _RECIPIENT_WORDS for w in parts) and tail not in _ID_WORDS:
        return Sink(kind="auto", risk=Risk.high, external=True)
    if _RECEIVES.search(described):
        return Sink(kind="auto", risk=Risk.high, external=True)
    for pattern, kind, role in _DESCRIPTION_CUES:
        if described and pattern.search(described):
            external = True if role in ("party", "url", "account") else external_default
            return Sink(kind=kind, risk=Risk.high, external=external)
    return None


def _properties(declaration: ToolDeclaration) -> dict[str, dict[str, Any]]:
    properties = declaration.inputSchema.get("properties") or {}
    return {str(k): v if isinstance(v, dict) else {} for k, v in properties.items()}


def side_effect_of(declaration: ToolDeclaration) -> SideEffect:
    """The declared tool's side effect: from its annotations where they give one; else
    from its name and description, side-effecting unless a clear read verb says read."""
    hints = declaration.annotations
    name_says = name_effect(declaration.name)
    if hints is not None and (hints.readOnlyHint is not None or hints.openWorldHint is not None):
        # Annotations are the server's hints (MCP: untrusted unless the server is): a
        # read-only hint on a tool whose name says it sends or writes is not taken.
        if hints.readOnlyHint and name_says in (None, "read"):
            return SideEffect.read
        if hints.openWorldHint is False:
            return SideEffect.write
        # openWorldHint true, or unset (MCP's default is an open world).
        return SideEffect.external_send
    said = name_says or description_effect(declaration.description)
    if said == "read":
        return SideEffect.read
    if said == "write":
        return SideEffect.write
    # A sending verb, or no verb at all: assume something leaves the user.
    return SideEffect.external_send


# Property-name words that say the argument is where the tool delivers something: a tool
# that takes one is not a pure read, whatever its verb or hints say.
_DELIVERY_WORDS = frozenset({
    "deliver", "delivery", "recipient", "recipients", "to", "cc", "bcc", "send", "forward",
    "notify", "webhook", "callback", "destination", "dest", "mailto", "receiver",
    "receivers", "addressee", "reply",
})
# An argument's description that says the argument receives what the tool produces ("who
# receives the export", "where the copy goes", "recipient of the digest", "sent to",
# "gets notified"). A filter's description ("the customer's e-mail to look up", "search by
# owner", "the address the invoice was sent to") says none of these.
_RECEIVES = re.compile(
    r"\bwho (?:receives|gets|will (?:receive|get)|should (?:receive|get)|is (?:sent|notified))\b"
    r"|\b(?:receives?|gets?) (?:a copy|copies|it|them|the (?:copy|output|results?|report|"
    r"export|file|pdf|document|snapshot|summary|digest|statement|notification|link)s?)\b"
    r"|\brecipients? (?:of|for)\b"
    r"|(?<!was )(?<!were )(?<!been )(?<!had )\b(?:sent|delivered|copied|forwarded|e-?mailed|mailed)"
    r" (?:on )?to\b"
    r"|\bwhere (?:the |a )?(?:copy|copies|output|results?|report|export|file) (?:goes|go|is sent|"
    r"are sent|lands?)\b"
    r"|\bnotified\b|\bto notify\b",
    re.I,
)
# A tool's description that says the tool sends its output on: a sending verb with what it
# produces as object, then to/with ("e-mails it to", "shares the report with", "sends it on
# to"); a copy that goes somewhere; the output "is sent/e-mailed/forwarded to". A state
# ("the files shared with you", "invoices that were sent to a customer") is not one.
_SENDS_ON = re.compile(
    r"\b(?:e-?mails?|mails?|sends?|shares?|forwards?|posts?|delivers?|copies|uploads?|pushes|"
    r"transmits?|faxes|cc'?s)"
    r" (?:it|them|this|that|these|a copy|copies|the (?:[a-z-]+ )?(?:results?|output|reports?|"
    r"files?|pdf|copy|export|documents?|snapshot|summary|digest|statement|list|data))"
    r"(?: [a-z-]+){0,3}? (?:on )?(?:to|with)\b"
    r"|\b(?:a|the|one) cop(?:y|ies) (?:(?:is|are) (?:also |then )?)?(?:goes|go|sent|e-?mailed|"
    r"mailed|delivered|forwarded)\b"
    r"|(?<!was )(?<!were )\b(?:is|are) (?:also |then |automatically )?(?:sent|e-?mailed|mailed|"
    r"delivered|forwarded) (?:on )?to\b",
    re.I,
)
# Words of a range or paging bound ("date_to", "page_to"), not a party.
_BOUND_WORDS = frozenset({"date", "time", "day", "month", "year", "page", "offset", "index",
                          "range", "limit", "version"})


def says_it_sends_on(description: str | None) -> bool:
    """Whether a tool's description says the tool also sends what it produces somewhere
    ("… and e-mails it to the owner", "a copy goes to", "shares the report with")."""
    return bool(description and _SENDS_ON.search(description))


def _described(schema: dict[str, Any]) -> str:
    values = _items(schema)
    return " ".join(
        str(s) for s in (schema.get("description"), values.get("description"), schema.get("title"))
        if s
    )


def worded_delivery(prop: str, schema: dict[str, Any], sends_on: bool) -> bool:
    """Whether the declaration's words, not the argument's name, make this argument where
    the tool delivers: its own description says it receives the output ("who receives the
    export"), or the tool's description says the tool sends its output on and this is a
    party argument (an e-mail format, or a name like owner, contact, reviewer, email)."""
    parts = words(prop)
    if any(w in _BOUND_WORDS for w in parts) or (parts and parts[-1] in _ID_WORDS):
        return False
    if _RECEIVES.search(_described(schema)):
        return True
    if not sends_on:
        return False
    sink = argument_sink(prop, schema, SideEffect.external_send)
    # A URL it takes is one it fetches; an amount is no party.
    return (isinstance(sink, Sink) and sink.external
            and sink.kind not in (ValueKind.url, ValueKind.amount))


def delivery_sink(
    prop: str, schema: dict[str, Any], hinted_read: bool, sends_on: bool = False
) -> Sink | None:
    """The sink of a read-verb tool's argument that names a destination. By name
    (deliver_to, recipients, cc, webhook, callback_url) or by the declaration's words
    (`worded_delivery`): high risk. An e-mail or party argument without either may be a
    filter (`customer_email`): low risk, so a value from records the user asked for stays
    allowed; only without a read-only hint."""
    parts = words(prop)
    if any(w in _BOUND_WORDS for w in parts) or (parts and parts[-1] in _ID_WORDS):
        return None
    sink = argument_sink(prop, schema, SideEffect.external_send)
    if any(w in _DELIVERY_WORDS for w in parts) or worded_delivery(prop, schema, sends_on):
        kind = sink.kind if isinstance(sink, Sink) else "auto"
        return Sink(kind=kind, risk=Risk.high, external=True)
    if hinted_read:
        return None
    if isinstance(sink, Sink) and sink.external and sink.kind != ValueKind.url:
        return Sink(kind=sink.kind, risk=Risk.low, external=True)
    return None


# Read tools that take a URL fetch it: a GET carries data out in its URL (as the policy's
# fetch_url), though a link from results the user asked for is fine.
_GET_URL = Sink(kind=ValueKind.url, risk=Risk.low, external=True)


@lru_cache(maxsize=2048)
def _classify(canonical: str, source: ToolSource) -> ToolSpec:
    declaration = ToolDeclaration.model_validate_json(canonical)
    effect = side_effect_of(declaration)
    sinks: dict[str, Sink] = {}
    content: list[str] = []
    properties = _properties(declaration)
    sends_on = says_it_sends_on(declaration.description)
    worded: tuple[str, ...] = ()
    if effect == SideEffect.read:
        # Arguments the declaration's words make destinations, where the name alone does
        # not: named in a reason, so an auditor sees why a read tool was judged as a send.
        worded = tuple(
            prop for prop, schema in properties.items()
            if worded_delivery(prop, schema, sends_on)
            and not any(w in _DELIVERY_WORDS for w in words(prop))
        )
        hinted = bool(declaration.annotations and declaration.annotations.readOnlyHint)
        for prop, schema in properties.items():
            delivery = delivery_sink(prop, schema, hinted, sends_on)
            sink = argument_sink(prop, schema, effect)
            if delivery is not None:
                sinks[prop] = delivery
            elif isinstance(sink, Sink) and sink.kind == ValueKind.url:
                sinks[prop] = _GET_URL
        if sinks:
            effect = SideEffect.external_send
    else:
        for prop, schema in properties.items():
            sink = argument_sink(prop, schema, effect)
            if sink == "content":
                content.append(prop)
            elif isinstance(sink, Sink):
                sinks[prop] = sink
    # Named destinations only (as under a read-only hint), never a filter.
    destinations = {
        prop: sink for prop, schema in properties.items()
        if (sink := delivery_sink(prop, schema, hinted_read=True, sends_on=sends_on))
        is not None
    }
    return ToolSpec(
        name=declaration.name,
        side_effect=effect,
        sinks=sinks,
        content=tuple(content),
        known=True,
        source=source,
        notes=tuple(("declared_delivery", prop) for prop in worded if prop in sinks),
        destinations=destinations,
    )


def classify(declaration: ToolDeclaration, source: ToolSource = "declaration") -> ToolSpec:
    """The ToolSpec of a declared tool (`source`: declaration or registered)."""
    return _classify(declaration.canonical(), source)


def classify_stored(stored: dict[str, Any], source: ToolSource = "registered") -> ToolSpec:
    """The ToolSpec of a declaration stored as `ToolDeclaration.model_dump(mode="json",
    exclude_none=True)`."""
    return _classify(json.dumps(stored, sort_keys=True, default=str), source)


# ── read against the policy file ─────────────────────────────────────────────────────
_SEVERITY = {SideEffect.read: 0, SideEffect.write: 1, SideEffect.external_send: 2}


def _stricter(policy: Sink | None, declared: Sink) -> Sink:
    if policy is None:
        return declared
    return Sink(
        kind=declared.kind if policy.kind == "auto" else policy.kind,
        risk=Risk.high if Risk.high in (policy.risk, declared.risk) else Risk.low,
        external=policy.external or declared.external,
    )


def over_pattern(pattern: ToolSpec, declared: ToolSpec) -> ToolSpec:
    """A tool the policy file names only by a pattern, read with its declaration: the
    stricter of the two, argument by argument. A pattern is a guess from the name; the
    declaration's schema shows what the tool takes (a destination, a URL it fetches). The
    pattern's own spec where the declaration adds nothing; the declaration never loosens
    it."""
    sinks = dict(pattern.sinks)
    raised: list[str] = []
    for arg, sink in declared.sinks.items():
        current = pattern.sink_for(arg)
        merged = _stricter(current, sink)
        if merged != current:
            sinks[arg] = merged
            raised.append(arg)
    effect = max(pattern.side_effect, declared.side_effect, key=_SEVERITY.__getitem__)
    if not raised and effect == pattern.side_effect:
        return pattern
    # Free text stays free text unless either side traces it as a sink.
    content = tuple(dict.fromkeys(
        arg for arg in (*pattern.content, *declared.content)
        if arg not in sinks and (arg in pattern.content or pattern.sink_for(arg) is None)
    ))
    notes: list[tuple[str, str | None]] = [("declaration_over_pattern", a) for a in raised]
    notes += [note for note in declared.notes if note[1] in raised]
    return ToolSpec(
        name=pattern.name,
        side_effect=effect,
        sinks=sinks,
        content=content,
        known=True,
        require_ask=pattern.require_ask or declared.require_ask,
        source=declared.source,
        pattern=pattern.pattern,
        notes=tuple(notes or [("declaration_over_pattern", None)]),
    )


def over_read_entry(entry: ToolSpec, declared: ToolSpec) -> ToolSpec:
    """An operator's own read entry (its exact name), read with the tool's declaration: the
    entry stands for every other argument, but one the declaration names as where the tool
    delivers (deliver_to, cc, webhook, callback_url, ...) is traced as a high-risk sink (a
    read delivers nothing), so the call is judged as an external send."""
    found = declared.destinations
    if entry.side_effect != SideEffect.read or not found:
        return entry
    return ToolSpec(
        name=entry.name,
        side_effect=SideEffect.external_send,
        sinks={**entry.sinks, **{a: _stricter(entry.sinks.get(a), s) for a, s in found.items()}},
        content=tuple(a for a in entry.content if a not in found),
        known=True,
        require_ask=entry.require_ask,
        source=entry.source,
        notes=(*(("declared_destination", a) for a in found),
               *(note for note in declared.notes if note[1] in found)),
    )


def action_words(declaration: ToolDeclaration | None) -> str | None:
    """The verb and object a declaration's description opens with ("Leaves the given
    channel." → "leave channel"), for a tool whose name names no action."""
    if declaration is None or not declaration.description:
        return None
    first_sentence = re.split(r"(?<=[.!?])\s|\n", declaration.description.strip(), maxsplit=1)[0]
    parts = [w for w in words(first_sentence) if w not in _LEADING_FILLER]
    if not parts or verb_class(parts[0]) in (None, "read"):
        return None
    return " ".join([_base(parts[0]), *parts[1:3]])
