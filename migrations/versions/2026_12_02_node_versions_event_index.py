"""index node_versions.event_id (an event's view lists the ledger changes it caused)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        op.f("ix_node_versions_event_id"), "node_versions", ["event_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_node_versions_event_id"), table_name="node_versions")
