from capture_client.mcp.cli import main

main()
