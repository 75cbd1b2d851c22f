"""The learned extractor: MLP heads over MiniLM embeddings, trained on the benchmark's train
split."""
