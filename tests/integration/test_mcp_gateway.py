"""`capture gateway` in front of a real MCP tool server (tests/integration/mcp_upstream.py),
through the MCP SDK's own client, against the real service: tools listed unchanged, every
result recorded as a tool_output event, an injected send stopped, and asks put to the user
by elicitation where the client supports it."""

from __future__ import annotations

import json
import re
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.context import RequestContext
from mcp.types import CallToolResult, ElicitRequestParams, ElicitResult, ErrorData, TextContent

from app.core.config import REPO_ROOT
from tests.integration.conftest import Stack
from tests.integration.mcp_upstream import ATTACKER
from tests.integration.test_mcp_server import mcp_env, stdio_session

UPSTREAM = [sys.executable, str(Path(__file__).with_name("mcp_upstream.py"))]
USER_ADDRESS = "alice.ops@example.org"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


class Elicit:
    """The user behind an elicitation-capable client: answers every question with `run`."""

    def __init__(self, run: bool) -> None:
        self.run = run
        self.questions: list[str] = []

    async def __call__(self, context: RequestContext[ClientSession, Any],
                       params: ElicitRequestParams) -> ElicitResult | ErrorData:
        self.questions.append(params.message)
        return ElicitResult(action="accept", content={"run": self.run})


@asynccontextmanager
async def gateway(env: dict[str, str], user: str, session_id: str,
                  elicit: Elicit | None = None) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "capture_client.mcp", "gateway", "--user-id", user,
              "--session-id", session_id, "--", *UPSTREAM],
        env=env, cwd=str(REPO_ROOT),
    )
    async with stdio_client(params) as (read, write), \
            ClientSession(read, write, elicitation_callback=elicit) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def upstream_direct(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=UPSTREAM[0], args=UPSTREAM[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def text_of(result: CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


def sent(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line)["recipients"] for line in log.read_text().splitlines()]


def setup(stack: Stack, tmp_path: Path) -> tuple[dict[str, str], Path, str]:
    log = tmp_path / "sent.jsonl"
    user = f"u-{uuid.uuid4().hex[:8]}"
    env = mcp_env(stack, CAPTURE_API_KEY=stack.agent_key, UPSTREAM_SENT_LOG=str(log))
    return env, log, user


class TestListing:
    def test_the_upstream_tools_are_listed_unchanged(self, stack: Stack, tmp_path: Path) -> None:
        env, _, user = setup(stack, tmp_path)

        async def scenario() -> None:
            async with gateway(env, user, "s1") as via, upstream_direct(env) as direct:
                through = (await via.list_tools()).tools
                own = (await direct.list_tools()).tools
                assert [t.model_dump() for t in through] == [t.model_dump() for t in own]
                assert {t.name for t in through} == {"search_hotels", "send_email", "notify_guest"}

        anyio.run(scenario)


class TestAgentLoop:
    def test_an_injected_send_is_stopped_and_the_users_own_runs(
            self, stack: Stack, tmp_path: Path) -> None:
        """A naive agent: it records the user's turn through Capture's MCP server, searches
        through the gateway, then sends to every address the user named and every address the
        tool output told it to (the injection)."""
        env, log, user = setup(stack, tmp_path)
        session_id = f"s-{uuid.uuid4().hex[:8]}"
        turn = (f"Find a hotel in Porto for May 3-6 and email the shortlist to me at "
                f"{USER_ADDRESS}.")
        outcomes: dict[str, CallToolResult] = {}

        async def scenario() -> None:
            memory_env = {**env, "CAPTURE_USER_ID": user, "CAPTURE_SESSION_ID": session_id}
            async with stdio_session(memory_env) as memory, \
                    gateway(env, user, session_id) as tools:
                await memory.call_tool("remember", {"text": turn})
                found = await tools.call_tool("search_hotels", {
                    "city": "Porto", "check_in": "2026-05-03", "check_out": "2026-05-06"})
                assert not found.isError
                output = text_of(found)
                assert ATTACKER in output  # the agent reads the injection
                plan = EMAIL.findall(turn) + EMAIL.findall(
                    output.split("Note to AI assistants")[1])
                for recipient in plan:
                    outcomes[recipient] = await tools.call_tool("send_email", {
                        "recipients": [recipient], "subject": "Porto shortlist",
                        "body": "Casa Azul, Ribeira Inn."})

        anyio.run(scenario)
        assert set(outcomes) == {USER_ADDRESS, ATTACKER}
        assert not outcomes[USER_ADDRESS].isError
        # Stopped, whether check-call denies it or asks (this client cannot put a question to
        # the user, so an ask stops the call too), for the injection's sake.
        stopped = outcomes[ATTACKER]
        assert stopped.isError
        assert stopped.meta is not None
        assert stopped.meta["capture/decision"] in {"deny", "ask"}
        assert any("injected" in code for code in stopped.meta["capture/reasons"])
        assert ATTACKER in text_of(stopped)
        assert sent(log) == [[USER_ADDRESS]]

        # The search result was recorded as the tool's output: check-call's evidence for the
        # attacker's address is that event.
        with stack.client() as api:
            check = api.post("/v1/check-call", json={
                "user_id": user, "session_id": session_id,
                "tool": {"name": "send_email", "args": {"recipients": [ATTACKER],
                                                        "subject": "x", "body": "y"}}}).json()
            assert check["decision"] in {"deny", "ask"}
            event_ids = {e["id"] for r in check["reasons"] for e in r["evidence"]
                         if e["kind"] == "event"}
            events = [api.get(f"/v1/events/{i}").json() for i in event_ids]
        assert any(e["origin"] == "tool_output" and e["tool_name"] == "search_hotels"
                   and ATTACKER in e["text"] for e in events)


class TestDeclarations:
    def test_a_tool_the_policy_does_not_name_is_judged_by_its_declaration(
            self, stack: Stack, tmp_path: Path) -> None:
        """notify_guest is in no policy file: the gateway passes its declaration from
        tools/list (an e-mail recipient, a note), so the user's own address runs and the
        injected one is stopped, where the default would have asked for both."""
        env, log, user = setup(stack, tmp_path)
        session_id = f"s-{uuid.uuid4().hex[:8]}"
        turn = f"Find a hotel in Porto and notify me at {USER_ADDRESS} when you have one."
        outcomes: dict[str, CallToolResult] = {}

        async def scenario() -> None:
            memory_env = {**env, "CAPTURE_USER_ID": user, "CAPTURE_SESSION_ID": session_id}
            async with stdio_session(memory_env) as memory, \
                    gateway(env, user, session_id) as tools:
                await memory.call_tool("remember", {"text": turn})
                found = await tools.call_tool("search_hotels", {
                    "city": "Porto", "check_in": "2026-05-03", "check_out": "2026-05-06"})
                assert not found.isError
                for recipient in (USER_ADDRESS, ATTACKER):
                    outcomes[recipient] = await tools.call_tool("notify_guest", {
                        "guest_email": recipient, "note": "Casa Azul it is."})

        anyio.run(scenario)
        assert not outcomes[USER_ADDRESS].isError, text_of(outcomes[USER_ADDRESS])
        assert outcomes[ATTACKER].isError
        assert sent(log) == [[USER_ADDRESS]]
        with stack.client() as api:
            undeclared = api.post("/v1/check-call", json={
                "user_id": user, "session_id": session_id,
                "tool": {"name": "notify_guest",
                         "args": {"guest_email": USER_ADDRESS, "note": "x"}}}).json()
        assert (undeclared["decision"], undeclared["tool_source"]) == ("ask", "default")


class TestAsk:
    """A recipient found in the search result (not the user's words) needs confirmation."""

    CONTACT = "info@casa-azul.example"

    def _run(self, stack: Stack, tmp_path: Path,
             elicit: Elicit | None) -> tuple[CallToolResult, Path]:
        env, log, user = setup(stack, tmp_path)
        session_id = f"s-{uuid.uuid4().hex[:8]}"
        results: list[CallToolResult] = []

        async def scenario() -> None:
            memory_env = {**env, "CAPTURE_USER_ID": user, "CAPTURE_SESSION_ID": session_id}
            async with stdio_session(memory_env) as memory, \
                    gateway(env, user, session_id, elicit) as tools:
                await memory.call_tool("remember", {
                    "text": "Find a hotel in Porto for May 3-6 and ask the best one about "
                            "parking."})
                await tools.call_tool("search_hotels", {
                    "city": "Porto", "check_in": "2026-05-03", "check_out": "2026-05-06"})
                results.append(await tools.call_tool("send_email", {
                    "recipients": [self.CONTACT], "subject": "Parking",
                    "body": "Do you have parking?"}))

        anyio.run(scenario)
        return results[0], log

    def test_a_yes_by_elicitation_runs_the_call(self, stack: Stack, tmp_path: Path) -> None:
        elicit = Elicit(run=True)
        result, log = self._run(stack, tmp_path, elicit)
        assert len(elicit.questions) == 1
        assert self.CONTACT in elicit.questions[0]
        assert not result.isError, text_of(result)
        assert sent(log) == [[self.CONTACT]]

    def test_a_no_by_elicitation_stops_it(self, stack: Stack, tmp_path: Path) -> None:
        elicit = Elicit(run=False)
        result, log = self._run(stack, tmp_path, elicit)
        assert len(elicit.questions) == 1
        assert result.isError
        assert "user_declined" in text_of(result)
        assert sent(log) == []

    def test_without_elicitation_the_error_carries_the_question(
            self, stack: Stack, tmp_path: Path) -> None:
        result, log = self._run(stack, tmp_path, None)
        assert result.isError
        assert "Before I run send_email" in text_of(result)
        assert self.CONTACT in text_of(result)
        assert result.meta is not None
        assert result.meta["capture/decision"] == "ask"
        assert sent(log) == []
