"""The authenticity gate: an ODE-RNN over a user's event stream (torch + torchdiffeq)."""
