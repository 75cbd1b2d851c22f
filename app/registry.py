"""The composition root: the one module under app/ (with app/cli.py) that imports `workers`.

Each backend that lives in workers/ (the learned admission gates, the learned extractor, the
relation model, the audit decoders and the Celery app that runs tasks by name) is looked up
here by the name the settings give it, and handed to the service as the contract it
implements in `app.domain`. Nothing in workers/ is imported until a backend is first asked
for, so importing app.* never loads torch.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from app.domain.audit import AuditDecoder
from app.domain.extractor import Extractor
from app.domain.gate import AdmissionPolicy
from app.domain.relation import RelationModel

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)


def learned_policy(name: str) -> AdmissionPolicy:
    """A learned admission gate by name (`workers.gate.infer.LEARNED_POLICIES`)."""
    from workers.gate.infer import LEARNED_POLICIES

    policy: AdmissionPolicy = LEARNED_POLICIES[name]()
    return policy


def learned_extractor() -> Extractor:
    """The learned extractor with its shipped weights."""
    from workers.extraction.infer import load_extractor

    extractor: Extractor = load_extractor()
    return extractor


@lru_cache(maxsize=1)
def learned_relation_model() -> RelationModel | None:
    """The learned relation model, or None where its weights are missing."""
    try:
        from workers.relation.infer import load_relation_model

        return load_relation_model()
    except (ImportError, OSError) as error:  # weights missing in a slim deployment
        log.warning("learned relation model unavailable (%s); using the heuristic", error)
        return None


def audit_decoder(name: str) -> AuditDecoder[Any]:
    """An audit decoder by name (CAPTURE_AUDIT_DECODER)."""
    from workers.audit.decoders import get_decoder

    return get_decoder(name)


def celery_app() -> Celery:
    """The Celery app (broker and queues from settings)."""
    from workers.celery_app import celery_app as app

    return app


class BrokerUnavailable(Exception):
    """The broker cannot be reached; the work stays pending in Postgres for the requeue."""

    # Read by app.core.db's after-commit runner, which logs it without a traceback.
    retry_later = True


def send_task(name: str, args: Sequence[str], queue: str) -> None:
    """Hand a task to the worker pool by its registered name."""
    from kombu.exceptions import OperationalError

    try:
        celery_app().send_task(name, args=list(args), queue=queue)
    except OperationalError as exc:
        cause = type(exc.__cause__ or exc).__name__
        raise BrokerUnavailable(f"broker unreachable ({cause})") from exc
