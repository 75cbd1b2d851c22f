"""`Capture`: the synchronous client."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from capture_client._base import (
    DEFAULT_TIMEOUT,
    OPERATIONS,
    Bindings,
    ClientBase,
    OriginName,
    dump,
    parse,
)
from capture_client._retry import RetryPolicy
from capture_client.errors import APIConnectionError, error_from_response
from capture_client.guard import GuardResult
from capture_client.models import (
    AuditAccepted,
    AuditOut,
    AuditRequest,
    CheckCallRequest,
    CheckCallResponse,
    ClarificationAnswer,
    ClarificationOut,
    ClarificationPage,
    ClarificationStatus,
    ErasureReceipt,
    EventAccepted,
    EventCreate,
    EventDetail,
    EventErasureReceipt,
    KeyIdentity,
    Layer,
    NodeOut,
    NodePage,
    NodePatch,
    NodeState,
    RegisteredTool,
    RegisteredToolPage,
    RetrievalMode,
    RetrieveRequest,
    RetrieveResponse,
    SelectRequest,
    SelectResponse,
    ToolDeclaration,
)


class Capture(ClientBase):
    """Synchronous client for Capture.

    `api_key` and `base_url` default to `CAPTURE_API_KEY` and `CAPTURE_URL`. `user_id` and
    `session_id` are the defaults of the agent-loop helpers (`observe`, `recall`, `guard`,
    ...). Pass `http_client` to use your own `httpx.Client` (its base URL is used as is),
    or `transport` for the one this client creates."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(api_key, base_url, user_id, session_id, retry)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(
            base_url=self.base_url, timeout=timeout, transport=transport
        )

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Capture:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _call(
        self,
        operation_id: str,
        body: BaseModel | None = None,
        params: Mapping[str, str | int] | None = None,
        **path_params: object,
    ) -> Any:
        op = OPERATIONS[operation_id]
        content = dump(body) if body is not None else None
        headers = self._headers(content is not None)
        url = op.url(**path_params)
        retry = 0
        while True:
            try:
                response = self._http.request(
                    op.method, url, params=params, content=content, headers=headers
                )
            except httpx.TransportError as exc:
                retry += 1
                if not self.retry.should_retry_error(exc, retry, idempotent=op.idempotent):
                    raise APIConnectionError(f"{op.method} {url}: {exc!r}") from exc
                time.sleep(self.retry.delay(retry))
                continue
            if response.is_success:
                return parse(op, response)
            retry += 1
            if self.retry.should_retry_status(
                response.status_code, retry, idempotent=op.idempotent
            ):
                wait = self.retry.wait_for(response, retry)
                if wait is not None:
                    response.close()
                    time.sleep(wait)
                    continue
            raise error_from_response(response)

    # Endpoints, named as the spec's operation ids.

    def create_event(self, event: EventCreate, *, wait: bool = False) -> EventAccepted:
        """Write an event the agent read. An idempotency key is added when the event has
        none, so a retried write is stored once. `wait=True` returns the gate's decisions."""
        params = {"wait": "true"} if wait else None
        result: EventAccepted = self._call("create_event", self._with_key(event), params)
        return result

    def get_current_key(self) -> KeyIdentity:
        """The tenant and role of this client's API key (raises AuthenticationError when the
        service does not know the key)."""
        result: KeyIdentity = self._call("get_current_key")
        return result

    def get_event(self, event_id: uuid.UUID | str) -> EventDetail:
        result: EventDetail = self._call("get_event", event_id=event_id)
        return result

    def retrieve(self, request: RetrieveRequest) -> RetrieveResponse:
        result: RetrieveResponse = self._call("retrieve", request)
        return result

    def register_tool(self, declaration: ToolDeclaration) -> RegisteredTool:
        """Declare a tool for the tenant (admin key): check-call classifies it from its
        definition wherever the operator's policy does not name it."""
        result: RegisteredTool = self._call("register_tool", declaration, name=declaration.name)
        return result

    def list_tools(self, *, limit: int = 100, offset: int = 0) -> RegisteredToolPage:
        """The tools the tenant declared, each with how check-call reads it."""
        result: RegisteredToolPage = self._call(
            "list_tools", params={"limit": limit, "offset": offset}
        )
        return result

    def check_call(self, request: CheckCallRequest) -> CheckCallResponse:
        result: CheckCallResponse = self._call("check_call", request)
        return result

    def list_nodes(
        self,
        user_id: str | None = None,
        *,
        state: NodeState | None = None,
        layer: Layer | None = None,
        scope: str | None = None,
        as_of: datetime | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> NodePage:
        params = self._list_nodes_params(state, layer, scope, as_of, limit, offset)
        result: NodePage = self._call("list_nodes", None, params, user_id=self._user(user_id))
        return result

    def get_node(self, node_id: uuid.UUID | str, *, user_id: str | None = None) -> NodeOut:
        result: NodeOut = self._call("get_node", user_id=self._user(user_id), node_id=node_id)
        return result

    def correct_node(
        self, node_id: uuid.UUID | str, patch: NodePatch, *, user_id: str | None = None
    ) -> NodeOut:
        result: NodeOut = self._call(
            "correct_node", patch, user_id=self._user(user_id), node_id=node_id
        )
        return result

    def erase_node(
        self, node_id: uuid.UUID | str, *, user_id: str | None = None
    ) -> ErasureReceipt:
        result: ErasureReceipt = self._call(
            "erase_node", user_id=self._user(user_id), node_id=node_id
        )
        return result

    def erase_event(
        self, event_id: uuid.UUID | str, *, user_id: str | None = None
    ) -> EventErasureReceipt:
        result: EventErasureReceipt = self._call(
            "erase_event", user_id=self._user(user_id), event_id=event_id
        )
        return result

    def list_clarifications(
        self, user_id: str | None = None, *, status: ClarificationStatus | None = None
    ) -> list[ClarificationOut]:
        """The user's questions, every page of them; pending ones unless `status` says
        otherwise."""
        params: dict[str, str | int] = {"user_id": self._user(user_id)}
        if status is not None:
            params["status"] = str(status)
        questions: list[ClarificationOut] = []
        while True:
            page: ClarificationPage = self._call("list_clarifications", None, params)
            questions.extend(page.items)
            if page.next_cursor is None:
                return questions
            params["cursor"] = page.next_cursor

    def answer_clarification(
        self, clarification_id: uuid.UUID | str, body: ClarificationAnswer
    ) -> ClarificationOut:
        result: ClarificationOut = self._call(
            "answer_clarification", body, clarification_id=clarification_id
        )
        return result

    def select(self, request: SelectRequest) -> SelectResponse:
        result: SelectResponse = self._call("select", request)
        return result

    def create_audit(self, request: AuditRequest) -> AuditAccepted:
        result: AuditAccepted = self._call("create_audit", request)
        return result

    def get_audit(self, audit_id: uuid.UUID | str) -> AuditOut:
        result: AuditOut = self._call("get_audit", audit_id=audit_id)
        return result

    # The agent loop.

    def observe(
        self,
        text: str,
        origin: OriginName,
        *,
        tool_name: str | None = None,
        source_uri: str | None = None,
        domain: str | None = None,
        occurred_at: datetime | None = None,
        wait: bool = False,
        idempotency_key: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> EventAccepted:
        """Record what the agent read and where it came from: `user` for the user's own
        turns; `tool_output`, `retrieved_document` or `shared_file` for everything else."""
        event = self._event_body(
            text,
            origin,
            tool_name=tool_name,
            source_uri=source_uri,
            domain=domain,
            occurred_at=occurred_at,
            idempotency_key=idempotency_key,
            user_id=user_id,
            session_id=session_id,
        )
        return self.create_event(event, wait=wait)

    def recall(
        self,
        query: str,
        *,
        k: int = 12,
        mode: RetrievalMode = "tool",
        domain: str | None = None,
        at: datetime | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> RetrieveResponse:
        """Admitted memories for `query`. `mode="context"` when the framework assembles
        context rather than the agent calling a memory tool."""
        return self.retrieve(
            self._retrieve_body(
                query, k=k, mode=mode, domain=domain, at=at, user_id=user_id,
                session_id=session_id,
            )
        )

    def guard(
        self,
        tool_name: str,
        args: Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
        arg_bindings: Bindings | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        declaration: ToolDeclaration | Mapping[str, Any] | None = None,
    ) -> GuardResult:
        """Check a tool call before running it: `.allowed`, `.ask` (the question for the
        user) or `.denied` (with `.reasons`). `declaration`: the tool's definition in the
        MCP `Tool` shape, for a tool the operator's policy does not name."""
        request = self._check_body(
            tool_name, args, call_id=call_id, arg_bindings=arg_bindings, user_id=user_id,
            session_id=session_id, declaration=declaration,
        )
        return self._guard_result(request, self.check_call(request))

    def confirm(self, result: GuardResult, reply: str) -> GuardResult:
        """Record the user's reply to `result.ask` as a user turn and check the same call
        again: a yes allows it, a no denies it."""
        self.observe(reply, "user", user_id=result.user_id, session_id=result.session_id)
        return self.guard(
            result.tool_name,
            result.args,
            call_id=result.call_id,
            arg_bindings=result.arg_bindings,
            user_id=result.user_id,
            session_id=result.session_id,
            declaration=result.declaration,
        )

    def questions(self, user_id: str | None = None) -> list[ClarificationOut]:
        """The clarifying questions waiting for the user's answer."""
        return self.list_clarifications(user_id)

    def answer(
        self,
        clarification_id: uuid.UUID | str,
        answer: Literal["confirm", "reject", "scope"],
        *,
        scope: str | None = None,
    ) -> ClarificationOut:
        """The user's answer to a clarifying question: `confirm` remembers the claim,
        `reject` forgets it, `scope` keeps it only within `scope`."""
        return self.answer_clarification(
            clarification_id, ClarificationAnswer(answer=answer, scope=scope)
        )
