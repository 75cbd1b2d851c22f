"""The device check's CPU half: the torch path a GPU worker runs, here on the CPU, against the
numpy path on the same dev-episode inputs (bench/parity/device_check.sh runs it on a GPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from bench.parity import device_check


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    cache = tmp_path_factory.mktemp("device-check") / "minilm.npz"
    return device_check.run("cpu", episodes_per_track=1, cache_path=cache)


def test_torch_on_the_cpu_decides_as_numpy(result: dict[str, object]) -> None:
    gates = result["gate"]
    assert isinstance(gates, dict)
    assert set(gates) == {"capture", "capture_discrete", "supervised_transformer"}
    for gate in gates.values():
        assert gate["hypotheses"] > 0
        assert gate["decisions_differ"] == 0
        assert gate["max_abs_dp"] < 1e-5
    extractor = result["extractor"]
    assert isinstance(extractor, dict)
    assert extractor["rows"] > 0
    assert extractor["extractions_differ"] == 0
    assert extractor["max_abs_dp"] < 1e-5
    assert result["ok"] is True


def test_the_script_calls_the_module() -> None:
    script = Path(device_check.__file__).with_suffix(".sh")
    assert "-m bench.parity.device_check" in script.read_text()


class TestQueueRouting:
    def test_everything_on_the_task_queue_by_default(self) -> None:
        settings = Settings()
        assert settings.queue_for("events") == settings.task_queue
        assert settings.queue_for("audit", "local_lm") == settings.task_queue

    def test_local_lm_audits_and_opted_in_events_go_to_the_gpu_queue(self) -> None:
        settings = Settings(gpu_queue="capture-gpu")
        assert settings.queue_for("audit", "local_lm") == "capture-gpu"
        assert settings.queue_for("audit", "reselect") == settings.task_queue
        assert settings.queue_for("events") == settings.task_queue
        routed = Settings(gpu_queue="capture-gpu", gpu_events=True)
        assert routed.queue_for("events") == "capture-gpu"
