"""tool check argument provenance, side effect and triage score

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "tool_checks",
        sa.Column(
            "arg_provenance",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
    )
    op.add_column("tool_checks", sa.Column("side_effect", sa.String(length=16), nullable=True))
    op.add_column("tool_checks", sa.Column("triage_score", sa.Double(), nullable=True))


def downgrade() -> None:
    op.drop_column("tool_checks", "triage_score")
    op.drop_column("tool_checks", "side_effect")
    op.drop_column("tool_checks", "arg_provenance")
