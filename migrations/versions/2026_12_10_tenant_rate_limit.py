"""tenants.rate_limit_per_minute: the tenant's own request limit per API key (NULL follows
CAPTURE_RATE_LIMIT_PER_MINUTE)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-10
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tenants", sa.Column("rate_limit_per_minute", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("tenants", "rate_limit_per_minute")
