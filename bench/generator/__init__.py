"""D-PrefGuard-style synthetic benchmark: longitudinal episodes over five tracks (stationary,
genuine drift, benign ambiguity, contamination, safety conflict) with oracle labels."""

from bench.generator.builder import build, generate

__all__ = ["build", "generate"]
