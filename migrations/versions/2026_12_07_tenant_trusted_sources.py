"""tenants.trusted_sources: the non-user sources an operator trusts to speak for the
tenant's users (a tool the user configured, a document store they own)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "tenants",
        sa.Column("trusted_sources", postgresql.ARRAY(sa.String(256)), nullable=False,
                  server_default="{}"),
    )


def downgrade() -> None:
    op.drop_column("tenants", "trusted_sources")
