"""One retry policy for every task that processes a row by id: retry with exponential backoff
(capped at 30 s); after the last retry, record the failure on the row instead of raising."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import Task
from sqlalchemy.orm import Session

from app.core.db import session_scope

log = logging.getLogger(__name__)


def run_or_retry(
    task: Task,  # type: ignore[type-arg,unused-ignore]
    run: Callable[[Session], object],
    give_up: Callable[[Session], object],
    *,
    what: str,
    max_retries: int,
) -> None:
    """`run` in its own transaction; on error retry the task, or `give_up` when retries are
    spent. `what` names the row in the log (kind and id, never content)."""

    def in_one_transaction() -> None:
        with session_scope() as db:
            run(db)

    retry_or_give_up(task, in_one_transaction, give_up, what=what, max_retries=max_retries)


def retry_or_give_up(
    task: Task,  # type: ignore[type-arg,unused-ignore]
    run: Callable[[], object],
    give_up: Callable[[Session], object],
    *,
    what: str,
    max_retries: int,
) -> None:
    """`run`, which commits its own transactions; on error retry the task, or `give_up` (in
    a transaction of its own) when retries are spent."""
    try:
        run()
    except Exception as exc:
        if task.request.retries >= max_retries:
            log.exception("giving up on %s", what)
            with session_scope() as db:
                give_up(db)
            return
        raise task.retry(exc=exc, countdown=min(2**task.request.retries, 30)) from exc
