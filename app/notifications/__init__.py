"""Webhook notifications: endpoints a tenant registers, a transactional outbox of
deliveries, signed at-least-once delivery with retries."""
