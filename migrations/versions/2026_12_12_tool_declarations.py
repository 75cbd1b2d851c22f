"""tool_declarations: tools a tenant's admin declared in the MCP Tool shape; and
tool_checks.tool_source: what classified the tool of each check (policy, registered,
declaration, default)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-12
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tool_declarations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("declaration", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("updated_by_key_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_tool_declarations_tenant_id_tenants")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_declarations")),
        sa.UniqueConstraint("tenant_id", "name", name="uq_tool_declarations_tenant_name"),
    )
    op.create_index(
        op.f("ix_tool_declarations_tenant_id"), "tool_declarations", ["tenant_id"], unique=False
    )
    op.add_column("tool_checks", sa.Column("tool_source", sa.String(length=16), nullable=True))


def downgrade() -> None:
    op.drop_column("tool_checks", "tool_source")
    op.drop_index(op.f("ix_tool_declarations_tenant_id"), table_name="tool_declarations")
    op.drop_table("tool_declarations")
