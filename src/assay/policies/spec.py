"""Policy specs: ``openai:MODEL``, ``reference``, ``bad:LABEL``, ``empty``, ``mix:SEED``,
``replay:RUN``, parsed to policies."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from assay.errors import PolicySpecError
from assay.policies.base import Policy, Sampling
from assay.policies.openai_chat import OpenAIPolicy
from assay.policies.replay import Recorded, ReplayPolicy
from assay.policies.scripted import MixedPolicy, ScriptedPolicy

SPECS = "openai:MODEL, reference, bad:LABEL, empty, mix:SEED, replay:RUN"
_LABEL = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def parse_policy(
    spec: str,
    *,
    base_url: str | None = None,
    sampling: Sampling | None = None,
    concurrency: int = 16,
    retries: int = 4,
    timeout_s: float = 120.0,
    recorded: Callable[[str], Mapping[tuple[str, int], Recorded]] | None = None,
) -> Policy:
    """The policy ``spec`` names; the keyword arguments apply to model policies only, but for
    ``recorded``, which reads a run's recorded episodes for ``replay:RUN`` (a store gives it).

    Raises :class:`PolicySpecError` with one line saying what is wrong and the forms accepted.
    """
    kind, colon, argument = spec.strip().partition(":")
    if kind == "openai":
        if not argument.strip():
            raise PolicySpecError(
                "openai needs a model name", field="policy", fix="write openai:MODEL"
            )
        return OpenAIPolicy(
            argument.strip(),
            base_url=base_url,
            sampling=sampling,
            concurrency=concurrency,
            retries=retries,
            timeout_s=timeout_s,
        )
    if kind == "bad":
        label = argument.strip().removeprefix("bad-")
        if not _LABEL.match(label):
            raise PolicySpecError(
                f"{spec!r} needs the label of a known-bad solution",
                field="policy",
                fix="write bad:LABEL, e.g. bad:off-by-one",
            )
        return ScriptedPolicy("bad", label)
    if kind == "mix":
        seed = argument.strip()
        if not re.fullmatch(r"[0-9]{1,18}", seed):
            raise PolicySpecError(
                f"{spec!r} needs a seed, a whole number",
                field="policy",
                fix="write mix:SEED, e.g. mix:7",
            )
        return MixedPolicy(int(seed))
    if kind == "replay":
        return _replay(spec, argument.strip(), recorded)
    if kind in ("reference", "empty"):
        if colon:
            raise PolicySpecError(f"{kind} takes no argument", field="policy", fix=f"write {kind}")
        return ScriptedPolicy("reference" if kind == "reference" else "empty")
    shown = spec if len(spec) <= 60 else f"{spec[:60]}..."
    raise PolicySpecError(f"unknown policy {shown!r}", field="policy", fix=f"use one of: {SPECS}")


def _replay(
    spec: str, run: str, recorded: Callable[[str], Mapping[tuple[str, int], Recorded]] | None
) -> ReplayPolicy:
    if not run:
        raise PolicySpecError(
            f"{spec!r} needs the name of a run", field="policy", fix="write replay:RUN"
        )
    if recorded is None:
        raise PolicySpecError(
            "replay:RUN reads a run from a results store, and none was given",
            field="policy",
            fix="run it through `assay run`, which opens the store",
        )
    return ReplayPolicy(run, recorded(run))
