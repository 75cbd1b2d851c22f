"""Text analysis with no state that more than one stage reads: canonical forms and the values
a text holds (`normalize.py`), and the passages of a user turn a third party wrote
(`pasted.py`).

It imports nothing else of the project; every other room may import it."""
