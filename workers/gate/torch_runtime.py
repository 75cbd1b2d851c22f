"""The gate network on a torch device (a GPU worker): `GateNet` in eval mode, loaded from the
`.npz` the numpy path reads, integrating with the same fixed-step solver. Numpy in, numpy out."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import torch

from workers.gate.model import GateModelConfig, GateNet

Array = npt.NDArray[np.float32]


class TorchGateNet:
    def __init__(self, config: GateModelConfig, params: Mapping[str, Array], device: str) -> None:
        self.config = config
        self.device = torch.device(device)
        net = GateNet(config)
        net.load_state_dict({name: torch.from_numpy(np.ascontiguousarray(value))
                             for name, value in params.items()})
        self.net = net.eval().to(self.device)

    def _in(self, x: Array) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(self.device)

    @staticmethod
    def _out(x: torch.Tensor) -> Array:
        out: Array = x.detach().to("cpu", torch.float32).numpy()
        return out

    @property
    def h0(self) -> Array:
        return self._out(self.net.h0)

    @torch.no_grad()
    def encode(self, embedding: Array, scalars: Array) -> Array:
        return self._out(self.net.encode(self._in(embedding), self._in(scalars)))

    @torch.no_grad()
    def evolve(self, h: Array, dt_days: Array) -> Array:
        return self._out(self.net.evolve_fixed(self._in(h), self._in(dt_days)))

    @torch.no_grad()
    def update(self, h: Array, encoded: Array) -> Array:
        return self._out(self.net.update(self._in(h), self._in(encoded)))

    @torch.no_grad()
    def attend(self, encoded: Array) -> Array:
        return self._out(self.net.attend(self._in(encoded)[None])[0])

    @torch.no_grad()
    def decide(self, state: Array, claim_embedding: Array, context: Array,
               scalars: Array) -> tuple[Array, Array]:
        logits, authenticity = self.net.decide(self._in(state), self._in(claim_embedding),
                                               self._in(context), self._in(scalars))
        return self._out(logits), self._out(authenticity)
