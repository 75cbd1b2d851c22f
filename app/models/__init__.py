"""All tables; importing this package registers them on Base.metadata."""

from app.models.audit import Audit, AuditCitation
from app.models.base import Base
from app.models.clarification import Clarification
from app.models.decision import Decision
from app.models.event import Event
from app.models.gate_state import GateState
from app.models.hypothesis import HypothesisRow
from app.models.lifecycle import UserErasure
from app.models.node import Edge, Node, NodeLineage, NodeVersion
from app.models.retrieval import Retrieval, RetrievalResult, ToolCheck
from app.models.span import SpanRow
from app.models.tenant import AgentSession, ApiKey, Tenant, User
from app.models.tool_declaration import ToolDeclarationRow
from app.models.webhook import WebhookAttempt, WebhookDelivery, WebhookEndpoint

__all__ = [
    "AgentSession",
    "ApiKey",
    "Audit",
    "AuditCitation",
    "Base",
    "Clarification",
    "Decision",
    "Edge",
    "Event",
    "GateState",
    "HypothesisRow",
    "Node",
    "NodeLineage",
    "NodeVersion",
    "Retrieval",
    "RetrievalResult",
    "SpanRow",
    "Tenant",
    "ToolCheck",
    "ToolDeclarationRow",
    "User",
    "UserErasure",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]
