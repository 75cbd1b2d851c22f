"""`capture mcp` through the MCP SDK's own client, against the real service (the API and
Celery workers in subprocesses): over stdio with the key from the environment, and over
streamable HTTP with a bearer key the server verifies against the service."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, TextResourceContents

from app.core.config import REPO_ROOT
from tests.integration.conftest import Stack

TOOLS = {"remember", "recall", "forget", "list_memories", "check_tool_call",
         "list_questions", "answer_clarification"}


def mcp_env(stack: Stack, **extra: str) -> dict[str, str]:
    return {**stack.env, "CAPTURE_URL": stack.base_url, **extra}


@asynccontextmanager
async def stdio_session(env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "capture_client.mcp", "server"], env=env,
        cwd=str(REPO_ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.isError, result.content
    assert result.structuredContent is not None
    return result.structuredContent


class TestStdio:
    def test_remember_recall_list_check_forget(self, stack: Stack) -> None:
        user = f"u-{uuid.uuid4().hex[:8]}"
        env = mcp_env(stack, CAPTURE_API_KEY=stack.agent_key, CAPTURE_USER_ID=user,
                      CAPTURE_SESSION_ID="s1")

        async def scenario() -> None:
            async with stdio_session(env) as mcp:
                listed = await mcp.list_tools()
                assert {t.name for t in listed.tools} == TOOLS
                said = structured(await mcp.call_tool(
                    "remember", {"text": "I prefer short answers."}))
                assert said["status"] == "processed"
                assert [d["action"] for d in said["decisions"]] == ["add"]
                await mcp.call_tool("remember", {
                    "text": "Please email the notes to dana@reyes-cpa.example."})

                recalled = structured(await mcp.call_tool(
                    "recall", {"query": "How long should answers be?"}))
                claims = [m["claim"] for m in recalled["memories"]]
                assert any("short" in (c or "").lower() for c in claims)

                page = structured(await mcp.call_tool("list_memories", {}))
                assert page["total"] >= 1
                node_id = next(n["id"] for n in page["nodes"]
                               if "short" in (n["claim"] or "").lower())

                own = await mcp.read_resource("capture://memories")
                templated = await mcp.read_resource(f"capture://users/{user}/memories")
                for read in (own, templated):
                    content = read.contents[0]
                    assert isinstance(content, TextResourceContents)
                    assert node_id in {n["id"] for n in json.loads(content.text)["nodes"]}

                allowed = structured(await mcp.call_tool("check_tool_call", {
                    "tool_name": "send_email",
                    "arguments": {"recipients": ["dana@reyes-cpa.example"],
                                  "subject": "Notes", "body": "Attached."}}))
                assert allowed["decision"] == "allow"
                assert allowed["question"] is None

                erased = structured(await mcp.call_tool("forget", {"memory_id": node_id}))
                assert erased["node_id"] == node_id
                after = structured(await mcp.call_tool("list_memories", {}))
                assert node_id not in {n["id"] for n in after["nodes"]}

        anyio.run(scenario)

    def test_service_errors_come_back_as_tool_errors(self, stack: Stack) -> None:
        env = mcp_env(stack, CAPTURE_API_KEY=stack.agent_key, CAPTURE_USER_ID="bob")

        async def scenario() -> None:
            async with stdio_session(env) as mcp:
                missing = await mcp.call_tool("answer_clarification", {
                    "clarification_id": str(uuid.uuid4()), "answer": "confirm"})
                assert missing.isError
                assert "404" in str(missing.content)
                no_user = await mcp.call_tool("recall", {"query": "x", "user_id": ""})
                assert not no_user.isError  # the configured user is the default

        anyio.run(scenario)

    def test_a_bad_key_fails_every_call(self, stack: Stack) -> None:
        env = mcp_env(stack, CAPTURE_API_KEY="cap_bad_key", CAPTURE_USER_ID="bob")

        async def scenario() -> None:
            async with stdio_session(env) as mcp:
                result = await mcp.call_tool("recall", {"query": "anything"})
                assert result.isError
                assert "401" in str(result.content)

        anyio.run(scenario)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def http_server(stack: Stack) -> Iterator[str]:
    port = _free_port()
    env = mcp_env(stack)
    env.pop("CAPTURE_API_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "capture_client.mcp", "server", "--transport", "http",
         "--port", str(port)],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the MCP HTTP server did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


class TestStreamableHttp:
    def test_requests_without_a_valid_agent_key_are_refused(
            self, stack: Stack, http_server: str) -> None:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer cap_wrong_key"},
                        {"Authorization": f"Bearer {stack.auditor_key}"}):
            response = httpx.post(http_server, json=body, headers=headers, timeout=10)
            assert response.status_code == 401
            assert response.headers["www-authenticate"].startswith("Bearer")

    def test_tools_act_with_the_callers_key(self, stack: Stack, http_server: str) -> None:
        user = f"u-{uuid.uuid4().hex[:8]}"

        async def scenario() -> None:
            headers = {"Authorization": f"Bearer {stack.agent_key}"}
            async with create_mcp_http_client(headers=headers) as http, \
                    streamable_http_client(http_server, http_client=http) as (read, write, _), \
                    ClientSession(read, write) as mcp:
                await mcp.initialize()
                assert {t.name for t in (await mcp.list_tools()).tools} == TOOLS
                said = structured(await mcp.call_tool("remember", {
                    "text": "I prefer short answers.", "user_id": user}))
                assert [d["action"] for d in said["decisions"]] == ["add"]
                recalled = structured(await mcp.call_tool("recall", {
                    "query": "answer length", "user_id": user}))
                assert any("short" in (m["claim"] or "").lower()
                           for m in recalled["memories"])
                read = await mcp.read_resource(f"capture://users/{user}/memories")
                content = read.contents[0]
                assert isinstance(content, TextResourceContents)
                assert json.loads(content.text)["total"] == 1

        anyio.run(scenario)
        # The memory was written in the tenant of the caller's key.
        with stack.client() as api:
            nodes = api.get(f"/v1/users/{user}/nodes").json()
        assert nodes["total"] == 1
