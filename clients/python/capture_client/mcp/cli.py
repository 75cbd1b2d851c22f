"""`capture-mcp server` and `capture-mcp gateway`: the MCP front ends without the service
installed (the service's own CLI has them as `capture mcp` and `capture gateway`)."""

from __future__ import annotations

import argparse
import logging
import sys

import anyio

from capture_client.mcp.gateway import GatewayConfig, Upstream, run_gateway
from capture_client.mcp.server import ServerConfig, run_http, run_stdio


def serve(transport: str, host: str, port: int, config: ServerConfig) -> None:
    if transport == "stdio":
        anyio.run(run_stdio, config)
    else:
        anyio.run(lambda: run_http(config, host=host, port=port))


def gateway(upstream: Upstream, config: GatewayConfig) -> None:
    anyio.run(run_gateway, upstream, config)


def main(argv: list[str] | None = None) -> None:
    # stdout is the MCP stream over stdio: logs go to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    parser = argparse.ArgumentParser(prog="capture-mcp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("server", "gateway"):
        sub = commands.add_parser(name)
        sub.add_argument("--url", help="Capture's base URL (default: CAPTURE_URL)")
        sub.add_argument("--user-id", help="default user (default: CAPTURE_USER_ID)")
        sub.add_argument("--session-id", help="default session (default: CAPTURE_SESSION_ID)")
        if name == "server":
            sub.add_argument("--transport", choices=("stdio", "http"), default="stdio")
            sub.add_argument("--host", default="127.0.0.1")
            sub.add_argument("--port", type=int, default=8765)
        else:
            sub.add_argument("--upstream-url", help="the tool server's streamable HTTP URL")
            sub.add_argument("upstream", nargs=argparse.REMAINDER,
                             help="the tool server's command, after --")
    args = parser.parse_args(argv)
    if args.command == "server":
        config = ServerConfig()
        config = ServerConfig(args.url or config.base_url, config.api_key,
                              args.user_id or config.user_id,
                              args.session_id or config.session_id)
        serve(args.transport, args.host, args.port, config)
        return
    command = [a for a in args.upstream if a != "--"] if args.upstream else []
    if bool(command) == bool(args.upstream_url):
        parser.error("give the upstream as a command after -- or as --upstream-url")
    gw = GatewayConfig()
    gw.base_url = args.url or gw.base_url
    gw.user_id = args.user_id or gw.user_id
    gw.session_id = args.session_id or gw.session_id
    gateway(Upstream(url=args.upstream_url) if args.upstream_url else Upstream(command=command),
            gw)


if __name__ == "__main__":
    main()
