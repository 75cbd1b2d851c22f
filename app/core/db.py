"""Engine and session scope. One transaction per request or task: services flush, the scope commits.

Work to run only once the transaction has committed (enqueueing a task, say) is registered
with `after_commit(session, fn)`; it runs after a successful commit and is dropped on rollback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings, get_settings

log = logging.getLogger(__name__)

_lock = threading.Lock()
_engine: Engine | None = None
_session_factory: sessionmaker[Session] | None = None

AFTER_COMMIT_KEY = "capture.after_commit"

# When the current database outage began (monotonic seconds), None while it answers.
_outage_since: float | None = None


def note_database_unavailable() -> bool:
    """Record that the database could not be reached; True only for an outage's first error,
    so each outage is logged once, not once per request."""
    global _outage_since
    with _lock:
        if _outage_since is not None:
            return False
        _outage_since = time.monotonic()
        return True


def note_database_available() -> None:
    global _outage_since
    if _outage_since is None:  # the common path: no lock
        return
    with _lock:
        if _outage_since is None:
            return
        lasted = time.monotonic() - _outage_since
        _outage_since = None
    log.warning("database available again after %.1f s", lasted)


def resolve_database_url(settings: Settings) -> str:
    if settings.database_url:
        url = settings.database_url
        if url.startswith("postgresql://"):
            url = url.replace("postgresql://", "postgresql+psycopg://", 1)
        return url
    from app.core.embedded_pg import embedded_database_url

    return embedded_database_url(settings.var_dir / "pg")


def get_engine() -> Engine:
    global _engine
    with _lock:
        if _engine is None:
            settings = get_settings()
            _engine = create_engine(
                resolve_database_url(settings),
                pool_pre_ping=True,
                hide_parameters=True,  # errors must not carry memory text into logs
                pool_size=10,
                max_overflow=10,
            )
        return _engine


def get_session_factory() -> sessionmaker[Session]:
    global _session_factory
    if _session_factory is None:
        _session_factory = sessionmaker(bind=get_engine(), expire_on_commit=False)
    return _session_factory


def set_session_factory(
    factory: sessionmaker[Session] | None, engine: Engine | None = None
) -> None:
    """Point the service at another database (tests, benchmarks)."""
    global _session_factory, _engine
    _session_factory = factory
    if engine is not None:
        _engine = engine


def after_commit(session: Session, callback: Callable[[], None]) -> None:
    session.info.setdefault(AFTER_COMMIT_KEY, []).append(callback)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    callbacks: list[Callable[[], None]] = session.info.pop(AFTER_COMMIT_KEY, [])
    for callback in callbacks:
        try:
            callback()
        except Exception as exc:  # a failed enqueue must not undo a committed write
            if getattr(exc, "retry_later", False):  # an outage the requeue covers, not a bug
                log.warning("after-commit callback deferred: %s", exc)
            else:
                log.exception("after-commit callback failed")


@event.listens_for(Session, "after_rollback")
def _drop_after_commit(session: Session) -> None:
    session.info.pop(AFTER_COMMIT_KEY, None)


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on error."""
    session = get_session_factory()()
    try:
        yield session
        session.commit()
        note_database_available()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def get_db() -> Iterator[Session]:
    """FastAPI dependency: one transaction per request. Routes declare it with
    `Depends(get_db, scope="function")`, so the commit runs before the response is sent and
    a failed commit is the request's error, never a success already answered."""
    with session_scope() as session:
        yield session
