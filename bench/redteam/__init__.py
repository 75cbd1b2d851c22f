"""`capture bench redteam`: generated attacks on memory admission and on check-call, with
their benign counterparts, driven through the service's HTTP API. Families are split three
ways: dev, test (held out) and sealed (families of their own, pinned by a committed hash
and read once, at the end of a piece of work: `sealed.py`)."""
