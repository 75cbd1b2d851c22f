"""audits and audit citations (counterfactual citation audit)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "audits",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("session_id", sa.Uuid(), nullable=False),
        sa.Column("retrieval_id", sa.Uuid(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("decoder", sa.String(length=32), nullable=False),
        sa.Column("prompt_sha256", sa.String(length=64), nullable=False),
        sa.Column("response_sha256", sa.String(length=64), nullable=False),
        sa.Column("inputs", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("memory_node_ids", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("cited_node_ids", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("kept_node_ids", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("result", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["retrieval_id"], ["retrievals.id"], name=op.f("fk_audits_retrieval_id_retrievals")
        ),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_audits_session_id_sessions")
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_audits_tenant_id_tenants")
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_audits_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audits")),
    )
    op.create_index(op.f("ix_audits_session_id"), "audits", ["session_id"], unique=False)
    op.create_index(op.f("ix_audits_tenant_id"), "audits", ["tenant_id"], unique=False)
    op.create_index(
        "ix_audits_user_created", "audits", ["user_id", "created_at"], unique=False
    )
    op.create_table(
        "audit_citations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("audit_id", sa.Uuid(), nullable=False),
        sa.Column("node_id", sa.Uuid(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("influence", sa.Double(), nullable=True),
        sa.Column("counterfactual_utility", sa.Double(), nullable=True),
        sa.Column("selection_changed", sa.Boolean(), nullable=True),
        sa.Column("kept", sa.Boolean(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["audit_id"], ["audits.id"], name=op.f("fk_audit_citations_audit_id_audits")
        ),
        sa.ForeignKeyConstraint(
            ["node_id"], ["nodes.id"], name=op.f("fk_audit_citations_node_id_nodes")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_citations")),
    )
    op.create_index(
        op.f("ix_audit_citations_audit_id"), "audit_citations", ["audit_id"], unique=False
    )
    op.create_index(
        op.f("ix_audit_citations_node_id"), "audit_citations", ["node_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_audit_citations_node_id"), table_name="audit_citations")
    op.drop_index(op.f("ix_audit_citations_audit_id"), table_name="audit_citations")
    op.drop_table("audit_citations")
    op.drop_index("ix_audits_user_created", table_name="audits")
    op.drop_index(op.f("ix_audits_tenant_id"), table_name="audits")
    op.drop_index(op.f("ix_audits_session_id"), table_name="audits")
    op.drop_table("audits")
