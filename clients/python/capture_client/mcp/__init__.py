"""MCP front ends for Capture, both clients of its HTTP API (install `capture-client[mcp]`):

- `server`: an MCP server whose tools remember, recall, forget and list the user's
  memories, check a tool call and answer the gate's questions (`capture mcp`);
- `gateway`: an MCP server that stands in for an upstream MCP tool server, checks every
  `tools/call` with check-call before forwarding it and records every result as a
  `tool_output` event (`capture gateway`).
"""
