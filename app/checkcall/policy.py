"""The operator's tool policy: each tool's side effect, its sink and content arguments, the
allowlist, and the default for tools it does not know. Loaded from a versioned YAML file
(`CAPTURE_TOOL_POLICY_PATH`, default `default_policy.yaml` beside this module)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from app.core.config import get_settings
from app.text.normalize import ValueKind, domain_covered, normalize_email, normalize_iban

DEFAULT_POLICY_PATH = Path(__file__).with_name("default_policy.yaml")
WILDCARD_ARG = "*"


class SideEffect(StrEnum):
    read = "read"
    write = "write"
    external_send = "external_send"


class Risk(StrEnum):
    high = "high"
    low = "low"


class SinkSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ValueKind | Literal["auto"] = "auto"
    risk: Risk = Risk.high
    # None: external for external_send tools, internal for write tools.
    external: bool | None = None


class ToolSpecFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side_effect: SideEffect
    sinks: dict[str, SinkSpec] = Field(default_factory=dict)
    content: list[str] = Field(default_factory=list)
    require: Literal["ask"] | None = None


class PatternSpecFile(ToolSpecFile):
    match: str


class AllowlistFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domains: list[str] = Field(default_factory=list)
    recipients: list[str] = Field(default_factory=list)


class DefaultsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    unknown_tool: Literal["ask", "deny"] = "ask"


class PolicyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str = Field(min_length=1, max_length=32)
    defaults: DefaultsFile = Field(default_factory=DefaultsFile)
    allowlist: AllowlistFile = Field(default_factory=AllowlistFile)
    tenants: dict[str, AllowlistFile] = Field(default_factory=dict)
    tools: dict[str, ToolSpecFile] = Field(default_factory=dict)
    patterns: list[PatternSpecFile] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Sink:
    kind: ValueKind | Literal["auto"]
    risk: Risk
    external: bool


# What classified a tool: the operator's policy file (by name or pattern), a declaration
# the tenant's admin registered, a declaration passed with the call, or nothing (the
# fail-closed default).
ToolSource = Literal["policy", "registered", "declaration", "default"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """How check-call sees one tool call's tool."""

    name: str
    side_effect: SideEffect
    sinks: dict[str, Sink]
    content: tuple[str, ...]
    known: bool
    require_ask: bool = False
    source: ToolSource = "policy"
    # The policy file's pattern that named the tool (None: its exact name, or not the file).
    pattern: str | None = None
    # Info reasons (code, argument) saying where a declaration added to the policy file.
    notes: tuple[tuple[str, str | None], ...] = ()
    # Of a declared tool: the arguments its declaration names as where it delivers.
    destinations: dict[str, Sink] = field(default_factory=dict)

    def sink_for(self, arg: str) -> Sink | None:
        return self.sinks.get(arg) or self.sinks.get(WILDCARD_ARG)


@dataclass(frozen=True, slots=True)
class Allowlist:
    domains: frozenset[str] = frozenset()
    recipients: frozenset[str] = frozenset()

    def covers_domain(self, domain: str) -> bool:
        return any(domain_covered(domain, allowed) for allowed in self.domains)

    def covers(self, kind: ValueKind, normalized: str, domain: str | None) -> bool:
        if normalized in self.recipients:
            return True
        return (
            domain is not None
            and kind in (ValueKind.email, ValueKind.url, ValueKind.domain)
            and self.covers_domain(domain)
        )


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    version: str
    unknown_tool: Literal["ask", "deny"]
    allowlist: Allowlist
    tenants: dict[str, Allowlist] = field(default_factory=dict)
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    patterns: tuple[tuple[str, ToolSpec], ...] = ()

    def named(self, name: str) -> ToolSpec | None:
        """The tool as the policy file names it (exact name, else the first matching
        pattern); None when the file does not name it."""
        spec = self.tools.get(name)
        if spec is not None:
            return spec
        for pattern, pattern_spec in self.patterns:
            if fnmatch.fnmatchcase(name, pattern):
                return ToolSpec(
                    name=name,
                    side_effect=pattern_spec.side_effect,
                    sinks=pattern_spec.sinks,
                    content=pattern_spec.content,
                    known=True,
                    require_ask=pattern_spec.require_ask,
                    pattern=pattern,
                )
        return None

    def tool(self, name: str) -> ToolSpec:
        """The tool as the policy file names it, else the fail-closed default."""
        return self.named(name) or unknown_tool(name)

    def allowlist_for(self, tenant_name: str | None) -> Allowlist:
        extra = self.tenants.get(tenant_name or "")
        if extra is None:
            return self.allowlist
        return Allowlist(
            domains=self.allowlist.domains | extra.domains,
            recipients=self.allowlist.recipients | extra.recipients,
        )


def unknown_tool(name: str) -> ToolSpec:
    """A tool nothing declares: assume it has an effect outside the user and trace every
    argument."""
    return ToolSpec(
        name=name,
        side_effect=SideEffect.external_send,
        sinks={WILDCARD_ARG: Sink(kind="auto", risk=Risk.high, external=True)},
        content=(),
        known=False,
        source="default",
    )


def _allowlist(raw: AllowlistFile) -> Allowlist:
    recipients: set[str] = set()
    for value in raw.recipients:
        email = normalize_email(value)
        iban = normalize_iban(value)
        recipients.add(email or iban or value.strip().casefold())
    return Allowlist(
        domains=frozenset(d.strip().lower().removeprefix("www.") for d in raw.domains),
        recipients=frozenset(recipients),
    )


def _spec(name: str, raw: ToolSpecFile) -> ToolSpec:
    default_external = raw.side_effect == SideEffect.external_send
    sinks = {
        arg: Sink(
            kind=sink.kind,
            risk=sink.risk,
            external=default_external if sink.external is None else sink.external,
        )
        for arg, sink in raw.sinks.items()
    }
    return ToolSpec(
        name=name,
        side_effect=raw.side_effect,
        sinks=sinks,
        content=tuple(raw.content),
        known=True,
        require_ask=raw.require == "ask",
    )


def parse_policy(data: object) -> ToolPolicy:
    """A policy from parsed YAML; raises pydantic.ValidationError on a malformed file."""
    raw = PolicyFile.model_validate(data)
    return ToolPolicy(
        version=raw.version,
        unknown_tool=raw.defaults.unknown_tool,
        allowlist=_allowlist(raw.allowlist),
        tenants={name: _allowlist(extra) for name, extra in raw.tenants.items()},
        tools={name: _spec(name, spec) for name, spec in raw.tools.items()},
        patterns=tuple((p.match, _spec(p.match, p)) for p in raw.patterns),
    )


def load_policy(path: Path) -> ToolPolicy:
    with path.open(encoding="utf-8") as handle:
        return parse_policy(yaml.safe_load(handle))


@lru_cache(maxsize=4)
def _cached(path: Path) -> ToolPolicy:
    return load_policy(path)


_override: ToolPolicy | None = None


def get_policy() -> ToolPolicy:
    """The policy in force: an override (tests, benchmarks), else the configured file."""
    if _override is not None:
        return _override
    return _cached(get_settings().tool_policy_path or DEFAULT_POLICY_PATH)


@contextmanager
def override_policy(policy: ToolPolicy) -> Iterator[ToolPolicy]:
    """Decide under `policy` inside the block (tests and benchmarks)."""
    global _override
    previous, _override = _override, policy
    try:
        yield policy
    finally:
        _override = previous
