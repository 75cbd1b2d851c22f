"""Shared by the model workers: benchmark episodes, cached embeddings, progress logging."""
