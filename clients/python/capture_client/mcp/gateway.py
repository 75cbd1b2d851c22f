"""`capture gateway`: an MCP server that stands in for an upstream MCP tool server.

The agent's configuration names the gateway where it named the tool server (the upstream's
command or URL moves into the gateway's arguments); the agent's code does not change. The
gateway lists the upstream's tools unchanged, and keeps each tool's declaration (name,
description, input schema, annotations) to pass with its checks, so check-call can
classify a tool the operator's policy does not name. Before forwarding a `tools/call` it
asks Capture's check-call: `allow` forwards the call; `deny` answers a tool error naming the
reasons; `ask` puts the question to the user through an MCP elicitation when the client
supports one (the answer is recorded as the user's event and the call checked again), and
otherwise answers a tool error carrying the question. Every result the upstream returns is
recorded as a `tool_output` event named for the tool before the agent sees it; a result
Capture could not record is withheld.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shlex
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import McpError

from capture_client._base import DEFAULT_BASE_URL
from capture_client.async_client import AsyncCapture
from capture_client.errors import CaptureError
from capture_client.guard import GuardResult
from capture_client.models import ToolAnnotations, ToolDeclaration

log = logging.getLogger("capture.gateway")

# The service refuses event text above its limit (CAPTURE_MAX_EVENT_TEXT_BYTES, 32 KiB by
# default): a longer result is recorded as consecutive events.
DEFAULT_MAX_EVENT_BYTES = 32 * 1024
YES = "Yes, go ahead."
NO = "No, do not run it."
CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "run": {"type": "boolean", "title": "Run it", "description": "Run this tool call?"}
    },
    "required": ["run"],
}


@dataclass(frozen=True)
class Upstream:
    """The tool server behind the gateway: a command to launch over stdio, or a URL."""

    command: list[str] | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError("an upstream is a command or a URL, not both")

    @classmethod
    def parse(cls, target: str | list[str]) -> Upstream:
        """`http(s)://…` is a URL; anything else a command line."""
        if isinstance(target, str) and target.startswith(("http://", "https://")):
            return cls(url=target)
        return cls(command=shlex.split(target) if isinstance(target, str) else list(target))


def upstream_environment() -> dict[str, str]:
    """The gateway's environment, as the agent configured it for the tool server, less
    Capture's own settings: the upstream never sees the Capture API key."""
    return {k: v for k, v in os.environ.items() if not k.startswith("CAPTURE_")}


@asynccontextmanager
async def connect(upstream: Upstream) -> AsyncIterator[ClientSession]:
    """An initialized client session with the upstream server."""
    async with AsyncExitStack() as stack:
        if upstream.command is not None:
            params = StdioServerParameters(
                command=upstream.command[0], args=upstream.command[1:],
                env=dict(upstream.env) if upstream.env is not None else upstream_environment(),
            )
            read, write = await stack.enter_async_context(stdio_client(params))
        else:
            assert upstream.url is not None
            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(upstream.headers))
            )
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(upstream.url, http_client=http)
            )
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        yield session


@dataclass
class GatewayConfig:
    base_url: str = field(default_factory=lambda: os.environ.get("CAPTURE_URL", DEFAULT_BASE_URL))
    api_key: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_API_KEY"))
    user_id: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_USER_ID"))
    session_id: str | None = field(default_factory=lambda: os.environ.get("CAPTURE_SESSION_ID"))
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES


def call_id_of(session_id: str, name: str, arguments: Mapping[str, Any]) -> str:
    """The same call (tool and arguments) in the same session has the same id, so a call
    retried after the user's yes is the call the yes confirmed."""
    canonical = json.dumps([session_id, name, arguments], sort_keys=True, default=str)
    return "gw-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def result_text(result: types.CallToolResult) -> str:
    """What the agent will read of a tool result: its text, embedded resources' text, and
    structured content."""
    parts: list[str] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        elif isinstance(block, types.EmbeddedResource) and isinstance(
            block.resource, types.TextResourceContents
        ):
            parts.append(block.resource.text)
    if result.structuredContent is not None:
        structured = json.dumps(result.structuredContent, ensure_ascii=False, sort_keys=True)
        if structured not in parts:
            parts.append(structured)
    return "\n".join(p for p in parts if p)


def chunks(text: str, max_bytes: int) -> list[str]:
    """`text` cut into pieces of at most `max_bytes` UTF-8 bytes, on character boundaries."""
    out: list[str] = []
    data = text.encode()
    while data:
        piece = data[:max_bytes].decode(errors="ignore")
        out.append(piece)
        data = data[len(piece.encode()):]
    return out


# The service's bounds on a declaration: a longer description is cut, a larger schema is
# not passed (the tool is then judged as one nothing declares).
MAX_DESCRIPTION_CHARS = 4096
MAX_SCHEMA_BYTES = 32 * 1024


def declaration_of(tool: types.Tool) -> ToolDeclaration | None:
    """An upstream tool's declaration as check-call reads it; None when its schema is
    larger than the service accepts."""
    schema = dict(tool.inputSchema or {"type": "object"})
    if len(json.dumps(schema, default=str)) > MAX_SCHEMA_BYTES:
        return None
    annotations = (
        ToolAnnotations.model_validate(tool.annotations.model_dump(exclude_none=True))
        if tool.annotations is not None
        else None
    )
    return ToolDeclaration(
        name=tool.name,
        title=tool.title,
        description=(tool.description or "")[:MAX_DESCRIPTION_CHARS] or None,
        inputSchema=schema,
        annotations=annotations,
    )


def refusal(message: str, guard: GuardResult | None) -> types.CallToolResult:
    """A tool error the agent reads, with check-call's decision in `_meta` for its host."""
    meta: dict[str, Any] | None = None
    if guard is not None:
        meta = {
            "capture/decision": guard.decision,
            "capture/call_id": guard.call_id,
            "capture/reasons": [r.code for r in guard.reasons],
            "capture/trace_id": guard.check.trace_id,
        }
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], isError=True, _meta=meta
    )


def _denial(name: str, guard: GuardResult) -> str:
    reasons = "; ".join(
        f"{r.code}" + (f" ({r.argument})" if r.argument else "") + f": {r.rule}"
        for r in guard.reasons
    )
    return f"Capture blocked {name}: {reasons or 'denied'}. The call was not run."


class Gateway:
    """check-call in front of one upstream session."""

    def __init__(self, upstream: ClientSession, config: GatewayConfig) -> None:
        self.upstream = upstream
        self.config = config
        self.session_id = config.session_id or f"gateway-{uuid.uuid4().hex[:16]}"
        # Each upstream tool's declaration, from its tools/list answers.
        self.declarations: dict[str, ToolDeclaration | None] = {}
        self._listed_all = False
        if not config.user_id:
            raise CaptureError("the gateway needs a user: set CAPTURE_USER_ID or --user-id")
        self.capture = AsyncCapture(
            config.api_key, base_url=config.base_url, user_id=config.user_id,
            session_id=self.session_id,
        )
        self.server: Server[Any, Any] = Server("capture-gateway")
        # Raw handlers: the upstream validates its own arguments and results, and answers
        # its own errors.
        self.server.request_handlers[types.ListToolsRequest] = self._on_list_tools
        self.server.request_handlers[types.CallToolRequest] = self._on_call_tool

    async def _on_list_tools(self, request: types.ListToolsRequest) -> types.ServerResult:
        cursor = request.params.cursor if request.params is not None else None
        listed = await self.upstream.list_tools(cursor=cursor)
        self._learn(listed.tools)
        return types.ServerResult(listed)

    def _learn(self, tools: list[types.Tool]) -> None:
        for tool in tools:
            self.declarations[tool.name] = declaration_of(tool)

    async def declaration(self, name: str) -> ToolDeclaration | None:
        """The tool's declaration as the upstream lists it; the upstream's full list is read
        once when the agent calls a tool the gateway has not seen listed."""
        if name not in self.declarations and not self._listed_all:
            cursor: str | None = None
            while True:
                page = await self.upstream.list_tools(cursor=cursor)
                self._learn(page.tools)
                cursor = page.nextCursor
                if not cursor:
                    break
            self._listed_all = True
        return self.declarations.get(name)

    async def _on_call_tool(self, request: types.CallToolRequest) -> types.ServerResult:
        params = request.params
        return types.ServerResult(await self.call_tool(params.name, params.arguments or {}))

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        call_id = call_id_of(self.session_id, name, arguments)
        try:
            declaration = await self.declaration(name)
        except McpError as exc:  # the upstream could not list: judged as undeclared
            log.warning("listing the upstream's tools failed: %s", exc.error.message)
            declaration = None
        try:
            guard = await self.capture.guard(
                name, arguments, call_id=call_id, declaration=declaration
            )
            if guard.ask is not None:
                guard = await self._ask(guard)
        except CaptureError as exc:
            log.warning("check-call failed for %s: %s", name, type(exc).__name__)
            return refusal(f"Capture could not check {name} ({exc}); the call was not run.", None)
        if guard.denied:
            return refusal(_denial(name, guard), guard)
        if not guard.allowed:
            return refusal(
                f"Capture needs the user's confirmation before {name} runs: {guard.ask} "
                "Ask the user; once they have said yes, call the tool again with the same "
                "arguments.",
                guard,
            )
        result = await self.upstream.call_tool(name, arguments)
        try:
            await self._record(name, result)
        except CaptureError as exc:
            log.warning("recording %s's output failed: %s", name, type(exc).__name__)
            return refusal(
                f"Capture could not record {name}'s output ({exc}); it is withheld.", None
            )
        return result

    async def _ask(self, guard: GuardResult) -> GuardResult:
        """Put check-call's question to the user when the client can elicit; record the
        answer as the user's and check the call again. Unchanged when nobody answered."""
        context = self.server.request_context
        supports = context.session.check_client_capability(
            types.ClientCapabilities(elicitation=types.ElicitationCapability())
        )
        if not supports or guard.ask is None:
            return guard
        answer = await context.session.elicit(
            message=guard.ask, requestedSchema=CONFIRM_SCHEMA, related_request_id=context.request_id
        )
        if answer.action == "cancel":
            return guard
        run = answer.action == "accept" and bool((answer.content or {}).get("run"))
        return await self.capture.confirm(guard, YES if run else NO)

    async def _record(self, name: str, result: types.CallToolResult) -> None:
        text = result_text(result)
        for piece in chunks(text, self.config.max_event_bytes):
            await self.capture.observe(piece, "tool_output", tool_name=name)

    async def run_stdio(self) -> None:
        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())


async def run_gateway(upstream: Upstream, config: GatewayConfig | None = None) -> None:
    """Serve the gateway over stdio in front of `upstream` until the client disconnects."""
    async with connect(upstream) as session:
        gateway = Gateway(session, config or GatewayConfig())
        try:
            await gateway.run_stdio()
        finally:
            await gateway.capture.aclose()
