"""The counterfactual citation audit: re-decoders and the Celery task `capture.audit`."""
