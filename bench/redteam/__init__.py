"""`capture bench redteam`: generated attacks on memory admission and on check-call, with
their benign counterparts, driven through the service's HTTP API. Families are split into
dev, test (held out) and sealed sets (`sealed`, `sealed2`, `sealed3`, `sealed4`: families of
their own, each pinned by a committed hash and read once, at the end of a piece of work:
`sealed.py`)."""
