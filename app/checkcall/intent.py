"""Whose idea a call is: the action a tool name names ("disable_2fa": disable, 2fa), looked
for in the instructions injected into this session's content and in the user's own words.

A call with no argument to trace ("disable_2fa({})") cannot be judged by its values; when
an injected instruction of this session asks for its action and the user never did, it is
asked about (`action_from_injected_instruction`). Deterministic word lists, no model.
"""

from __future__ import annotations

import re
import uuid
from functools import lru_cache

from app.checkcall.normalize import canonical, skeleton
from app.checkcall.provenance import EventRecord
from app.checkcall.segments import Label

# Each action word of a tool name, and how it is written in the languages the extractor
# reads (word stems, matched at a word start).
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "disable": ("disabl", "deactivat", "turn off", "switch off", "désactiv", "desactiv",
                "deaktivier", "disattiv", "desativ", "ausschalt"),
    "enable": ("enabl", "activat", "turn on", "switch on", "activ", "aktivier", "attiv", "ativ",
               "habilit"),
    "delete": ("delet", "remov", "eras", "wip", "purg", "supprim", "effac", "elimin", "borr",
               "lösch", "losch", "cancell", "apag", "exclu"),
    "remove": ("remov", "delet", "supprim", "elimin", "entfern", "rimuov", "remov"),
    "send": ("send", "forward", "mail", "envoi", "envoy", "envía", "envia", "envie", "manda",
             "mande", "schick", "sende", "invia", "inoltr", "encaminh"),
    "forward": ("forward", "send", "transf", "reenv", "weiterleit", "inoltr", "encaminh"),
    "share": ("shar", "partag", "compart", "teil", "condivid", "partilh"),
    "transfer": ("transfer", "wire", "transf", "vire", "virez", "virement", "überweis",
                 "uberweis", "trasfer"),
    "pay": ("pay", "paid", "paie", "payez", "paga", "pague", "zahl", "bezahl"),
    "reset": ("reset", "réinitialis", "reinitialis", "restablec", "zurücksetz", "reimpost",
              "redefin"),
    "change": ("chang", "modif", "cambi", "änder", "ander", "mude", "mudar", "alter",
               "updat"),
    "update": ("updat", "chang", "modif", "actualiz", "aktualisier", "aggiorn", "atualiz"),
    "invite": ("invit", "einlad", "convid"),
    "add": ("add", "ajout", "añad", "anad", "agreg", "hinzufüg", "aggiung", "adicion"),
    "grant": ("grant", "give", "accord", "otorg", "gewähr", "conced"),
    "export": ("export", "exporti", "esport"),
    "download": ("download", "télécharg", "descarg", "herunterlad", "scaric", "baix"),
    "upload": ("upload", "hochlad", "cargar", "caric", "carreg"),
    "create": ("creat", "cré", "crea", "erstell", "crie", "criar"),
    "cancel": ("cancel", "annul", "stornier"),
    "book": ("book", "reserv", "buch", "prenot"),
    "unlock": ("unlock", "déverrouill", "desbloque", "entsperr", "sblocc", "desbloqu"),
    "revoke": ("revok", "révoqu", "revoc", "widerruf", "revoch", "revog"),
    "approve": ("approv", "approuv", "aprob", "genehmig", "approv", "aprov"),
}
_OBJECT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "2fa": ("2fa", "two-factor", "two factor", "2-factor", "mfa", "multi-factor",
            "multifactor", "authenticat", "authentif", "autentica", "authentifizier",
            "zwei-faktor", "double authentification", "dos factores", "due fattori",
            "dois fatores"),
    "mfa": ("2fa", "mfa", "two-factor", "two factor", "multi-factor", "authenticat",
            "authentif", "autentica"),
    "password": ("password", "passwort", "kennwort", "mot de passe", "contraseña", "senha",
                 "passphrase"),
    "email": ("email", "e-mail", "mail", "courriel", "correo"),
    "file": ("file", "fichier", "archivo", "datei", "documento", "document", "arquivo"),
    "account": ("account", "compte", "cuenta", "konto", "conto", "conta"),
    "user": ("user", "utilisateur", "usuario", "benutzer", "utente", "usuário"),
    "money": ("money", "fund", "argent", "dinero", "geld", "soldi", "dinheiro", "eur", "usd"),
}
_STOP = frozenset({"a", "an", "the", "my", "all", "to", "of", "for", "and", "or", "by", "new",
                   "tool", "api", "do", "run", "v1", "v2"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=1024)
def action_patterns(tool_name: str) -> tuple[re.Pattern[str], re.Pattern[str] | None] | None:
    """The tool's verb pattern and, when it names an object, that object's pattern; None
    when the name has no known action verb."""
    words = [w for w in re.split(r"[_\-.\s]+", _CAMEL.sub("_", tool_name).lower()) if w]
    words = [w for w in words if w not in _STOP]
    if not words or words[0] not in _SYNONYMS:
        return None
    verb = _stems(_SYNONYMS[words[0]])
    objects: list[str] = []
    for word in words[1:]:
        objects.extend(_OBJECT_SYNONYMS.get(word, (word[:5] if len(word) > 5 else word,)))
    return verb, _stems(tuple(objects)) if objects else None


def _stems(stems: tuple[str, ...]) -> re.Pattern[str]:
    # A stem of three letters or fewer is a whole word ("add", not "address").
    body = "|".join(
        re.escape(s).replace(r"\ ", r"[\s\-]+") + (r"\b" if len(s) <= 3 else "")
        for s in sorted(set(stems))
    )
    return re.compile(rf"(?<!\w)(?:{body})", re.IGNORECASE)


def _asks(text: str, verb: re.Pattern[str], obj: re.Pattern[str] | None) -> bool:
    return verb.search(text) is not None and (obj is None or obj.search(text) is not None)


def injected_action(tool_name: str, session_events: list[EventRecord]) -> list[uuid.UUID]:
    """The events of this session whose injected instruction asks for the tool's action,
    when the user's own words in the session never do; empty otherwise."""
    patterns = action_patterns(tool_name)
    if patterns is None:
        return []
    verb, obj = patterns
    injected: list[uuid.UUID] = []
    for event in session_events:
        analysis = event.analysis()
        if analysis is None or event.text is None:
            continue
        text = skeleton(canonical(event.text))
        if event.origin == "user":
            own = _own_words(text, analysis.regions)
            if _asks(own, verb, obj):
                return []
        for start, end, label in analysis.regions:
            if label == Label.instruction and _asks(text[start:end], verb, obj):
                injected.append(event.id)
                break
    return injected


def _own_words(text: str, regions: tuple[tuple[int, int, Label], ...]) -> str:
    """A user turn without its pasted passages."""
    out = list(text)
    for start, end, label in regions:
        if label != Label.user:
            out[start:end] = " " * (end - start)
    return "".join(out)
