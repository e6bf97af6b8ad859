"""Model judges for rubric criteria, their prompt and strict answer format, and the red-team set
of answers that flatter a judge (:mod:`assay.judges.attacks`)."""

from assay.judges.attacks import ATTACKS, Attack, attacked
from assay.judges.model import (
    API_KEY_ENV,
    BASE_URL_ENV,
    Graded,
    JudgeSpec,
    ModelJudge,
    judge_criterion,
)
from assay.judges.prompt import PROMPT_VERSION, JudgePrompt, build_prompt, parse_answer

__all__ = [
    "API_KEY_ENV",
    "ATTACKS",
    "BASE_URL_ENV",
    "PROMPT_VERSION",
    "Attack",
    "Graded",
    "JudgePrompt",
    "JudgeSpec",
    "ModelJudge",
    "attacked",
    "build_prompt",
    "judge_criterion",
    "parse_answer",
]
