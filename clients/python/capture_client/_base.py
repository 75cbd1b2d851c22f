"""What the sync and async clients share: the operations they call, request bodies for the
agent-loop helpers, and response parsing."""

from __future__ import annotations

import copy
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Self
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from capture_client._retry import RetryPolicy
from capture_client.errors import CaptureError
from capture_client.guard import GuardResult
from capture_client.models import (
    ArgBinding,
    AuditAccepted,
    AuditOut,
    AuditRequest,
    CheckCallRequest,
    CheckCallResponse,
    ClarificationAnswer,
    ClarificationOut,
    ClarificationPage,
    ErasureReceipt,
    EventAccepted,
    EventCreate,
    EventDetail,
    EventErasureReceipt,
    KeyIdentity,
    NodeOut,
    NodePage,
    NodePatch,
    Origin,
    RegisteredTool,
    RegisteredToolPage,
    RetrievalMode,
    RetrieveRequest,
    RetrieveResponse,
    SelectRequest,
    SelectResponse,
    ToolCall,
    ToolDeclaration,
)

__version__ = "0.1.0"
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = 30.0
USER_AGENT = f"capture-client/{__version__}"

OriginName = Origin | Literal["user", "retrieved_document", "tool_output", "shared_file"]
Bindings = Mapping[str, Sequence[ArgBinding]]


@dataclass(frozen=True, slots=True)
class Operation:
    """One endpoint: `operation_id` is the spec's operationId. `idempotent`: repeating the
    request cannot do the work twice (see RetryPolicy)."""

    operation_id: str
    method: str
    path: str
    request: type[Any] | None
    response: Any
    idempotent: bool

    def url(self, **path_params: object) -> str:
        return self.path.format(**{k: quote(str(v), safe="") for k, v in path_params.items()})


_OPERATIONS = (
    # Every event write carries an idempotency key, so a repeated write returns the first.
    Operation("create_event", "POST", "/v1/events", EventCreate, EventAccepted, True),
    Operation("get_event", "GET", "/v1/events/{event_id}", None, EventDetail, True),
    Operation("retrieve", "POST", "/v1/retrieve", RetrieveRequest, RetrieveResponse, True),
    Operation("check_call", "POST", "/v1/check-call", CheckCallRequest, CheckCallResponse, True),
    Operation("list_nodes", "GET", "/v1/users/{user_id}/nodes", None, NodePage, True),
    Operation("get_node", "GET", "/v1/users/{user_id}/nodes/{node_id}", None, NodeOut, True),
    Operation(
        "correct_node", "PATCH", "/v1/users/{user_id}/nodes/{node_id}", NodePatch, NodeOut, False
    ),
    Operation(
        "erase_node", "DELETE", "/v1/users/{user_id}/nodes/{node_id}", None, ErasureReceipt, True
    ),
    Operation(
        "erase_event",
        "DELETE",
        "/v1/users/{user_id}/events/{event_id}",
        None,
        EventErasureReceipt,
        True,
    ),
    Operation(
        "list_clarifications", "GET", "/v1/clarifications", None, ClarificationPage, True
    ),
    Operation(
        "answer_clarification",
        "POST",
        "/v1/clarifications/{clarification_id}/answer",
        ClarificationAnswer,
        ClarificationOut,
        False,
    ),
    Operation("select", "POST", "/v1/select", SelectRequest, SelectResponse, True),
    Operation("create_audit", "POST", "/v1/audit", AuditRequest, AuditAccepted, False),
    Operation("get_audit", "GET", "/v1/audit/{audit_id}", None, AuditOut, True),
    Operation("get_current_key", "GET", "/v1/keys/me", None, KeyIdentity, True),
    Operation("register_tool", "PUT", "/v1/tools/{name}", ToolDeclaration, RegisteredTool, True),
    Operation("list_tools", "GET", "/v1/tools", None, RegisteredToolPage, True),
)
OPERATIONS: dict[str, Operation] = {op.operation_id: op for op in _OPERATIONS}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    op.operation_id: TypeAdapter(op.response) for op in _OPERATIONS
}


def parse(operation: Operation, response: httpx.Response) -> Any:
    return _ADAPTERS[operation.operation_id].validate_json(response.content)


def dump(body: BaseModel) -> bytes:
    """A request body as JSON, optional fields left out when None (values inside tool
    arguments are kept as they are)."""
    return body.model_dump_json(exclude_none=True).encode()


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


class ClientBase:
    """Configuration and request bodies shared by `Capture` and `AsyncCapture`."""

    def __init__(
        self,
        api_key: str | None,
        base_url: str | None,
        user_id: str | None,
        session_id: str | None,
        retry: RetryPolicy | None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("CAPTURE_API_KEY")
        if not key:
            raise CaptureError("no API key: pass api_key= or set CAPTURE_API_KEY")
        self.api_key = key
        self.base_url = base_url or os.environ.get("CAPTURE_URL") or DEFAULT_BASE_URL
        self.user_id = user_id
        self.session_id = session_id
        self.retry = retry or RetryPolicy()

    def with_session(self, user_id: str | None = None, session_id: str | None = None) -> Self:
        """The same client (sharing its connections) with other default user and session."""
        other = copy.copy(self)
        other.user_id = user_id if user_id is not None else self.user_id
        other.session_id = session_id if session_id is not None else self.session_id
        return other

    def _headers(self, has_body: bool) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers

    def _user(self, user_id: str | None) -> str:
        found = user_id or self.user_id
        if not found:
            raise CaptureError("no user_id: pass user_id= or set it on the client")
        return found

    def _ids(self, user_id: str | None, session_id: str | None) -> tuple[str, str]:
        session = session_id or self.session_id
        if not session:
            raise CaptureError("no session_id: pass session_id= or set it on the client")
        return self._user(user_id), session

    def _event_body(
        self,
        text: str,
        origin: OriginName,
        *,
        tool_name: str | None,
        source_uri: str | None,
        domain: str | None,
        occurred_at: datetime | None,
        idempotency_key: str | None,
        user_id: str | None,
        session_id: str | None,
    ) -> EventCreate:
        user, session = self._ids(user_id, session_id)
        return EventCreate(
            user_id=user,
            session_id=session,
            origin=Origin(origin),
            text=text,
            occurred_at=occurred_at or datetime.now(UTC),
            tool_name=tool_name,
            source_uri=source_uri,
            domain=domain,
            idempotency_key=idempotency_key or new_idempotency_key(),
        )

    @staticmethod
    def _with_key(event: EventCreate) -> EventCreate:
        if event.idempotency_key is not None:
            return event
        return event.model_copy(update={"idempotency_key": new_idempotency_key()})

    def _retrieve_body(
        self,
        query: str,
        *,
        k: int,
        mode: RetrievalMode,
        domain: str | None,
        at: datetime | None,
        user_id: str | None,
        session_id: str | None,
    ) -> RetrieveRequest:
        user, session = self._ids(user_id, session_id)
        return RetrieveRequest(
            user_id=user, session_id=session, query=query, k=k, mode=mode, domain=domain, at=at
        )

    def _check_body(
        self,
        tool_name: str,
        args: Mapping[str, Any] | None,
        *,
        call_id: str | None,
        arg_bindings: Bindings | None,
        user_id: str | None,
        session_id: str | None,
        declaration: ToolDeclaration | Mapping[str, Any] | None = None,
    ) -> CheckCallRequest:
        user, session = self._ids(user_id, session_id)
        declared = (
            ToolDeclaration.model_validate(declaration, from_attributes=True)
            if declaration is not None and not isinstance(declaration, ToolDeclaration)
            else declaration
        )
        return CheckCallRequest(
            user_id=user,
            session_id=session,
            tool=ToolCall(name=tool_name, args=dict(args or {}), declaration=declared),
            call_id=call_id or f"call-{uuid.uuid4().hex}",
            arg_bindings=(
                {name: list(bs) for name, bs in arg_bindings.items()} if arg_bindings else None
            ),
        )

    @staticmethod
    def _guard_result(request: CheckCallRequest, check: CheckCallResponse) -> GuardResult:
        return GuardResult.from_check(request, check)

    @staticmethod
    def _list_nodes_params(
        state: str | None,
        layer: str | None,
        scope: str | None,
        as_of: datetime | None,
        limit: int,
        offset: int,
    ) -> dict[str, str | int]:
        params: dict[str, str | int] = {"limit": limit, "offset": offset}
        for name, value in (("state", state), ("layer", layer), ("scope", scope)):
            if value is not None:
                params[name] = str(value)
        if as_of is not None:
            params["as_of"] = as_of.isoformat()
        return params
