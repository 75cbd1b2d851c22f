"""The serving-time gate: the numpy network equals the torch one on the shipped weights, the
fixed-step solver is the adaptive one where the adaptive one takes one step, and the exported
`.npz` files are the checkpoints they name."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from workers.common.weights import digest, load_npz
from workers.gate import npgate
from workers.gate.model import GateModelConfig, GateNet
from workers.gate.runtime import belief_states
from workers.gate.solver import dopri5_fixed, steps_for
from workers.gate.torch_runtime import TorchGateNet

WEIGHTS = Path(npgate.__file__).parent / "weights"
CHECKPOINTS = ["gate", "gate_discrete", "gate_transformer", "gate_no_provenance"]


def _torch_net(name: str) -> GateNet:
    checkpoint = torch.load(WEIGHTS / f"{name}.pt", map_location="cpu", weights_only=True)
    net = GateNet(GateModelConfig.from_dict(checkpoint["model"]))
    net.load_state_dict(checkpoint["state_dict"])
    return net.eval()


def _inputs(rows: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    embedding = rng.normal(size=(rows, 384)).astype(np.float32)
    embedding /= np.linalg.norm(embedding, axis=1, keepdims=True)
    scalars = rng.uniform(0.0, 1.0, size=(rows, 12)).astype(np.float32)
    context = rng.uniform(0.0, 1.0, size=(rows, 23)).astype(np.float32)
    return embedding, scalars, context


class TestExportedWeights:
    @pytest.mark.parametrize("name", CHECKPOINTS)
    def test_npz_holds_the_checkpoint_it_names(self, name: str) -> None:
        checkpoint = torch.load(WEIGHTS / f"{name}.pt", map_location="cpu", weights_only=True)
        arrays, stored = load_npz(WEIGHTS / f"{name}.npz")
        assert stored["source_digest"] == digest(WEIGHTS / f"{name}.pt")
        # The meta record is JSON (tuples come back as lists).
        assert stored["model"] == json.loads(json.dumps(checkpoint["model"]))
        assert stored["meta"] == json.loads(json.dumps(checkpoint["meta"]))
        assert set(arrays) == set(checkpoint["state_dict"])
        for key, tensor in checkpoint["state_dict"].items():
            np.testing.assert_array_equal(arrays[key], tensor.numpy())


class TestNumpyEqualsTorch:
    @pytest.mark.parametrize("name", ["gate", "gate_discrete", "gate_transformer"])
    def test_forward(self, name: str) -> None:
        net = _torch_net(name)
        numpy_net, _ = npgate.load(WEIGHTS / f"{name}.npz")
        embedding, scalars, context = _inputs(6)
        with torch.no_grad():
            encoded = net.encode(torch.from_numpy(embedding), torch.from_numpy(scalars))
            np.testing.assert_allclose(numpy_net.encode(embedding, scalars), encoded.numpy(),
                                       atol=1e-6)
            if net.config.variant == "transformer":
                state = net.attend(encoded[None])[0]
                np.testing.assert_allclose(numpy_net.attend(encoded.numpy()), state.numpy(),
                                           atol=1e-5)
            else:
                h = net.h0.expand(6, -1)
                state = net.update(h, encoded)
                np.testing.assert_allclose(numpy_net.update(h.numpy(), encoded.numpy()),
                                           state.numpy(), atol=1e-6)
            logits, authenticity = net.decide(state, torch.from_numpy(embedding[::-1].copy()),
                                              torch.from_numpy(context),
                                              torch.from_numpy(scalars))
        got_logits, got_authenticity = numpy_net.decide(
            state.numpy(), embedding[::-1].copy(), context, scalars)
        np.testing.assert_allclose(got_logits, logits.numpy(), atol=1e-5)
        np.testing.assert_allclose(got_authenticity, authenticity.numpy(), atol=1e-5)

    def test_torch_runtime_on_cpu_equals_numpy(self) -> None:
        numpy_net, _ = npgate.load(WEIGHTS / "gate.npz")
        torch_net = TorchGateNet(numpy_net.config, numpy_net.params, "cpu")
        rng = np.random.default_rng(1)
        embeddings = rng.normal(size=(3, 5, 384)).astype(np.float32)
        scalars = rng.uniform(size=(3, 5, 12)).astype(np.float32)
        dt = rng.choice([0.0, 0.02, 1.5, 6.0, 30.0], size=(3, 5)).astype(np.float32)
        np.testing.assert_allclose(belief_states(torch_net, embeddings, scalars, dt),
                                   belief_states(numpy_net, embeddings, scalars, dt), atol=1e-5)


class TestFixedStepSolver:
    def test_one_step_is_the_adaptive_solve_where_that_takes_one(self) -> None:
        net = _torch_net("gate")
        numpy_net, _ = npgate.load(WEIGHTS / "gate.npz")
        h = net.h0.expand(4, -1).detach()
        dt = torch.tensor([0.001, 0.1, 0.5, 1.0])
        with torch.no_grad():
            adaptive = net.evolve(h, dt).numpy()
        fixed = numpy_net.evolve(h.numpy(), dt.numpy())
        assert float(np.abs(fixed - h.numpy()).max()) > 1e-3  # the flow moved h
        np.testing.assert_allclose(fixed, adaptive, atol=1e-5)

    def test_a_row_does_not_depend_on_its_batch(self) -> None:
        numpy_net, _ = npgate.load(WEIGHTS / "gate.npz")
        rng = np.random.default_rng(2)
        h = np.tanh(rng.normal(size=(4, numpy_net.config.latent))).astype(np.float32)
        dt = np.asarray([0.0, 0.3, 5.0, 30.0], dtype=np.float32)
        together = numpy_net.evolve(h, dt)
        np.testing.assert_array_equal(together[0], h[0])  # no gap, no motion
        for row in range(1, 4):
            alone = numpy_net.evolve(h[row : row + 1], dt[row : row + 1])
            np.testing.assert_allclose(together[row], alone[0], atol=1e-6)

    def test_steps_and_order(self) -> None:
        assert [steps_for(d) for d in (0.0, 0.5, 2.0, 2.1, 30.0)] == [1, 1, 1, 2, 15]
        # dh/dt = λh: one step of dopri5's fifth-order solution multiplies h by its
        # stability polynomial, Taylor's to z⁵/5! plus z⁶/600 (z = λΔt): the tableau, exactly.
        z = -0.5
        polynomial = sum(z**k / math.factorial(k) for k in range(6)) + z**6 / 600
        out = dopri5_fixed(lambda y: -y, np.ones((1, 1)), np.asarray([[0.5]]),
                           np.asarray([[1.0]]))
        assert abs(float(out[0, 0]) - polynomial) < 1e-12
        two = dopri5_fixed(lambda y: -y, np.ones((1, 1)), np.asarray([[1.0]]),
                           np.asarray([[2.0]]))
        assert abs(float(two[0, 0]) - polynomial**2) < 1e-12
