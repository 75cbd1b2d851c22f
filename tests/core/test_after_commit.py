"""Work handed on after a commit: a broker outage is logged as a warning and the committed
write stands; any other failure is logged with its traceback."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.core.db import after_commit
from app.registry import BrokerUnavailable


def _commit_with(engine: Engine, callback_error: Exception) -> None:
    def callback() -> None:
        raise callback_error

    with Session(engine) as session:
        session.execute(text("SELECT 1"))
        after_commit(session, callback)
        session.commit()


def test_broker_outage_is_a_warning_without_traceback(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="app.core.db"):
        _commit_with(engine, BrokerUnavailable("broker unreachable (ConnectionError)"))
    records = [r for r in caplog.records if r.name == "app.core.db"]
    assert [r.levelno for r in records] == [logging.WARNING]
    assert records[0].exc_info is None


def test_other_failures_keep_their_traceback(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="app.core.db"):
        _commit_with(engine, RuntimeError("bug"))
    records = [r for r in caplog.records if r.name == "app.core.db"]
    assert [r.levelno for r in records] == [logging.ERROR]
    assert records[0].exc_info is not None


def test_send_task_to_an_unreachable_broker_raises_broker_unavailable() -> None:
    # A port nothing listens on; a fresh process, since the Celery app reads its broker once.
    env = {**os.environ, "CAPTURE_BROKER_URL": "redis://127.0.0.1:1/0"}
    code = (
        "from app import registry\n"
        "try:\n"
        "    registry.send_task('capture.process_event', ['x'], 'events')\n"
        "except registry.BrokerUnavailable as exc:\n"
        "    print('unavailable', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.startswith("unavailable broker unreachable")
