"""match keys: a GIN-indexed array of the trigrams of events.text and of nodes.claim and
nodes.value (lowercased, and with lookalikes folded where the text is not ASCII), generated
by the database, so check-call's literal prefilter is served by an index

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-15
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The lookalike fold of app.checkcall.repository (FOLD_FROM, FOLD_TO) at this revision;
# tests/checkcall/test_match_keys.py fails when the two differ.
_FOLD_FROM = (
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04bb\u04cf\u051b"
    "\u051d\u0261\u0475\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423"
    "\u0425\u0405\u0406\u0408\u03b1\u03bf\u03c1\u03b9\u03bd\u03ba\u03c7\u03c5\u0391\u0392"
    "\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u0131\u0251"
    "\u0269\u2010\u2011\u2012\u2013\u2212\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063"
    "\u2064\ufeff"
)
_FOLD_TO = "aeopcyxijsdhlqwgvABEKMHOPCTYXSIJaopivkxuABEZHIKMNOPTYXiai-----"

_FUNCTIONS = [
    # Each run of three characters as one bigint: three code points of 21 bits each
    # (app.checkcall.repository.trigram_keys computes the same in Python).
    """
    CREATE FUNCTION text_trigrams(t text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(DISTINCT (ascii(a)::bigint << 42) | (ascii(b)::bigint << 21)
                                       | ascii(c)), '{}')
    FROM (SELECT string_to_array(t, NULL) AS ch) s,
         unnest(ch[1:cardinality(ch) - 2], ch[2:cardinality(ch) - 1], ch[3:cardinality(ch)])
         AS g(a, b, c)
    $$
    """,
    f"""
    CREATE FUNCTION text_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT translate(t, '{_FOLD_FROM}', '{_FOLD_TO}')
    $$
    """,
    # The trigrams of the lowercased text and, for non-ASCII text, of its fold: every text
    # the prefilter's LIKE reads.
    """
    CREATE FUNCTION text_match_keys(t text) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT text_trigrams(lower(t)) || CASE WHEN octet_length(t) <> char_length(t)
                                           THEN text_trigrams(lower(text_fold(t)))
                                           ELSE '{}'::bigint[] END
    $$
    """,
]


def upgrade() -> None:
    for statement in _FUNCTIONS:  # as written: `[1:cardinality` is no bind parameter
        op.get_bind().exec_driver_sql(statement)
    # Generated columns: every write of the text (insert, correction, erasure) recomputes
    # them, and adding them computes them for the rows there are.
    op.execute(
        "ALTER TABLE events ADD COLUMN match_keys bigint[] GENERATED ALWAYS AS "
        "(coalesce(text_match_keys(text), '{}'::bigint[])) STORED"
    )
    op.execute(
        "ALTER TABLE nodes ADD COLUMN match_keys bigint[] GENERATED ALWAYS AS "
        "(coalesce(text_match_keys(claim), '{}'::bigint[]) "
        "|| coalesce(text_match_keys(value), '{}'::bigint[])) STORED"
    )
    # fastupdate off: each write goes into the index itself, so no lookup has to scan a
    # pending list of recent rows (up to 4 MB of them) as well.
    op.execute(
        "CREATE INDEX ix_events_match_keys ON events USING gin (match_keys) WITH (fastupdate = off)"
    )
    op.execute(
        "CREATE INDEX ix_nodes_match_keys ON nodes USING gin (match_keys) WITH (fastupdate = off)"
    )


def downgrade() -> None:
    op.execute("DROP INDEX ix_nodes_match_keys")
    op.execute("DROP INDEX ix_events_match_keys")
    op.execute("ALTER TABLE nodes DROP COLUMN match_keys")
    op.execute("ALTER TABLE events DROP COLUMN match_keys")
    op.execute("DROP FUNCTION text_match_keys(text)")
    op.execute("DROP FUNCTION text_fold(text)")
    op.execute("DROP FUNCTION text_trigrams(text)")
