"""The deployment files name real services, real settings and real `capture` commands.

No database, no Docker: docker-compose.yml is parsed with PyYAML, the Dockerfile is read
as text, and every `capture …` command line is resolved against the CLI's click group.
"""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from typing import Any

import pytest
import typer
import yaml

import app.cli
from app.core.config import REPO_ROOT, Settings

COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"
DOCKERFILE = REPO_ROOT / "Dockerfile"
OPERATIONS_DOC = REPO_ROOT / "docs" / "operations.md"


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return loaded


def services() -> dict[str, Any]:
    found: dict[str, Any] = compose()["services"]
    return found


def cli_group() -> Any:
    """The click group of `capture` (typer may vendor click, so duck-typed on `.commands`)."""
    command = typer.main.get_command(app.cli.app)
    assert hasattr(command, "commands")
    return command


def _argv(command: str | list[str]) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def compose_commands() -> list[tuple[str, list[str]]]:
    return [
        (f"compose:{name}", _argv(service["command"]))
        for name, service in services().items()
        if "command" in service and _argv(service["command"])[0] == "capture"
    ]


def dockerfile_commands() -> list[tuple[str, list[str]]]:
    """Every `CMD [...]` (exec form) of the Dockerfile that runs `capture`."""
    commands = []
    for number, line in enumerate(DOCKERFILE.read_text().splitlines(), start=1):
        match = re.match(r"^\s*CMD\s+(\[.*\])\s*$", line)
        if match:
            argv = json.loads(match.group(1))
            if argv[0] == "capture":
                commands.append((f"Dockerfile:{number}", argv))
    return commands


def resolve(argv: list[str]) -> Any:
    """The click command an argv after `capture` names; fails on unknown commands or options."""
    command = cli_group()
    args = argv[1:]
    while hasattr(command, "commands"):
        assert args, f"{argv}: a group needs a subcommand"
        name, args = args[0], args[1:]
        assert name in command.commands, f"{argv}: `{name}` is not a capture command"
        command = command.commands[name]
    options = {opt for param in command.params for opt in param.opts}
    for arg in args:
        if arg.startswith("--"):
            option = arg.split("=", 1)[0]
            assert option in options, f"{argv}: `{command.name}` has no option {option}"
    return command


class TestComposeServices:
    @pytest.mark.parametrize("name", ["api", "worker", "beat", "postgres", "redis", "migrate"])
    def test_service_exists(self, name: str) -> None:
        assert name in services()

    def test_postgres_is_pgvector(self) -> None:
        assert "pgvector" in services()["postgres"]["image"]

    def test_postgres_and_redis_have_healthchecks(self) -> None:
        for name in ("postgres", "redis"):
            assert "test" in services()[name]["healthcheck"], name

    def test_api_waits_for_migrations(self) -> None:
        assert services()["migrate"]["command"] == ["capture", "migrate"]
        depends = services()["api"]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert "8000:8000" in services()["api"]["ports"]

    def test_worker_serves_the_default_queue(self) -> None:
        argv = _argv(services()["worker"]["command"])
        assert argv[argv.index("--queues") + 1] == Settings.model_fields["task_queue"].default

    def test_gpu_worker_is_profile_gated_with_a_device_reservation(self) -> None:
        gpu = services()["gpu-worker"]
        assert gpu["profiles"] == ["gpu"]
        argv = _argv(gpu["command"])
        assert argv[argv.index("--queues") + 1] == "capture-gpu"
        (device,) = gpu["deploy"]["resources"]["reservations"]["devices"]
        assert device == {"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}

    def test_secret_key_is_required_not_defaulted(self) -> None:
        env = services()["api"]["environment"]
        assert env["CAPTURE_SECRET_KEY"].startswith("${CAPTURE_SECRET_KEY:?")
        assert env["CAPTURE_ENVIRONMENT"] == "production"


class TestSettingsNames:
    def test_every_capture_variable_in_compose_is_a_setting(self) -> None:
        fields = {f"CAPTURE_{name.upper()}" for name in Settings.model_fields}
        for name, service in services().items():
            env = service.get("environment") or {}
            assert isinstance(env, dict), f"{name}: use the mapping form for environment"
            unknown = {key for key in env if key.startswith("CAPTURE_")} - fields
            assert not unknown, f"{name}: {unknown} are not settings"

    def test_operations_doc_lists_every_setting(self) -> None:
        text = OPERATIONS_DOC.read_text()
        missing = [
            name for name in Settings.model_fields if f"CAPTURE_{name.upper()}" not in text
        ]
        assert not missing, f"docs/operations.md does not describe: {missing}"


class TestCommandsExist:
    def test_dockerfile_has_the_targets(self) -> None:
        targets = re.findall(r"^FROM\s+\S+\s+AS\s+(\S+)", DOCKERFILE.read_text(), re.M | re.I)
        assert {"api", "worker"} <= set(targets)

    def test_every_capture_command_is_a_cli_command(self) -> None:
        commands = compose_commands() + dockerfile_commands()
        assert len(commands) >= 6  # api, worker, beat, migrate in compose; api, worker in Docker
        for where, argv in commands:
            try:
                resolve(argv)
            except AssertionError as exc:
                raise AssertionError(f"{where}: {exc}") from None

    def test_unknown_commands_are_caught(self) -> None:
        with pytest.raises(AssertionError):
            resolve(["capture", "wrker"])
        with pytest.raises(AssertionError):
            resolve(["capture", "worker", "--queue", "x"])
        resolve(["capture", "keys", "create", "--role", "agent", "--tenant", "acme"])
