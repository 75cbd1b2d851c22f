"""clarifications.asked_event_id: a question deferred while the user's question budget was
spent is asked at a later event (status `deferred` until then, `withdrawn` when its claim
left quarantine before it was asked)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("clarifications", sa.Column("asked_event_id", sa.Uuid(), nullable=True))
    op.create_foreign_key(
        op.f("fk_clarifications_asked_event_id_events"), "clarifications", "events",
        ["asked_event_id"], ["id"],
    )
    op.create_index(
        op.f("ix_clarifications_asked_event_id"), "clarifications", ["asked_event_id"],
        unique=False,
    )
    # Every question asked so far was asked at the event that raised it.
    op.execute("UPDATE clarifications SET asked_event_id = event_id")


def downgrade() -> None:
    op.drop_index(op.f("ix_clarifications_asked_event_id"), table_name="clarifications")
    op.drop_constraint(
        op.f("fk_clarifications_asked_event_id_events"), "clarifications", type_="foreignkey"
    )
    op.drop_column("clarifications", "asked_event_id")
