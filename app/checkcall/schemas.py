from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.checkcall.declaration import TOOL_NAME, ToolDeclaration
from app.checkcall.policy import SideEffect, ToolSource
from app.core.inputs import EXTERNAL_ID, SAFE_TEXT_PATTERN, STORABLE_JSON_REF, storable_json
from app.models import ToolCheck

MAX_ARGS = 64


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=TOOL_NAME, description="The tool's name as the policy names it.")
    args: dict[str, Any] = Field(
        default_factory=dict,
        description="The arguments the agent is about to pass, as JSON.",
        json_schema_extra={"maxProperties": MAX_ARGS,
                           "propertyNames": {"pattern": SAFE_TEXT_PATTERN},
                           "additionalProperties": {"$ref": STORABLE_JSON_REF}},
    )
    declaration: ToolDeclaration | None = Field(
        default=None,
        description="Optional: the tool's own definition in the MCP `Tool` shape (as its "
        "server lists it in `tools/list`). Check-call classifies the tool from it where "
        "neither the operator's policy file nor a registered declaration names the tool.",
    )

    @field_validator("args")
    @classmethod
    def _storable(cls, value: dict[str, Any]) -> dict[str, Any]:
        storable_json(value)
        return value

    @model_validator(mode="after")
    def _bounded(self) -> ToolCall:
        if len(self.args) > MAX_ARGS:
            raise ValueError(f"at most {MAX_ARGS} arguments")
        return self


class ArgBinding(BaseModel):
    """Where the agent says an argument's value came from: one node or one event."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"oneOf": [
            {"required": ["node_id"], "properties": {"node_id": {"type": "string"}}},
            {"required": ["event_id"], "properties": {"event_id": {"type": "string"}}},
        ]},
    )

    node_id: uuid.UUID | None = None
    event_id: uuid.UUID | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> ArgBinding:
        if (self.node_id is None) == (self.event_id is None):
            raise ValueError("give exactly one of node_id, event_id")
        return self


class CheckCallRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "user_id": "alice",
                    "session_id": "s2",
                    "tool": {
                        "name": "send_email",
                        "args": {
                            "recipients": ["dana@reyes-cpa.example"],
                            "subject": "Q3",
                            "body": "Attached.",
                        },
                    },
                    "call_id": "call-7",
                }
            ]
        },
    )

    user_id: str = Field(pattern=EXTERNAL_ID)
    session_id: str = Field(pattern=EXTERNAL_ID)
    tool: ToolCall
    call_id: str | None = Field(
        default=None,
        pattern=EXTERNAL_ID,
        description="The agent's id for this call. Re-check the same call (same id, same "
        "arguments) after the user answered an `ask`; a yes written as a user event turns "
        "the asks into `allow`, a no into `deny`.",
    )
    arg_bindings: dict[str, list[ArgBinding]] | None = Field(
        default=None,
        description="Optional: the nodes or events the agent took each argument from. A "
        "binding is verified against content and never lowers a decision.",
    )

    @model_validator(mode="after")
    def _bounded_bindings(self) -> CheckCallRequest:
        if self.arg_bindings and sum(len(v) for v in self.arg_bindings.values()) > MAX_ARGS:
            raise ValueError(f"at most {MAX_ARGS} bindings")
        return self


Decision = Literal["allow", "ask", "deny"]


class EvidenceRef(BaseModel):
    kind: Literal["node", "event", "retrieval", "tool_check"]
    id: uuid.UUID


class ReasonOut(BaseModel):
    code: str = Field(description="Stable machine-readable code (docs/checkcall.md).")
    effect: Literal["allow", "ask", "deny", "info"]
    rule: str
    argument: str | None = None
    evidence: list[EvidenceRef]


class SourceOut(BaseModel):
    kind: str = Field(
        description="allowlist, user_utterance, user_mentioned, user_memory, user_confirmed, "
        "requested_record, "
        "untrusted_data, untrusted_memory, pasted_content, directive, injected_instruction, "
        "quarantined_memory"
    )
    origin: str | None = None
    session: Literal["this", "other"] | None = None
    event_id: uuid.UUID | None = None
    node_id: uuid.UUID | None = None
    node_state: str | None = None
    retrieval_ids: list[uuid.UUID] = Field(default_factory=list)
    declared: bool = Field(default=False, description="Named by the request's arg_bindings.")


class ValueProvenance(BaseModel):
    """One atomic value of an argument (never echoed: its kind and a hash)."""

    index: int
    kind: str
    value_sha256: str
    in_content: bool = Field(description="Found inside a free-text content argument.")
    external: bool
    verdict: Literal["allow", "ask", "deny"] | None
    code: str | None
    sources: list[SourceOut]


class CheckCallResponse(BaseModel):
    decision: Decision
    reasons: list[ReasonOut]
    arg_provenance: dict[str, list[ValueProvenance]]
    features: dict[str, Any] = Field(
        description="Trajectory features (paper §2.3) and session signals: triage only."
    )
    triage_score: float = Field(
        description="0–1 ranking for review queues; never an input to the decision."
    )
    side_effect: SideEffect
    tool_source: ToolSource = Field(
        description="What classified the tool: `policy` (the operator's policy file names "
        "it), `registered` (a declaration the tenant's admin registered), `declaration` "
        "(the declaration passed with the call) or `default` (nothing declares it: the "
        "fail-closed default). A tool the file names only by a pattern is `registered` or "
        "`declaration` where its declaration made it stricter."
    )
    policy_version: str
    decision_id: uuid.UUID | None = Field(
        description="The recorded check; null when the tenant never wrote an event for the "
        "user (the decision stands but is not recorded)."
    )
    trace_id: str


class ToolCheckOut(BaseModel):
    """A recorded check-call decision with its evidence (ids and hashes, never values)."""

    id: uuid.UUID
    user_id: str
    call_id: str | None
    tool_name: str
    decision: Decision
    reasons: list[dict[str, Any]]
    evidence_node_ids: list[str]
    evidence_event_ids: list[str]
    arg_provenance: dict[str, Any]
    side_effect: str | None
    triage_score: float | None
    policy_version: str
    trace_id: str
    created_at: datetime

    @classmethod
    def of(cls, c: ToolCheck, user_id: str) -> ToolCheckOut:
        return cls(
            id=c.id,
            user_id=user_id,
            call_id=c.call_id,
            tool_name=c.tool_name,
            decision=c.decision,
            reasons=c.reasons,
            evidence_node_ids=c.evidence_node_ids,
            evidence_event_ids=c.evidence_event_ids,
            arg_provenance=c.arg_provenance,
            side_effect=c.side_effect,
            triage_score=c.triage_score,
            policy_version=c.policy_version,
            trace_id=c.trace_id,
            created_at=c.created_at,
        )


class ToolCheckPage(BaseModel):
    items: list[ToolCheckOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class SinkOut(BaseModel):
    kind: str
    risk: Literal["high", "low"]
    external: bool


class ToolClassification(BaseModel):
    """How check-call reads a declared tool."""

    side_effect: SideEffect
    sinks: dict[str, SinkOut]
    content: list[str]


class RegisteredTool(BaseModel):
    name: str
    declaration: ToolDeclaration
    classification: ToolClassification
    created_at: datetime
    updated_at: datetime


class RegisteredToolPage(BaseModel):
    tools: list[RegisteredTool]
    total: int
    limit: int
    offset: int
