"""Mem0's open-source `Memory` as a peer of `capture bench perf`, run as a subprocess of its own
virtualenv (var/peers/mem0, built by `capture bench peers install`):
`python -m bench.perf.mem0_driver`, with the repository on PYTHONPATH.
`bench.perf.peers.Mem0Peer` is the other end.

Protocol: one JSON object per line on stdin, one per line on stdout, in order. A request names
an `op`; its reply is `{"ok": true, ...}` or `{"ok": false, "error": "..."}`, and the process
reads on after an error. Whatever a library prints goes to stderr: the protocol owns stdout.

- `hello`: the interpreter, and the installed `mem0ai` version (null where it is absent).
- `embed` {texts}: the vectors Mem0 stores and searches with: through the `Memory`'s embedder
  once `open` ran, through the service's embedder class before.
- `open` {dsn, collection, history_db}: a `Memory` on pgvector at `dsn` (a libpq URI), its
  embedder the service's MiniLM (`bench.perf.mem0_providers.CaptureMiniLMEmbedding`) and its LLM
  one that no call reaches (`OfflineLLM`), both registered in Mem0's factories; the
  collection's table and indexes are created here, not in the first timed add.
- `add` {items: [{user_id, text}]}: `Memory.add(text, user_id=..., infer=False)` per item (no
  LLM: the text is stored as it is, with its embedding); `ms` per item.
- `load` {paths, user_id, start}: bulk rows for the retrieval sizes, the vectors of the .npy
  files with claims "synthetic claim N" (N from `start`), each row as `Memory.add` writes it
  (payload included), by COPY with the collection's indexes dropped, then Mem0's own DDL
  (`create_col`) rebuilds them, and ANALYZE.
- `search` {queries, user_id, top_k}: `Memory.search(query, top_k=..., filters={"user_id"})`
  per query; `ms` per query.
- `recall` {queries, user_id, k}: mean share of the exact top-k (a sequential scan) that Mem0's
  vector-store query returns (its HNSW index at its session settings).
- `close`: replies, then the process ends.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from typing import IO, Any

EMBEDDER_PROVIDER = "capture_minilm"
LLM_PROVIDER = "capture_offline"
EMBEDDING_DIMS = 384
NOT_INSTALLED = ("mem0ai is not installed in {python}: build its virtualenv with "
                 "`capture bench peers install`")


def mem0_version() -> str | None:
    try:
        return metadata.version("mem0ai")
    except metadata.PackageNotFoundError:
        return None


def vector_literal(vector: Any) -> str:
    """pgvector's text form, rounded as `bench.perf.runner` writes Capture's nodes: both
    ledgers hold the same vectors."""
    return "[" + ",".join(f"{float(x):.6f}" for x in vector) + "]"


def row_payload(text: str, user_id: str, created_at: str,
                lemmatize: Callable[[str], str]) -> dict[str, Any]:
    """The payload `Memory.add(text, user_id=..., infer=False)` stores for a user message."""
    return {"user_id": user_id, "role": "user", "data": text,
            "hash": hashlib.md5(text.encode()).hexdigest(), "created_at": created_at,
            "updated_at": created_at, "text_lemmatized": lemmatize(text)}


def share_found(approximate: set[str], exact: set[str], k: int) -> float:
    return len(approximate & exact) / k


class Driver:
    def __init__(self) -> None:
        self.memory: Any = None
        self._embedder: Any = None

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        if handler is None:
            raise ValueError(f"unknown op {op!r}")
        reply: dict[str, Any] = handler(request)
        return reply

    def _open_memory(self) -> Any:
        if self.memory is None:
            raise RuntimeError("no Memory: send `open` first")
        return self.memory

    def op_hello(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"python": sys.version.split()[0], "executable": sys.executable,
                "mem0": mem0_version()}

    def op_embed(self, request: dict[str, Any]) -> dict[str, Any]:
        texts: list[str] = request["texts"]
        if self.memory is not None:
            vectors = [self.memory.embedding_model.embed(t, "search") for t in texts]
            return {"vectors": vectors, "through": "Memory.embedding_model"}
        if self._embedder is None:
            from app.core.embeddings import MiniLMOnnxEmbedder

            self._embedder = MiniLMOnnxEmbedder()
        return {"vectors": self._embedder.embed(texts).tolist(), "through": "MiniLMOnnxEmbedder"}

    def op_open(self, request: dict[str, Any]) -> dict[str, Any]:
        if mem0_version() is None:
            raise RuntimeError(NOT_INSTALLED.format(python=sys.executable))
        from mem0 import Memory
        from mem0.configs.base import MemoryConfig
        from mem0.embeddings.configs import EmbedderConfig
        from mem0.llms.configs import LlmConfig
        from mem0.utils.factory import EmbedderFactory, LlmFactory

        EmbedderFactory.provider_to_class[EMBEDDER_PROVIDER] = (
            "bench.perf.mem0_providers.CaptureMiniLMEmbedding")
        LlmFactory.register_provider(LLM_PROVIDER, "bench.perf.mem0_providers.OfflineLLM")
        config = MemoryConfig(
            vector_store={"provider": "pgvector", "config": {
                "connection_string": request["dsn"], "collection_name": request["collection"],
                "embedding_model_dims": EMBEDDING_DIMS, "hnsw": True}},
            # The config models list the providers Mem0 ships; `model_construct` lets the
            # names registered above through to the same factories.
            embedder=EmbedderConfig.model_construct(
                provider=EMBEDDER_PROVIDER, config={"embedding_dims": EMBEDDING_DIMS}),
            llm=LlmConfig.model_construct(provider=LLM_PROVIDER, config={}),
            history_db_path=request["history_db"],
        )
        self.memory = Memory(config)
        self.memory.vector_store._ensure_collection()
        return {"mem0": mem0_version(),
                "embedder": type(self.memory.embedding_model).__name__,
                "llm": type(self.memory.llm).__name__,
                "vector_store": type(self.memory.vector_store).__name__}

    def op_add(self, request: dict[str, Any]) -> dict[str, Any]:
        memory = self._open_memory()
        times = []
        for item in request["items"]:
            t0 = time.perf_counter()
            memory.add(item["text"], user_id=item["user_id"], infer=False)
            times.append((time.perf_counter() - t0) * 1000)
        return {"ms": times}

    def op_load(self, request: dict[str, Any]) -> dict[str, Any]:
        import numpy as np
        from mem0.utils.lemmatization import lemmatize_for_bm25
        from psycopg import sql

        store = self._open_memory().vector_store
        name = store.collection_name
        table = sql.Identifier(name)
        created_at = datetime.now(UTC).isoformat()
        serial = int(request["start"])
        t0 = time.perf_counter()
        with store._get_cursor(commit=True) as cur:
            for suffix in ("hnsw_idx", "diskann_idx", "text_lemmatized_idx"):
                cur.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(
                    sql.Identifier(f"{name}_{suffix}")))
            for path in request["paths"]:
                vectors = np.load(path)
                copy_sql = sql.SQL("COPY {} (id, vector, payload) FROM STDIN").format(table)
                with cur.copy(copy_sql) as copy:
                    for vector in vectors:
                        text = f"synthetic claim {serial}"
                        serial += 1
                        copy.write_row((str(uuid.uuid4()), vector_literal(vector), json.dumps(
                            row_payload(text, request["user_id"], created_at,
                                        lemmatize_for_bm25))))
        loaded = time.perf_counter() - t0
        store.create_col()
        with store._get_cursor(commit=True) as cur:
            cur.execute(sql.SQL("ANALYZE {}").format(table))
        return {"rows": serial - int(request["start"]), "copy_s": loaded,
                "index_s": time.perf_counter() - t0 - loaded}

    def op_search(self, request: dict[str, Any]) -> dict[str, Any]:
        memory = self._open_memory()
        times, returned = [], []
        for query in request["queries"]:
            t0 = time.perf_counter()
            found = memory.search(query, top_k=int(request["top_k"]),
                                  filters={"user_id": request["user_id"]})
            times.append((time.perf_counter() - t0) * 1000)
            returned.append(len(found["results"]))
        return {"ms": times, "returned": returned}

    def op_recall(self, request: dict[str, Any]) -> dict[str, Any]:
        from psycopg import sql

        memory = self._open_memory()
        store, k, user_id = memory.vector_store, int(request["k"]), request["user_id"]
        exact_sql = sql.SQL("SELECT id FROM {} WHERE payload->>'user_id' = %s "
                            "ORDER BY vector <=> %s::vector LIMIT %s").format(
            sql.Identifier(store.collection_name))
        shares = []
        for query in request["queries"]:
            vector = memory.embedding_model.embed(query, "search")
            approximate = {str(r.id) for r in store.search(
                query=query, vectors=vector, top_k=k, filters={"user_id": user_id})}
            with store._get_cursor() as cur:
                cur.execute("SET LOCAL enable_indexscan = off")
                cur.execute("SET LOCAL enable_bitmapscan = off")
                cur.execute(exact_sql, (user_id, vector, k))
                exact = {str(r[0]) for r in cur.fetchall()}
            shares.append(share_found(approximate, exact, k))
        return {"recall": sum(shares) / len(shares) if shares else 0.0, "queries": len(shares)}

    def op_close(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.memory is not None:
            pool = getattr(self.memory.vector_store, "connection_pool", None)
            if pool is not None:
                pool.close()
            self.memory = None
        return {"closed": True}


def serve(requests: IO[str], replies: IO[str], driver: Driver | None = None) -> None:
    driver = driver or Driver()
    for line in requests:
        if not line.strip():
            continue
        op = None
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            op = request.get("op")
            reply = {"ok": True, **driver.handle(request)}
        except Exception as exc:  # every failure is a reply; the parent decides what it means
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        if op == "close":
            return


def main() -> None:
    os.environ["MEM0_TELEMETRY"] = "false"  # read when mem0 is first imported
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to stderr
    sys.stdout = sys.stderr
    serve(sys.stdin, replies)


if __name__ == "__main__":
    main()
