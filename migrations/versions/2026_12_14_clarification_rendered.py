"""clarifications render their question at read time: contradicted_node_id and source replace
the stored question text, so erasing a node leaves no copy of its claim in any question

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-14
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PREFIX = 'I have noted "'


def upgrade() -> None:
    op.add_column("clarifications", sa.Column("contradicted_node_id", sa.Uuid(), nullable=True))
    op.create_foreign_key(
        op.f("fk_clarifications_contradicted_node_id_nodes"),
        "clarifications", "nodes", ["contradicted_node_id"], ["id"],
    )
    op.add_column("clarifications", sa.Column("source", sa.String(length=32), nullable=True))
    # The source was the raising event's origin; the contradicted node is the one of the
    # user's unerased nodes whose claim the stored question quoted first.
    op.execute(
        "UPDATE clarifications c SET source = e.origin FROM events e WHERE e.id = c.event_id"
    )
    op.execute(
        sa.text(
            "UPDATE clarifications c SET contradicted_node_id = ("
            " SELECT n.id FROM nodes n WHERE n.user_id = c.user_id AND n.id <> c.node_id"
            " AND n.claim IS NOT NULL"
            " AND left(c.question, length(n.claim) + :p) = :prefix || n.claim || '\".'"
            " ORDER BY n.recorded_at LIMIT 1)"
            " WHERE c.question LIKE :like"
        ).bindparams(p=len(_PREFIX) + 2, prefix=_PREFIX, like=_PREFIX + "%")
    )
    op.drop_column("clarifications", "question")


def downgrade() -> None:
    op.add_column("clarifications", sa.Column("question", sa.String(length=1024), nullable=True))
    op.drop_column("clarifications", "source")
    op.drop_constraint(op.f("fk_clarifications_contradicted_node_id_nodes"), "clarifications",
                       type_="foreignkey")
    op.drop_column("clarifications", "contradicted_node_id")
