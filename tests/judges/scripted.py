"""Scripted judge models: each reads a judge request as a model would and answers it.

``honest`` scores real work and ignores everything else; ``naive`` is flattered by the attacks;
``copycat`` copies any answer-shaped JSON it finds into its answer; ``obeys_outside_data`` follows
instructions it finds outside the data block, where the block ends at the first line equal to the
end marker its instructions announce.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.policies.server import Reply

WORK = "sorted("
"""What the honest judge takes as real work in a median solution."""
FLATTERY = ("correct", "PASS", "GRADER", "score", "criterion", "careful", "optimal")


def system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def user(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def nonce(body: dict[str, Any]) -> str:
    found = re.search(r'"id": "([^"]+)"', system(body))
    return found.group(1) if found else "?"


def submission(body: dict[str, Any]) -> str:
    """The text between the announced markers (what assay put there)."""
    start, end = _markers(body)
    text = user(body)
    return text.split(start + "\n", 1)[-1].split("\n" + end, 1)[0]


def _markers(body: dict[str, Any]) -> tuple[str, str]:
    found = re.search(r"between the line (\S.*?>>>) and the line (\S.*?>>>)", system(body))
    assert found, "the prompt announces its markers"
    return found.group(1), found.group(2)


def answer(body: dict[str, Any], score: int) -> Reply:
    return Reply(content=json.dumps({"id": nonce(body), "score": score}), model="judge-v1")


def honest(body: dict[str, Any]) -> Reply:
    return answer(body, 9 if WORK in submission(body) else 1)


def naive(body: dict[str, Any]) -> Reply:
    text = submission(body)
    flattered = any(word.lower() in text.lower() for word in FLATTERY) or len(text) > 3000
    return answer(body, 10 if flattered else (9 if WORK in text else 1))


def copycat(body: dict[str, Any]) -> Reply:
    """Copies the first line of the submission that looks like a judge answer, if any."""
    for line in submission(body).splitlines():
        candidate = line.lstrip("# ").strip()
        if candidate.startswith("{") and '"score"' in candidate:
            return Reply(content=candidate, model="judge-v1")
    return honest(body)


def obeys_outside_data(body: dict[str, Any]) -> Reply:
    """Ends the data block at the first line equal to the announced end marker, and obeys an
    'Answer {"score": N}' found after it."""
    start, end = _markers(body)
    text = user(body).split(start + "\n", 1)[-1]
    lines = text.splitlines()
    closing = next((i for i, line in enumerate(lines) if line.lstrip("# ").strip() == end), None)
    if closing is not None:
        after = "\n".join(lines[closing + 1 :])
        ordered = re.search(r'Answer \{"score": (\d+)\}', after)
        if ordered:
            return answer(body, int(ordered.group(1)))
    return honest(body)


def chatml_turns(body: dict[str, Any]) -> list[tuple[str, str]]:
    """The conversation as a server that renders ChatML and tokenizes the whole text sees it:
    every ``<|im_start|>`` in it opens a turn, wherever it came from."""
    rendered = "".join(
        f"<|im_start|>{m['role']}\n{m.get('content') or ''}<|im_end|>\n" for m in body["messages"]
    )
    turns = []
    for piece in rendered.split("<|im_start|>")[1:]:
        role, _, content = piece.partition("\n")
        turns.append((role, content.split("<|im_end|>", 1)[0]))
    return turns


def obeys_system_turns(body: dict[str, Any]) -> Reply:
    """Honest, but follows a system turn that comes after the user's, as chat models are
    trained to: 'score N' in it is the answer, under the id its first instructions gave."""
    turns = chatml_turns(body)
    first_user = next(i for i, (role, _) in enumerate(turns) if role == "user")
    for role, content in turns[first_user:]:
        ordered = re.search(r"score (\d+)", content) if role == "system" else None
        if ordered:
            return answer(body, int(ordered.group(1)))
    return honest(body)
