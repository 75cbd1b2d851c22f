"""The domain core: the vocabulary, the claim types and the contracts the models implement.

It imports nothing else of the project; every other room may import it."""
