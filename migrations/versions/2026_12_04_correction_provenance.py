"""node_versions.actor_key_id, actor_role: a correction through the API records the key
that made it and its role; a rewrite of a node's text is the change `corrected`

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("node_versions", sa.Column("actor_key_id", sa.Uuid(), nullable=True))
    op.add_column("node_versions", sa.Column("actor_role", sa.String(length=16), nullable=True))
    op.create_foreign_key(
        op.f("fk_node_versions_actor_key_id_api_keys"), "node_versions", "api_keys",
        ["actor_key_id"], ["id"],
    )
    # A rewrite through the API is `corrected`, whoever made it (no actor recorded here).
    op.execute("UPDATE node_versions SET change = 'corrected' WHERE change = 'user_corrected'")


def downgrade() -> None:
    op.execute("UPDATE node_versions SET change = 'user_corrected' WHERE change = 'corrected'")
    op.drop_constraint(
        op.f("fk_node_versions_actor_key_id_api_keys"), "node_versions", type_="foreignkey"
    )
    op.drop_column("node_versions", "actor_role")
    op.drop_column("node_versions", "actor_key_id")
