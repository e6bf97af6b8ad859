"""Policies: what acts in an episode.

A policy is given the conversation so far and the tool schemas and returns the next assistant
message with its tool calls and token usage (:class:`Policy`). Built in: ``openai:MODEL`` for any
OpenAI-compatible chat-completions endpoint, and the scripted ``reference``, ``bad:LABEL`` and
``empty``, which submit a task's own solutions through the same tools an agent uses,
``mix:SEED``, which picks among them like a model of uneven skill, and
``replay:RUN``, which replays the recorded actions of an earlier run.
"""

from assay.policies.base import (
    Policy,
    PolicyIdentity,
    PolicyRequest,
    PolicyTurn,
    Sampling,
    TurnClock,
)
from assay.policies.messages import Message, ToolCall, Usage
from assay.policies.openai_chat import OpenAIPolicy
from assay.policies.prices import Price, PriceTable
from assay.policies.replay import Recorded, ReplayPolicy
from assay.policies.scripted import MixedPolicy, ScriptedPolicy
from assay.policies.spec import SPECS, parse_policy

__all__ = [
    "SPECS",
    "Message",
    "MixedPolicy",
    "OpenAIPolicy",
    "Policy",
    "PolicyIdentity",
    "PolicyRequest",
    "PolicyTurn",
    "Price",
    "PriceTable",
    "Recorded",
    "ReplayPolicy",
    "Sampling",
    "ScriptedPolicy",
    "ToolCall",
    "TurnClock",
    "Usage",
    "parse_policy",
]
