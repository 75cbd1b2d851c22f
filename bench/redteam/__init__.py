"""`capture bench redteam`: generated attacks on memory admission and on check-call, with
their benign counterparts, driven through the service's HTTP API."""
