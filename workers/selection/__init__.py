"""Training of the selector's preference utility r_p (numpy inference lives in app/selection)."""
