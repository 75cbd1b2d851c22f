"""Typed Python client for Capture: memory governance for LLM agents."""

from capture_client._base import OPERATIONS, Operation, __version__
from capture_client._retry import NO_RETRIES, RetryPolicy
from capture_client.async_client import AsyncCapture
from capture_client.client import Capture
from capture_client.errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequest,
    CaptureError,
    Conflict,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    ValidationError,
)
from capture_client.guard import GuardResult, compose_question
from capture_client.models import ToolAnnotations, ToolDeclaration

__all__ = [
    "NO_RETRIES",
    "OPERATIONS",
    "APIConnectionError",
    "APIError",
    "AsyncCapture",
    "AuthenticationError",
    "BadRequest",
    "Capture",
    "CaptureError",
    "Conflict",
    "GuardResult",
    "NotFound",
    "Operation",
    "PayloadTooLarge",
    "PermissionDenied",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailable",
    "ToolAnnotations",
    "ToolDeclaration",
    "ValidationError",
    "__version__",
    "compose_question",
]
