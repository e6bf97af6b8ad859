"""Episodes: one attempt by one policy at one task, every step kept.

:class:`Episode` is the environment (``reset``, ``step``, ``judge``) over a task, a sandbox and
the family's tools; :func:`run_episode` drives a :class:`assay.policies.Policy` through one and
returns its :class:`Trajectory`, which :func:`write_jsonl` exports.
"""

from assay.episodes.episode import Episode, Judged, Observation
from assay.episodes.loop import run_episode
from assay.episodes.prompts import PROMPT_VERSION, last_fenced_block
from assay.episodes.records import (
    Budget,
    Cost,
    EndReason,
    Step,
    ToolStep,
    Trajectory,
    read_jsonl,
    write_jsonl,
)

__all__ = [
    "PROMPT_VERSION",
    "Budget",
    "Cost",
    "EndReason",
    "Episode",
    "Judged",
    "Observation",
    "Step",
    "ToolStep",
    "Trajectory",
    "last_fenced_block",
    "read_jsonl",
    "run_episode",
    "write_jsonl",
]
