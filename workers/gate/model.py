"""The gate networks. The vector field f_θ is its own module, apart from the wrapper.

ODE-RNN (`variant="ode"`, the `capture` policy):
    between events   dh/dt = f_θ(h)            three-layer tanh MLP, autonomous (no t, no x)
                     batched over irregular gaps by rescaling time: each sample integrates
                     s ∈ [0, 1] of dh/ds = Δt · f_θ(h), dopri5 (rtol 1e-3, atol 1e-4)
    at an event      h ← GRUCell(encode([event embedding ‖ event scalars]), h)
    per hypothesis   [h ‖ claim projection ‖ context ‖ event scalars] → MLP → 6 action
                     logits and one authenticity logit (σ(h) in the ledger's confidence)
Discrete GRU (`variant="discrete"`, `capture_discrete`): the same without the ODE; the gap
reaches it only as the log(1+Δt) input. Transformer (`variant="transformer"`,
`supervised_transformer`): causal self-attention over the encoded events in place of h.
"""

from __future__ import annotations

import torch
from torch import nn

from app.models.base import EMBEDDING_DIM
from workers.gate.features import CONTEXT_FEATURES, EVENT_SCALARS
from workers.gate.model_config import N_ACTIONS, GateModelConfig, Variant
from workers.gate.solver import MAX_STEP_DAYS, dopri5_fixed

__all__ = ["N_ACTIONS", "GateModelConfig", "GateNet", "Variant", "VectorField"]


class VectorField(nn.Module):
    """f_θ(h): Linear → tanh → Linear → tanh → Linear. Autonomous: ignores t."""

    def __init__(self, latent: int, hidden: int) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(latent, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, latent),
        )
        last = self.net[-1]
        assert isinstance(last, nn.Linear)
        nn.init.normal_(last.weight, std=1e-3)  # start near the identity flow: stable, cheap
        nn.init.zeros_(last.bias)
        self.evaluations = 0  # function evaluations, for progress reports

    def forward(self, t: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        self.evaluations += 1
        out: torch.Tensor = self.net(h)  # (B, latent)
        return out


class RescaledField(nn.Module):
    """dh/ds = Δt · f_θ(h) for s ∈ [0, 1]: one solve covers a batch of different gaps."""

    def __init__(self, field: VectorField, dt: torch.Tensor) -> None:
        super().__init__()
        self.field = field
        self.dt = dt  # (B, 1) gap in days

    def forward(self, s: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.dt * self.field(s, h)  # (B, latent)
        return out


class GateNet(nn.Module):
    def __init__(self, config: GateModelConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = nn.Sequential(
            nn.Linear(EMBEDDING_DIM + EVENT_SCALARS, config.event_hidden), nn.Tanh()
        )
        if config.variant == "transformer":
            layer = nn.TransformerEncoderLayer(
                d_model=config.event_hidden,
                nhead=config.transformer_heads,
                dim_feedforward=2 * config.event_hidden,
                dropout=config.dropout,
                batch_first=True,
            )
            self.transformer = nn.TransformerEncoder(
                layer, num_layers=config.transformer_layers, enable_nested_tensor=False
            )
            self.position = nn.Embedding(config.max_history, config.event_hidden)
            state_dim = config.event_hidden
        else:
            self.cell = nn.GRUCell(config.event_hidden, config.latent)
            self.h0 = nn.Parameter(torch.zeros(config.latent))
            state_dim = config.latent
            if config.variant == "ode":
                self.field = VectorField(config.latent, config.ode_hidden)
        # Training may hold the flow off for warm-up epochs (f ≡ 0: the GRU-with-log-gap
        # model f_θ's near-zero initialization starts from anyway); inference always flows.
        self.flow = True
        self.claim = nn.Sequential(nn.Linear(EMBEDDING_DIM, config.claim_hidden), nn.Tanh())
        self.input_dropout = nn.Dropout(config.input_dropout)
        self.head = nn.Sequential(
            nn.Linear(
                state_dim + config.claim_hidden + CONTEXT_FEATURES + EVENT_SCALARS,
                config.head_hidden,
            ),
            nn.ReLU(),
            nn.Dropout(config.dropout),
            nn.Linear(config.head_hidden, N_ACTIONS + 1),
        )

    # --- the belief state ----------------------------------------------------------------

    def initial(self, batch: int) -> torch.Tensor:
        return self.h0.expand(batch, -1).clone()  # (B, latent)

    def evolve(self, h: torch.Tensor, dt_days: torch.Tensor) -> torch.Tensor:
        """Integrate h over each sample's gap. h (B, latent), dt_days (B,) → (B, latent)."""
        if self.config.variant != "ode" or not self.flow or not bool((dt_days > 0).any()):
            return h
        from torchdiffeq import odeint

        field = RescaledField(self.field, dt_days.unsqueeze(-1))
        s = torch.tensor([0.0, 1.0], dtype=h.dtype)
        trajectory = odeint(
            field,
            h,
            s,
            rtol=self.config.rtol,
            atol=self.config.atol,
            method=self.config.method,
            # s runs over [0, 1]: try the whole interval as the first step instead of probing
            # for one (a smooth flow is then one accepted step, ~7 evaluations of f per gap);
            # a rejected step shrinks and adapts as usual, to the same tolerances.
            options={"first_step": 1.0} if self.config.method == "dopri5" else None,
        )  # (2, B, latent)
        final: torch.Tensor = trajectory[-1]
        return final

    def evolve_fixed(self, h: torch.Tensor, dt_days: torch.Tensor,
                     max_step_days: float = MAX_STEP_DAYS) -> torch.Tensor:
        """`evolve` with the serving path's fixed-step solver (`solver.py`), as the numpy
        gate integrates: the device path runs this, so that both give the same belief."""
        if self.config.variant != "ode" or not bool((dt_days > 0).any()):
            return h
        dt = dt_days.to(h.dtype).unsqueeze(-1)  # (B, 1)
        steps = torch.clamp(torch.ceil(dt / max_step_days), min=1.0)
        out: torch.Tensor = dopri5_fixed(self.field.net, h, dt, steps)
        return out

    def encode(self, embedding: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """(…, 384), (…, EVENT_SCALARS) → (…, event_hidden)."""
        embedding = self.input_dropout(embedding)
        out: torch.Tensor = self.encoder(torch.cat([embedding, scalars], dim=-1))
        return out

    def update(self, h: torch.Tensor, encoded: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.cell(encoded, h)  # (B, latent)
        return out

    def attend(self, encoded: torch.Tensor, padding: torch.Tensor | None = None) -> torch.Tensor:
        """Transformer: (B, T, d) encoded events → (B, T, d) causal states."""
        steps = encoded.shape[1]
        positions = torch.arange(steps, device=encoded.device) % self.config.max_history
        x = encoded + self.position(positions)  # (B, T, d)
        mask = torch.triu(torch.ones(steps, steps, dtype=torch.bool, device=encoded.device),
                          diagonal=1)  # future
        out: torch.Tensor = self.transformer(x, mask=mask, is_causal=True,
                                             src_key_padding_mask=padding)
        return out

    # --- the decision ----------------------------------------------------------------------

    def decide(
        self,
        state: torch.Tensor,
        claim_embedding: torch.Tensor,
        context: torch.Tensor,
        scalars: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(…, state), (…, 384), (…, CONTEXT), (…, EVENT_SCALARS) → action logits (…, 6) and
        authenticity logit (…,)."""
        claim = self.claim(self.input_dropout(claim_embedding))
        z = torch.cat([state, claim, context, scalars], dim=-1)
        out = self.head(z)
        return out[..., :N_ACTIONS], out[..., N_ACTIONS]

    def states(
        self,
        embeddings: torch.Tensor,
        scalars: torch.Tensor,
        dt_days: torch.Tensor,
        lengths: torch.Tensor,
    ) -> torch.Tensor:
        """The belief after each event of a padded batch of episodes.

        embeddings (B, T, 384), scalars (B, T, EVENT_SCALARS), dt_days (B, T) (0 on padding),
        lengths (B,) → (B, T, state)."""
        return self.states_and_speed(embeddings, scalars, dt_days, lengths)[0]

    def states_and_speed(
        self,
        embeddings: torch.Tensor,
        scalars: torch.Tensor,
        dt_days: torch.Tensor,
        lengths: torch.Tensor,
        speed: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """`states`, and (when `speed`) the mean squared speed ||f_θ(h)||² at the states the
        flow starts from — a kinetic regularizer that keeps the learned flow smooth, so the
        adaptive solver takes few steps (Finlay et al. 2020)."""
        encoded = self.encode(embeddings, scalars)  # (B, T, event_hidden)
        zero = torch.zeros(())
        if self.config.variant == "transformer":
            padding = torch.arange(encoded.shape[1]).unsqueeze(0) >= lengths.unsqueeze(1)
            return self.attend(encoded, padding), zero
        h = self.initial(encoded.shape[0])
        out = []
        kinetic = []
        for t in range(encoded.shape[1]):
            if speed and self.config.variant == "ode" and self.flow:
                moving = (dt_days[:, t] > 0).float().unsqueeze(-1)  # (B, 1)
                kinetic.append((self.field(zero, h).pow(2) * moving).sum(-1).mean())
            h = self.evolve(h, dt_days[:, t])
            h = self.update(h, encoded[:, t])
            out.append(h)
        energy = torch.stack(kinetic).mean() if kinetic else zero
        return torch.stack(out, dim=1), energy  # (B, T, latent), ()
