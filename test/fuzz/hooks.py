"""Schemathesis hooks of the contract fuzz run (loaded through SCHEMATHESIS_HOOKS by contract-fuzz.test.ts).

A few rules relate two members of a body (a minimum above its maximum, two names of one agent). OpenAPI
3.0 cannot state them, so a request the document allows can break them and is rightly refused with a
400; the operation's description states each rule. Rather than turning positive_data_acceptance off
for the whole operation, the positive cases that break one of these rules are not generated: every
other schema-valid request of the operation must still be accepted. Negative cases are left alone.
The reasons are in test/fuzz/README.md ("Exceptions").
"""

from collections.abc import Callable
from typing import Any

import schemathesis
from schemathesis.generation import GenerationMode

# What JavaScript's String.prototype.trim removes (src/schemas/common.ts TRIMMED).
_TRIMMED = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _above(obj: Any, low: str, high: str) -> bool:
    """`obj[low] > obj[high]`, both numbers (the service's `min must not exceed max`)."""
    return isinstance(obj, dict) and _number(obj.get(low)) and _number(obj.get(high)) and obj[low] > obj[high]


def _member(obj: Any, *path: str) -> Any:
    for name in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(name)
    return obj


def _two_agents(body: dict[str, Any]) -> bool:
    """agent_id and payload.agent_id naming different agents (src/experience/decision-events.ts agentOf)."""
    given, in_payload = body.get("agent_id"), _member(body, "payload", "agent_id")
    return isinstance(given, str) and isinstance(in_payload, str) and given.strip(_TRIMMED) != in_payload


# Per operation: does this body break a rule across members that the document cannot state?
_BREAKS: dict[tuple[str, str], Callable[[dict[str, Any]], bool]] = {
    ("POST", "/v1/intents"): lambda b: _above(b.get("budget_range"), "min", "max"),
    ("POST", "/v1/commerce-runtime"): lambda b: _above(_member(b, "intent", "budget_range"), "min", "max"),
    ("POST", "/v1/experience-feed"): lambda b: _above(_member(b, "taste_profile", "price_band"), "min", "max"),
    ("POST", "/v1/proposals"): lambda b: _above(b.get("shipping_commitment"), "min_days", "max_days"),
    ("POST", "/v1/decision-events"): _two_agents,
}


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    breaks = _BREAKS.get((case.operation.method.upper(), case.operation.path))
    meta = case.meta
    positive = meta is not None and meta.generation.mode == GenerationMode.POSITIVE
    return not (breaks and positive and isinstance(case.body, dict) and breaks(case.body))
