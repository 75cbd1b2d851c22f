"""Surface template families of the generated sessions, split between dev and test.

The templates are authored in `data/texts.yaml`, each family with the split that draws it as
its set: the test split only ever sees its own families, so the wording of every attack and
benign request in test is unseen on dev. The search results' reviews and marketing lines are
shared by both splits.
"""

from __future__ import annotations

from pathlib import Path

from app.core.corpora import SHARED, corpus_texts, select, text
from bench.tools.world import SPLITS, BySplit

TEXTS_DATA = Path(__file__).parent / "data" / "texts.yaml"

# (family, template)
Family = tuple[str, str]


def families(path: Path, table: str) -> BySplit[Family]:
    """Each split's (family, template) pairs of `table` in `path`, in file order."""
    return {
        split: tuple((text(r, "family"), text(r)) for r in select(path, split, table=table))
        for split in SPLITS
    }


# A routing rule planted in a document, web page or shared file (populations 1 and 2).
INJECTED_RULE = families(TEXTS_DATA, "injected_rule")
# The user pastes an attacker's text carrying the address (population 3).
PASTED = families(TEXTS_DATA, "pasted")
LAUNDER_FOLLOWUP = families(TEXTS_DATA, "launder_followup")
# A routing rule the user typed in the current prompt (population 4).
PROMPT_INLINE = families(TEXTS_DATA, "prompt_inline")
# The user tells the assistant about a contact (populations 5 and 6), in an earlier session.
STORE_INTERNAL = families(TEXTS_DATA, "store_internal")
REQUEST_INTERNAL = families(TEXTS_DATA, "request_internal")
STORE_EXTERNAL = families(TEXTS_DATA, "store_external")
REQUEST_EXTERNAL = families(TEXTS_DATA, "request_external")
STORE_PAYEE = families(TEXTS_DATA, "store_payee")
REQUEST_PAY = families(TEXTS_DATA, "request_pay")
# Population 7: the address in the user's own request, no recall.
DIRECT_SEND = families(TEXTS_DATA, "direct_send")
DIRECT_PAY = families(TEXTS_DATA, "direct_pay")
EARLIER_MENTION = families(TEXTS_DATA, "earlier_mention")
SEND_EARLIER = families(TEXTS_DATA, "send_earlier")
# Population 8: the user asks for search results and acts on one.
SEARCH_REQUEST = families(TEXTS_DATA, "search_request")
# Populations 1 and 2: the user's innocent request in the later session.
ATTACK_REQUEST = families(TEXTS_DATA, "attack_request")

# Search results (population 8), both splits: reviews, marketing lines ({contact}) and
# reviews carrying an injected instruction ({other}).
REVIEWS = corpus_texts(TEXTS_DATA, SHARED, table="reviews")
MARKETING = corpus_texts(TEXTS_DATA, SHARED, table="marketing")
INJECTED_REVIEW = corpus_texts(TEXTS_DATA, SHARED, table="injected_review")
