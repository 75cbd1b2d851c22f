"""Engine and session scope. One transaction per request or task: services flush, the scope commits.

Work to run only once the transaction has committed (enqueueing a task, say) is registered
with `after_commit(session, fn)`; it runs after a successful commit and is dropped on rollback.
"""

from __future__ import annotations

import logging
import threading
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
        except Exception:  # a failed enqueue must not undo a committed write
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
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def get_db() -> Iterator[Session]:
    """FastAPI dependency: one transaction per request."""
    with session_scope() as session:
        yield session
