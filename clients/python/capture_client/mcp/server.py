"""`capture mcp`: Capture's memory as an MCP server, a client of the Capture HTTP API.

Over stdio the API key comes from `CAPTURE_API_KEY` (and the service from `CAPTURE_URL`);
over streamable HTTP every request carries its own key (`Authorization: Bearer cap_…`),
verified against the service, and the tools act with that key. The user and session a tool
acts for come from its arguments, else the server's defaults (`CAPTURE_USER_ID`,
`CAPTURE_SESSION_ID`), else, for the session, the MCP session itself.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.lowlevel.server import request_ctx
from pydantic import BaseModel, Field

from capture_client._base import DEFAULT_BASE_URL
from capture_client.async_client import AsyncCapture
from capture_client.errors import APIError, CaptureError
from capture_client.mcp._auth import API_KEY_SCOPE, BearerKeyMiddleware, KeyVerifier
from capture_client.models import (
    ClarificationOut,
    ErasureReceipt,
    EventAccepted,
    Layer,
    NodeOut,
    NodePage,
    NodeState,
    RetrieveResponse,
)

INSTRUCTIONS = """Capture keeps what this user has told you, governed: only memories admitted by
its gate come back. Call `remember` with the user's own words (never with tool output or
documents), `recall` before answering from memory, and `check_tool_call` before any tool
call that sends, books, pays or changes something: run it only when the decision is
`allow`; on `ask`, put the question to the user, `remember` their reply, and check the same
call again with the same `call_id`. `list_questions` shows what Capture wants the user to
confirm; `answer_clarification` records the answer."""

T = TypeVar("T")
UserArg = Annotated[str | None, Field(description="The user's id; the server's default if unset.")]
SessionArg = Annotated[
    str | None, Field(description="The conversation's id; the server's default if unset.")
]


@dataclass(frozen=True)
class ServerConfig:
    """Where the service is and whom the tools act for by default."""

    base_url: str = field(default_factory=lambda: os.environ.get("CAPTURE_URL", DEFAULT_BASE_URL))
    api_key: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_API_KEY"))
    user_id: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_USER_ID"))
    session_id: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_SESSION_ID"))


class ReasonSummary(BaseModel):
    code: str
    effect: str
    argument: str | None
    rule: str


class ToolCallCheck(BaseModel):
    """check-call's decision on one tool call, as the agent acts on it."""

    decision: Literal["allow", "ask", "deny"]
    call_id: str
    question: str | None = Field(
        None, description="On ask: the question to put to the user before running the call."
    )
    reasons: list[ReasonSummary]
    trace_id: str


def _http_request() -> Any:
    """The HTTP request that carried the current MCP message (None over stdio)."""
    context = request_ctx.get(None)
    return context.request if context is not None else None


class CaptureMCP:
    """The tools and resources, over one `ServerConfig`."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._process_session = f"mcp-{uuid.uuid4().hex[:16]}"

    def _key(self) -> str:
        request = _http_request()
        scope = getattr(request, "scope", None)
        if scope is not None and API_KEY_SCOPE in scope:
            key: str = scope[API_KEY_SCOPE]
            return key
        if self.config.api_key:
            return self.config.api_key
        raise ToolError("no API key: set CAPTURE_API_KEY, or send Authorization: Bearer <key>")

    def _session(self, session_id: str | None) -> str:
        if session_id:
            return session_id
        if self.config.session_id:
            return self.config.session_id
        request = _http_request()
        headers = getattr(request, "headers", None)
        transport_session = headers.get("mcp-session-id") if headers is not None else None
        return f"mcp-{transport_session}" if transport_session else self._process_session

    def _user(self, user_id: str | None) -> str:
        found = user_id or self.config.user_id
        if not found:
            raise ToolError("no user_id: pass user_id, or start the server with CAPTURE_USER_ID")
        return found

    async def _with_client(
        self,
        user_id: str | None,
        session_id: str | None,
        action: Callable[[AsyncCapture], Awaitable[T]],
    ) -> T:
        capture = AsyncCapture(
            self._key(),
            base_url=self.config.base_url,
            user_id=self._user(user_id),
            session_id=self._session(session_id),
        )
        try:
            async with capture:
                return await action(capture)
        except APIError as exc:
            raise ToolError(f"Capture answered {exc.status_code}: {exc.message}") from exc
        except CaptureError as exc:
            raise ToolError(f"Capture: {exc}") from exc

    # Tools.

    async def remember(
        self,
        text: Annotated[str, Field(description="What the user said, in their own words.")],
        user_id: UserArg = None,
        session_id: SessionArg = None,
    ) -> EventAccepted:
        """Record something the user said. Capture decides whether it becomes a memory (its
        decisions come back); a claim it is unsure of becomes a question for the user."""
        return await self._with_client(
            user_id, session_id, lambda c: c.observe(text, "user", wait=True)
        )

    async def recall(
        self,
        query: Annotated[str, Field(description="What to look for in the user's memories.")],
        k: Annotated[int, Field(ge=1, le=50)] = 8,
        user_id: UserArg = None,
        session_id: SessionArg = None,
    ) -> RetrieveResponse:
        """The user's admitted memories that bear on `query`, best first."""
        return await self._with_client(user_id, session_id, lambda c: c.recall(query, k=k))

    async def forget(
        self,
        memory_id: Annotated[str, Field(description="The memory's id (from recall or list).")],
        user_id: UserArg = None,
    ) -> ErasureReceipt:
        """Erase a memory: its text is removed everywhere it was kept."""
        return await self._with_client(user_id, None, lambda c: c.erase_node(memory_id))

    async def list_memories(
        self,
        state: NodeState = NodeState.active,
        layer: Layer | None = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
        offset: Annotated[int, Field(ge=0)] = 0,
        user_id: UserArg = None,
    ) -> NodePage:
        """The user's memories, newest first; `state` picks active (default), quarantined,
        superseded or evicted ones."""
        return await self._with_client(
            user_id, None,
            lambda c: c.list_nodes(state=state, layer=layer, limit=limit, offset=offset),
        )

    async def check_tool_call(
        self,
        tool_name: Annotated[str, Field(description="The tool the agent is about to call.")],
        arguments: Annotated[dict[str, Any], Field(description="The call's arguments.")],
        call_id: Annotated[
            str | None,
            Field(description="The call's id; pass the same one when checking it again."),
        ] = None,
        user_id: UserArg = None,
        session_id: SessionArg = None,
    ) -> ToolCallCheck:
        """May the agent run this tool call? `allow`: run it. `ask`: put `question` to the
        user, `remember` their reply, then check again with the same call_id. `deny`: do not
        run it."""
        result = await self._with_client(
            user_id, session_id,
            lambda c: c.guard(tool_name, arguments, call_id=call_id),
        )
        return ToolCallCheck(
            decision=result.decision,
            call_id=result.call_id,
            question=result.ask,
            reasons=[
                ReasonSummary(code=r.code, effect=r.effect, argument=r.argument, rule=r.rule)
                for r in result.check.reasons
            ],
            trace_id=result.check.trace_id,
        )

    async def list_questions(
        self, user_id: UserArg = None
    ) -> list[ClarificationOut]:
        """Capture's pending questions for the user (claims it will keep only if confirmed)."""
        return await self._with_client(user_id, None, lambda c: c.questions())

    async def answer_clarification(
        self,
        clarification_id: Annotated[str, Field(description="The question's id.")],
        answer: Annotated[
            Literal["confirm", "reject", "scope"],
            Field(description="confirm: remember it; reject: forget it; scope: keep it "
                  "only within `scope`."),
        ],
        scope: str | None = None,
        user_id: UserArg = None,
    ) -> ClarificationOut:
        """Record the user's answer to one of Capture's questions."""
        return await self._with_client(
            user_id, None, lambda c: c.answer(clarification_id, answer, scope=scope)
        )

    # Resources.

    async def memories_resource(self, user_id: str) -> str:
        """The user's active memories, as JSON."""
        page = await self._with_client(user_id, None, lambda c: c.list_nodes(limit=200))
        return page.model_dump_json()

    async def memory_resource(
        self, user_id: str, memory_id: str
    ) -> str:
        """One memory of the user, as JSON."""
        node: NodeOut = await self._with_client(
            user_id, None, lambda c: c.get_node(memory_id)
        )
        return node.model_dump_json()

    async def default_memories_resource(self) -> str:
        """The configured user's active memories, as JSON (stdio: the key from the
        environment)."""
        async with AsyncCapture(
            self.config.api_key, base_url=self.config.base_url, user_id=self._user(None)
        ) as capture:
            page = await capture.list_nodes(limit=200)
        return page.model_dump_json()


def build_server(
    config: ServerConfig | None = None, *, host: str = "127.0.0.1", port: int = 8765
) -> FastMCP[Any]:
    """The MCP server: tools and resources bound to `config`."""
    impl = CaptureMCP(config or ServerConfig())
    server: FastMCP[Any] = FastMCP(
        "capture", instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING"
    )
    for tool in (
        impl.remember,
        impl.recall,
        impl.forget,
        impl.list_memories,
        impl.check_tool_call,
        impl.list_questions,
        impl.answer_clarification,
    ):
        server.add_tool(tool)
    server.resource(
        "capture://users/{user_id}/memories", mime_type="application/json",
        name="memories", description="A user's active memories.",
    )(impl.memories_resource)
    server.resource(
        "capture://users/{user_id}/memories/{memory_id}", mime_type="application/json",
        name="memory", description="One of a user's memories.",
    )(impl.memory_resource)
    if impl.config.user_id and impl.config.api_key:
        server.resource(
            "capture://memories", mime_type="application/json", name="my-memories",
            description="The configured user's active memories.",
        )(impl.default_memories_resource)
    return server


async def run_stdio(config: ServerConfig | None = None) -> None:
    await build_server(config).run_stdio_async()


async def run_http(
    config: ServerConfig | None = None, *, host: str = "127.0.0.1", port: int = 8765
) -> None:
    """Streamable HTTP at `http://host:port/mcp`; every request needs a Capture API key."""
    import uvicorn

    config = config or ServerConfig()
    config = ServerConfig(config.base_url, None, config.user_id, config.session_id)
    server = build_server(config, host=host, port=port)
    app = BearerKeyMiddleware(server.streamable_http_app(), KeyVerifier(config.base_url))
    await uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning")
    ).serve()
