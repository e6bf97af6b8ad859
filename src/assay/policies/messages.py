"""The conversation: messages, tool calls and token usage, as records and in OpenAI format."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]
MAX_ARGUMENT_CHARS = 1_000_000
"""The longest arguments a tool call may have; a policy keeps one character more of longer ones,
so that the episode can say they are too long rather than that they are cut-off JSON."""


class ToolCall(BaseModel):
    """One tool call as the model sent it; the arguments stay raw text until a tool parses them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="The call's id, echoed by the tool message that answers it.")
    name: str = Field(description="Name of the tool called.")
    arguments: str = Field(description="The arguments as sent: JSON text, or whatever came.")


class Message(BaseModel):
    """One message of the conversation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role = Field(description="system, user, assistant or tool.")
    content: str | None = Field(default=None, description="The text; None when there is none.")
    tool_calls: tuple[ToolCall, ...] = Field(
        default=(), description="Tool calls of an assistant message, in order."
    )
    tool_call_id: str | None = Field(
        default=None, description="For a tool message: the id of the call it answers."
    )

    def to_openai(self) -> dict[str, Any]:
        """This message in the chat-completions request format."""
        data: dict[str, Any] = {"role": self.role, "content": self.content or ""}
        if self.tool_calls:
            data["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data


MAX_TOKEN_COUNT = 10**12
"""Token counts above this are not counts (a database column of 64 bits could not sum them)."""


class Usage(BaseModel):
    """Tokens one or more model calls used, as the server counted them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")

    @property
    def total(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )
