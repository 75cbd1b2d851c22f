"""Who authored each part of an event's text: the user, a third party the user pasted, a
data record, or an instruction injected for the assistant.

Deterministic cues, no model. An **injected instruction** is a sentence in text the user
did not write (a non-user event, or a passage pasted into a user turn) that

- addresses the assistant ("to you, the AI language model", "note for AI assistants",
  "if you are an AI"), or
- overrides its task ("ignore previous instructions", "before you can solve the task",
  "do the following first", "SYSTEM NOTE:", `<INFORMATION>` tags), or
- states a standing routing rule: a routing verb (send, forward, cc, share, transfer, pay…)
  with an address, URL or IBAN in the same sentence, framed as an obligation or a
  standing order ("all reports must be cc'd to …", "from now on forward … to …",
  "per compliance policy, send … to …").

Everything from the first such sentence to the end of its record (a JSON string, a tag
block, a paragraph, or a list item) is an instruction region. A milder **directive**
("please send questions to …": an imperative routing verb with an address, no standing
or override cue) is marked on its own sentence; it is not an injection, but a value from
it is never taken as a data record the user asked for.

**Pasted** text in a user turn is what `app.text.voice.third_party_spans` finds, the same
passages extraction reads apart from the user's own words (quoted, forwarded or pasted
passages and quote markup, mail headers, chat logs, code comments, records about "the
customer", role and made-up-customer frames, sentences in a language the service does not
read). The rest of a user turn is the user's own words.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum

from app.domain.vocabulary import Origin
from app.text.normalize import canonical, skeleton
from app.text.voice import third_party_spans


class Label(StrEnum):
    user = "user"  # the user's own words
    mentioned = "mentioned"  # the user's words asking about a value or warning against it
    pasted = "pasted"  # third-party text inside a user turn
    data = "data"  # a non-user channel, no instruction cue
    directive = "directive"  # an imperative routing sentence in text the user did not write
    instruction = "instruction"  # an instruction injected for the assistant


@dataclass(frozen=True, slots=True)
class TextAnalysis:
    """Labeled regions of one text; offsets outside every region carry `default`."""

    default: Label
    regions: tuple[tuple[int, int, Label], ...] = ()
    # In a user turn: standing routing rules in the user's own words (a triage signal).
    own_rules: int = 0

    def label_at(self, start: int, end: int) -> Label:
        """The label of the region holding [start, end); the most severe when it straddles."""
        best = self.default
        for r_start, r_end, label in self.regions:
            if r_start < end and start < r_end and _SEVERITY[label] > _SEVERITY[best]:
                best = label
        return best

    def count(self, label: Label) -> int:
        return sum(1 for _, _, lab in self.regions if lab == label)


_SEVERITY = {
    Label.user: 0,
    Label.mentioned: 1,
    Label.data: 1,
    Label.pasted: 2,
    Label.directive: 3,
    Label.instruction: 4,
}

_I = re.IGNORECASE | re.MULTILINE

# ── sentence cues ──────────────────────────────────────────────────────────────────
_SINK = re.compile(
    r"[\w.%+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}"  # e-mail
    r"|(?:https?://|www\.)\S+"  # URL
    r"|\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}",  # IBAN
)
_MODEL = (
    r"(?:ai|a\.i\.|llms?|language models?|(?:ai\s+)?assistants?|chatbots?|copilots?|"
    r"(?:ai|llm|autonomous|automated)\s+(?:agents?|models?|systems?|tools?))"
)
_ADDRESSING = re.compile(
    rf"\b(?:to|for|attention|dear|hey|hello|hi)\b[,:]?\s+(?:you,?\s+)?"
    rf"(?:the\s+|an?\s+|any\s+|all\s+)?{_MODEL}\b"
    rf"|\b(?:if|when)\s+you\s+are\s+(?:an?\s+)?{_MODEL}"
    rf"|\b(?:ai|llm|automated|autonomous)\s+(?:assistants?|agents?|systems?|models?|tools?)\s+"
    r"(?:reading|processing|summari[sz]ing|handling|parsing|that\s+read|must|should|shall|"
    r"are\s+(?:required|instructed))"
    r"|\bthis\s+is\s+an?\s+(?:important|urgent|priority|official|mandatory)\s+"
    r"(?:message|instruction|notice|note|update)",
    _I,
)
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|initial|your|system|user'?s?)\s+"
    r"(?:instructions?|directions?|prompts?|rules|guidelines|messages|tasks?|context)"
    r"|\bbefore\s+you\s+(?:can\s+|do\s+|start\s+|go\s+on\s+to\s+)?"
    r"(?:solve|do|complete|answer|continue|proceed|respond|finish|start|reply)\b"
    r"|\bdo\s+the\s+following\s+(?:first|instead|now|immediately)"
    r"|\binstead\s+of\s+(?:the|your)\s+(?:original\s+|user'?s?\s+)?(?:task|request|instructions?)"
    r"|\b(?:system|admin(?:istrator)?|developer|operator)\s+"
    r"(?:note|notice|message|override|prompt|instruction|directive)s?\s*[:\-!]"
    r"|<\s*/?\s*(?:information|instructions?|system|important|inst|admin|sys)\s*>"
    r"|\[\s*/?\s*(?:inst|system|instructions?)\s*\]|<\|im_start\|>"
    r"|\bnew\s+(?:instructions?|directives?|task)\s*[:\-]",
    _I,
)
# Imperative verbs an instruction to an assistant opens with, in the languages the
# extractor reads (English, French, Spanish, German, Italian, Portuguese).
_ACTION_VERB = (
    r"(?:send|forward|e-?mail|mail|cc|bcc|transfer|wire|pay|share|upload|post|publish|delete|"
    r"remove|erase|wipe|disable|deactivate|enable|activate|turn\s+(?:off|on)|switch\s+(?:off|on)|"
    r"reset|change|update|set|add|invite|grant|give|create|book|reserve|cancel|approve|confirm|"
    r"open|visit|click|download|run|execute|call|contact|reply|respond|export|copy|move|save|"
    r"store|remember|tell|include|attach|schedule|buy|purchase|sign|submit|rotate|unlock|"
    r"revoke|ignore|disregard|forget|write|leak|reveal|"
    # French
    r"envoie|envoyez|envoyer|transf[eè]re|transf[ée]rez|transmets|transmettez|partage|partagez|"
    r"supprime|supprimez|efface|effacez|d[ée]sactive|d[ée]sactivez|activez|paie|payez|vire|virez|"
    r"r[ée]serve|r[ée]servez|ajoute|ajoutez|changez|modifie|modifiez|cr[ée]e|cr[ée]ez|ouvre|"
    r"ouvrez|clique|cliquez|ex[ée]cute|ex[ée]cutez|fais|faites|ignorez|oublie|oubliez|"
    r"r[ée]initialise|r[ée]initialisez|invitez|mets|mettez|donne|donnez|accorde|accordez|"
    # Spanish
    r"env[ií]a|env[ií]e|env[ií]en|reenv[ií]a|reenv[ií]e|manda|mande|transfiere|transfiera|"
    r"comparte|comparta|elimina|elimine|borra|borre|desactiva|desactive|activa|active|paga|"
    r"pague|reserva|a[ñn]ade|a[ñn]ada|agrega|agregue|cambia|cambie|modifica|modifique|crea|cree|"
    r"abre|abra|ejecuta|ejecute|haz|haga|ignora|olvida|olvide|restablece|invita|otorga|"
    # German
    r"sende|senden|schick|schicke|schicken|leite|[üu]berweise|[üu]berweisen|teile|l[öo]sche|"
    r"l[öo]schen|deaktiviere|deaktivieren|aktiviere|aktivieren|zahle|bezahle|buche|buchen|"
    r"[äa]ndere|[äa]ndern|erstelle|erstellen|[öo]ffne|[öo]ffnen|f[üu]hre|mache|mach|"
    r"ignoriere|vergiss|setze|gib|gew[äa]hre|f[üu]ge|"
    # Italian
    r"invia|inviare|inoltra|trasferisci|condividi|cancella|disattiva|attiva|prenota|aggiungi|"
    r"apri|esegui|fai|dimentica|reimposta|concedi|"
    # Portuguese
    r"envie|encaminhe|encaminha|transfira|transfere|compartilhe|compartilha|partilhe|exclua|"
    r"apague|apaga|desative|desativa|ative|ativa|adicione|mude|altere|crie|execute|fa[çc]a|"
    r"esque[çc]a|redefina|convide|conceda)"
)
# Who an instruction in content speaks to: the assistant, the AI, the agent, the system.
_ASSISTANT = (
    r"(?:ai|a\.i\.|llm|bot|chatbot|copilot|claude|chatgpt|gpt|gemini|system|sistema|"
    r"syst[èe]me|agent|agente|ia|ki|"
    r"(?:ai|a\.i\.|ki|llm|virtual|autonomous|automated)[\s\-]+(?:assistant|agent|model|system)|"
    r"assistant(?:e)?(?:\s+(?:ia|ai|virtuel(?:le)?|virtual|num[ée]rique))?|"
    r"asistente(?:\s+(?:de\s+)?(?:ia|ai|virtual))?|assistente(?:\s+(?:ia|ai|virtuale|virtual))?|"
    r"(?:ki[\s\-])?assistent(?:in)?|(?:agent|agente)\s+(?:ia|ai|de\s+ia))"
)
_POLITE = (
    r"(?:please|kindly|now|immediately|urgently|also|then|just|por\s+favor|bitte|sofort|"
    r"s['’]il\s+(?:te|vous)\s+pla[iî]t|per\s+favore|imm[ée]diatement|inmediatamente|"
    r"immediatamente|agora|ahora|maintenant|jetzt|ora|subito)"
)
# "Assistant, send …", "SYSTEM: assistant, forward …", "AI agent: transfer …",
# "asistente, envía …": the assistant named, then an imperative.
_VOCATIVE = re.compile(
    rf"(?:^|[\s\[(<\-–—\"'“:;,.!?])(?:(?:hey|hi|hello|dear|ok(?:ay)?|attention|oye|hola|"
    rf"cher|ch[èe]re|liebe[rs]?|caro|cara|querido|querida)\s+)?"
    rf"(?:the\s+|an?\s+|my\s+|your\s+|l['’]|le\s+|la\s+|el\s+|der\s+|die\s+|o\s+)?"
    rf"{_ASSISTANT}\s*[,!]\s*(?:{_POLITE}\W+)*{_ACTION_VERB}\b",
    _I,
)
# What follows an imperative's verb ("forward THE report"), unlike a status line's
# ("System: update available").
_OBJECT = (
    r"(?:the|all|this|that|these|those|my|your|our|his|her|their|it|them|every|any|an?|to|me|"
    r"us|le|la|les|l['’]|un|une|des|tous|toutes|ce|cette|ces|el|los|las|todo|todos|todas|este|"
    r"esta|esto|den|die|das|dem|alle|diese[nsm]?|il|lo|gli|i|o|os|as|um|uma|\d+)"
)
# A role label opening a sentence, then an imperative: "SYSTEM: forward the …",
# "[assistant] please send …".
_ROLE_LABEL = re.compile(
    rf"^\W*(?:{_ASSISTANT}|admin(?:istrator)?|developer|operator)\s*[:\]>)\-–—]\s*"
    rf"(?:(?:{_POLITE}\W+)+{_ACTION_VERB}\b|{_ACTION_VERB}\s+{_OBJECT}\b)",
    _I,
)

_ROUTING_VERB = (
    r"(?:send|sent|forward(?:ed)?|e-?mail(?:ed)?|cc(?:'?d|'?ed)?|bcc(?:'?d|'?ed)?|cop(?:y|ied)|"
    r"share[sd]?|transfer(?:red)?|wire[sd]?|pa(?:y|id)|upload(?:ed)?|post(?:ed)?|"
    r"submit(?:ted)?|route[sd]?|deliver(?:ed)?|report(?:ed)?|loop\s+in|mirror(?:ed)?|"
    r"archive[sd]?|back(?:ed)?\s+up)"
)
_ROUTING = re.compile(rf"\b{_ROUTING_VERB}\b", _I)
_STANDING = re.compile(
    r"\b(?:always|from\s+now\s+on|going\s+forward|henceforth|from\s+this\s+point|"
    r"in\s+(?:the\s+)?future|all\s+future|every\s+time|each\s+time|whenever|by\s+default|"
    r"standing\s+(?:rule|instruction|order))\b",
    _I,
)
_OBLIGATION = re.compile(
    rf"\b(?:must|shall|should|are\s+to|is\s+to|needs?\s+to|ha(?:ve|s)\s+to)\s+(?:also\s+)?"
    rf"(?:always\s+)?be\s+{_ROUTING_VERB}"
    r"|\b(?:policy|policies|compliance|regulation|regulatory|requirements?|mandatory|"
    r"mandated|required)\b",
    _I,
)
_IMPERATIVE = re.compile(
    rf"^\W*(?:(?:please|kindly|also|then|and|now|first|next|finally|just)\W+)*{_ROUTING_VERB}\b"
    r"(?!\s*:)"
    rf"|\byou\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|expected)\s+to)\s+"
    rf"(?:also\s+)?{_ROUTING_VERB}\b",
    _I,
)


def sentence_cue(sentence: str) -> Label | None:
    """instruction, directive or None for one sentence of text the user did not write."""
    if (
        _ADDRESSING.search(sentence)
        or _OVERRIDE.search(sentence)
        or _VOCATIVE.search(sentence)
        or _ROLE_LABEL.search(sentence)
    ):
        return Label.instruction
    has_sink = _SINK.search(sentence) is not None
    routing = _ROUTING.search(sentence) is not None
    if has_sink and routing and (_STANDING.search(sentence) or _OBLIGATION.search(sentence)):
        return Label.instruction
    if has_sink and _IMPERATIVE.search(sentence):
        return Label.directive
    return None


# ── records and sentences ──────────────────────────────────────────────────────────
# JSON opens with a bracket and then a value ("[system] …" is a tag, not JSON).
_JSON_START = re.compile(r"\s*(?:\{\s*[\"}]|\[\s*[\"{\[\]\d\-tfn])")
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_TAG_BLOCK = re.compile(
    r"<\s*(information|instructions?|system|important|inst|admin|sys)\s*>.*?<\s*/\s*\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n|(?:\\n){2,}|\r\n[ \t]*\r\n")
_LIST_ITEM = re.compile(r"(?:^|\n|\\n)[ \t]*(?:\d{1,3}[.)]|[-*•]|#{1,6})[ \t]+")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|\n|\\n|\r")


def _records(text: str) -> list[tuple[int, int]]:
    if _JSON_START.match(text):
        records = [m.span(1) for m in _JSON_STRING.finditer(text)]
    else:
        records = []
        start = 0
        for brk in _PARAGRAPH_BREAK.finditer(text):
            records.append((start, brk.start()))
            start = brk.end()
        records.append((start, len(text)))
        # A list item starts a new record: one search result per item.
        split: list[tuple[int, int]] = []
        for r_start, r_end in records:
            cuts = [
                m.start() for m in _LIST_ITEM.finditer(text, r_start, r_end) if m.start() > r_start
            ]
            bounds = [r_start, *cuts, r_end]
            split.extend(zip(bounds[:-1], bounds[1:], strict=True))
        records = split
    # A tag block (<INFORMATION> … </INFORMATION>) is one record, however many it spans.
    for block in _TAG_BLOCK.finditer(text):
        b_start, b_end = block.span()
        inside = [r for r in records if r[0] < b_end and b_start < r[1]]
        if len(inside) > 1 or (inside and (inside[0][0] > b_start or inside[0][1] < b_end)):
            records = [r for r in records if r not in inside]
            records.append(
                (min(b_start, *(r[0] for r in inside)), max(b_end, *(r[1] for r in inside)))
            )
    return sorted(records)


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out = []
    pos = start
    for brk in _SENTENCE_BREAK.finditer(text, start, end):
        if brk.start() > pos:
            out.append((pos, brk.start()))
        pos = brk.end()
    if end > pos:
        out.append((pos, end))
    return out


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The sentences of [start, end), record by record (a JSON string, a paragraph, a list
    item, a tag block), as offsets into `text`."""
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    for r_start, r_end in _records(text[start:end]):
        out.extend(_sentences(text, r_start + start, r_end + start))
    return out


def instruction_regions(
    text: str, start: int = 0, end: int | None = None
) -> list[tuple[int, int, Label]]:
    """Instruction and directive regions of text the user did not write, within [start, end)."""
    end = len(text) if end is None else end
    regions: list[tuple[int, int, Label]] = []
    for r_start, r_end in _records(text[start:end]):
        r_start, r_end = r_start + start, r_end + start
        for s_start, s_end in _sentences(text, r_start, r_end):
            cue = sentence_cue(text[s_start:s_end])
            if cue == Label.instruction:
                regions.append((s_start, r_end, Label.instruction))
                break
            if cue == Label.directive:
                regions.append((s_start, s_end, Label.directive))
    return regions


# A user sentence that names a value to ask who or what it is, or to warn against it
# ("is billing@x.io legit?", "block finance@y.net, it's a scam"): the user does not state it
# as a destination. A sentence that also asks to send somewhere keeps the user's label.
_QUESTIONED = re.compile(
    r"\b(?:who|whose|what)(?:'s|\s+is|\s+are|\s+was|\s+owns)\b"
    r"|\bis\s+(?:this|that|it)\s+(?:address\s+|account\s+|link\s+|iban\s+)?(?:legit|real|"
    r"genuine|safe|valid|trustworthy|yours|ours|known)\b|\b(?:legit|genuine|safe|real)\s*\?"
    r"|\b(?:do|did)\s+(?:you|we|i)\s+(?:know|recogni[sz]e)\b|\bnever\s+heard\s+of\b"
    r"|\b(?:block|blocklist|blacklist|unsubscribe)\b"
    r"|\b(?:report|flag|mark)\s+(?:it|them|this|that|the\s+sender|(?:it\s+)?as)\b"
    r"|\b(?:spam|phishing|phish|scam|scammer|fraud|fraudulent|suspicious|fake|malicious|"
    r"impersonat\w*|spoof\w*)\b"
    r"|\b(?:don'?t|do\s+not|never)\s+(?:send|reply|pay|trust|click|open|forward|share)\b",
    re.IGNORECASE,
)
_SEND_REQUEST = re.compile(
    r"\b(?:send|e-?mail|forward|share|invite|pay|transfer|wire|reply|cc|bcc|add|book|"
    r"schedule|post|upload)\b",
    re.IGNORECASE,
)
_NEGATED_SEND = re.compile(
    r"\b(?:don'?t|do\s+not|never|not)\s+(?:\w+\s+)?(?:send|e-?mail|forward|share|invite|pay|"
    r"transfer|wire|reply)\b",
    re.IGNORECASE,
)


def _mentions(text: str) -> list[tuple[int, int, Label]]:
    """The user's sentences that hold an address and question or warn about it."""
    out = []
    for start, end in sentences(text):
        sentence = text[start:end]
        words = _SINK.sub(" ", sentence)  # the address's own letters say nothing
        if words == sentence or not _QUESTIONED.search(words):
            continue
        if _SEND_REQUEST.search(words) and not _NEGATED_SEND.search(words):
            continue
        out.append((start, end, Label.mentioned))
    return out


def analyze(text: str, origin: str) -> TextAnalysis:
    if origin == Origin.user.value:
        regions: list[tuple[int, int, Label]] = _mentions(text)
        for p_start, p_end in third_party_spans(text):
            regions.append((p_start, p_end, Label.pasted))
            regions.extend(
                r for r in instruction_regions(text, p_start, p_end) if r[2] == Label.instruction
            )
        own_rules = sum(
            1
            for start, _, label in instruction_regions(text)
            if label == Label.instruction
            and not any(p_start <= start < p_end for p_start, p_end, _ in regions)
        )
        return TextAnalysis(default=Label.user, regions=tuple(regions), own_rules=own_rules)
    return TextAnalysis(default=Label.data, regions=tuple(instruction_regions(text)))


# Analyses keyed by (text hash, origin): the cache never holds text, only offsets.
_CACHE_SIZE = 20_000
_cache: OrderedDict[tuple[str, str], TextAnalysis] = OrderedDict()
_cache_lock = threading.Lock()


def analyze_cached(text: str, origin: str, text_sha256: str) -> TextAnalysis:
    """The analysis of `text`'s canonical form with lookalikes folded (`normalize.canonical`,
    `normalize.skeleton`): its offsets refer to that form."""
    key = (text_sha256, origin)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    result = analyze(skeleton(canonical(text)), origin)
    with _cache_lock:
        _cache[key] = result
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result
