"""``assay generate workflow``: self-checked cloud-API workflow tasks from the template bank.

For each task the generator draws an instance of a template (its initial state, the expected
final state computed by the template's own model of the workflow, the reference script with the
instance's parameters and its known-bad variants), renders the prompt in one of several styles
and in the language of the drawn locale (a vague request, for templates that have one, comes
with another expected state and reference per reasonable reading), adds a script that does
nothing and one that does the job and also deletes something it was not asked to, and verifies
every solution in the sandbox against a real emulator: every reference must pass and every
known-bad must fail (one labelled ``...-on-rerun`` by the idempotence check alone, its first
run being right), else the draw is redrawn. The same seed gives the same tasks.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from assay.errors import VerifierError
from assay.families.workflow.config import READING_SEPARATOR, SCRIPT
from assay.families.workflow.family import DECIDING, WorkflowFamily
from assay.families.workflow.prompts import STYLES, VAGUE, language_of, styles_for
from assay.families.workflow.state import CloudState
from assay.families.workflow.templates import (
    LOCALES,
    TEMPLATES,
    Draft,
    Template,
    render,
    variant,
)
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.similarity import is_near_duplicate, shingles
from assay.tasks.spec import Limits, TaskSpec
from assay.verdicts import Status, Verdict

MAX_DRAWS = 3
PROMPT_DRAWS = 4
CALLS_WEIGHT = 0.25
"""Weight of the api-calls criterion in generated tasks (the score only, never the status)."""
RERUN_SUFFIX = "-on-rerun"
"""Ends the label of a known-bad script whose first run is right and whose second is not."""
LIMITS = Limits(timeout_s=60, cpu_s=30, memory_mb=512)
"""Per run of the script; the audit's headroom check sums both runs of a verification."""


def generate_workflow_tasks(
    count: int,
    seed: int,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[Task], None] | None = None,
) -> list[Task]:
    """Make ``count`` tasks, deterministic in ``seed``, in a stable order. Each is verified
    before it is returned; raises :class:`VerifierError` when a template cannot make a sound
    task in :data:`MAX_DRAWS` draws. A draft whose prompt is a near duplicate of an earlier
    one is drawn again first (up to :data:`PROMPT_DRAWS` times)."""
    order = _template_order(count, seed)
    first_draws = _distinct_draws(order, seed)

    def make(index: int) -> Task:
        task = _make_task(order[index], seed, index, first_draws[index], sandbox)
        if on_task is not None:
            on_task(task)
        return task

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(make, range(count)))


def _template_order(count: int, seed: int) -> list[Template]:
    """Every template once per round, each round shuffled, so the bank is covered evenly."""
    rng = random.Random(f"assay-workflow-order:{seed}")
    order: list[Template] = []
    while len(order) < count:
        batch = list(TEMPLATES)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:count]


def _draw(template: Template, seed: int, index: int, draw: int) -> Task:
    return draft_task(template, random.Random(f"assay-workflow:{seed}:{index}:{draw}"), seed, index)


def _distinct_draws(order: list[Template], seed: int) -> list[int]:
    """For each task, the first draw whose prompt is no near duplicate of an earlier task's."""
    seen: dict[str, list[set[str]]] = {}
    draws = []
    for index, template in enumerate(order):
        earlier = seen.setdefault(template.id, [])
        draw = 0
        prompt = _draw(template, seed, index, draw).prompt
        while draw + 1 < PROMPT_DRAWS and is_near_duplicate(prompt, earlier):
            draw += 1
            prompt = _draw(template, seed, index, draw).prompt
        earlier.append(shingles(prompt))
        draws.append(draw)
    return draws


def _make_task(template: Template, seed: int, index: int, first: int, sandbox: Sandbox) -> Task:
    family = WorkflowFamily()
    problems: list[str] = []
    for draw in range(first, first + MAX_DRAWS):
        task = _draw(template, seed, index, draw)
        checked = self_check(family, task, sandbox)
        if isinstance(checked, int):
            config = {**task.spec.config, "reference_calls": checked, "calls_weight": CALLS_WEIGHT}
            return task.model_copy(update={"spec": task.spec.model_copy(update={"config": config})})
        problems.append(checked)
    raise VerifierError(
        f"template {template.id}: no sound task in {MAX_DRAWS} draws (seed {seed}, task "
        f"{index}): {problems[-1]}"
    )


def self_check(family: WorkflowFamily, task: Task, sandbox: Sandbox) -> int | str:
    """The API requests the reference made when ``task`` is sound; else why it is not (a
    reference that fails, a known-bad that passes, a ``...-on-rerun`` known-bad caught by its
    first run)."""
    calls = 0
    for name, files in sorted(task.solutions.items()):
        verdict = family.verify(task, files, sandbox)
        want = Status.PASS if name.startswith("reference") else Status.FAIL
        failed = [f"{c.name}: {c.evidence}" for c in verdict.criteria if not c.passed]
        if verdict.status is not want:
            return f"solutions/{name} is {verdict.status.value}, not {want.value}: {failed[:3]}"
        if name.endswith(RERUN_SUFFIX) and not _fails_on_rerun_only(verdict):
            return f"solutions/{name} is not right the first time, wrong on a rerun: {failed[:3]}"
        if name == "reference":
            counted = [c.evidence for c in verdict.criteria if c.name == "api-calls"]
            calls = int(counted[0].split()[0]) if counted else 0
    return max(calls, 1)


def _fails_on_rerun_only(verdict: Verdict) -> bool:
    """Whether the one deciding criterion ``verdict`` fails is the idempotence check: what a
    known-bad labelled ``...-on-rerun`` must show, its first run being right."""
    failed = {c.kind for c in verdict.criteria if c.kind in DECIDING and not c.passed}
    return failed == {"idempotence"}


def draft_task(
    template: Template, rng: random.Random, seed: int, index: int, *, style: str | None = None
) -> Task:
    """One task drawn from ``template`` (not yet checked), in ``style`` when given (drawn
    otherwise). A vague task holds each other reading's expected state and reference, and none
    of the known-bad scripts that a reading makes right."""
    locale = rng.choice(sorted(LOCALES))
    draft = template.build(rng, locale)
    drawn = rng.choice([*styles_for(draft.vague is not None), *_vague_again(draft)])
    style = style or drawn
    if style == VAGUE and draft.vague is None:
        raise ValueError(f"template {template.id} has no vague form")
    vague = style == VAGUE
    readings = draft.readings if vague else ()
    reference = render(template.script(), draft.params)
    solutions: dict[str, Files] = {"reference": _script(reference)}
    hidden = {"expected.json": draft.expected.to_json()}
    for reading in readings:
        solutions[f"reference-{reading.name}"] = _script(variant(reference, reading.changes))
        hidden[f"expected{READING_SEPARATOR}{reading.name}.json"] = reading.expected.to_json()
    allowed = {label for reading in readings for label in reading.allows}
    for label, changes in sorted(draft.bad.items()):
        if label not in allowed:
            solutions[f"bad-{label}"] = _script(variant(reference, changes))
    solutions["bad-does-nothing"] = _script("# nothing to do\n")
    everyone = [draft.expected, *(reading.expected for reading in readings)]
    solutions["bad-deletes-too-much"] = _script(
        reference + "\n" + _collateral(draft.initial, everyone)
    )
    digest = hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:8]
    language = language_of(draft.locale)
    tags = (template.id, f"style:{style}", f"lang:{language}", *template.services)
    spec = TaskSpec(
        id=f"workflow-{template.id}-{digest}",
        family="workflow",
        tags=(*tags, "readings") if readings else tags,
        locale=draft.locale,
        difficulty=template.difficulty,
        limits=LIMITS,
        config={"seed": seed},
    )
    facts = draft.vague if vague and draft.vague is not None else draft.facts
    return Task(
        spec=spec,
        prompt=STYLES[style](facts, draft.locale, draft.initial, rng),
        workspace={"state.json": draft.initial.to_json()},
        hidden=hidden,
        solutions=solutions,
    )


def _vague_again(draft: Draft) -> list[str]:
    """The vague style once more for a template that has it, so that vague requests are not
    rarer than the other styles in a set where few templates have one."""
    return [VAGUE] if draft.vague is not None else []


def _script(text: str) -> Files:
    return {SCRIPT: (text.rstrip("\n") + "\n").encode()}


def _collateral(initial: CloudState, readings: list[CloudState]) -> str:
    """Code that deletes one thing every reading leaves alone (run after doing the job)."""
    head = "import boto3 as _boto3\n"
    for bucket, objects in sorted(initial.buckets.items()):
        for key in sorted(objects):
            if all(state.buckets.get(bucket, {}).get(key) == objects[key] for state in readings):
                return head + f"_boto3.client('s3').delete_object(Bucket={bucket!r}, Key={key!r})\n"
    for queue, messages in sorted(initial.queues.items()):
        if messages and all(
            not Counter(messages) - Counter(state.queues.get(queue, ())) for state in readings
        ):
            return (
                head + "_sqs = _boto3.client('sqs')\n"
                f"_sqs.purge_queue(QueueUrl=_sqs.get_queue_url(QueueName={queue!r})['QueueUrl'])\n"
            )
    for table, content in sorted(initial.tables.items()):
        for item in content.items:
            if all(table in s.tables and item in s.tables[table].items for s in readings):
                keys = [k for k in (content.hash_key, content.range_key) if k is not None]
                primary = {k: item[k] for k in keys}
                return (
                    head
                    + f"_boto3.resource('dynamodb').Table({table!r}).delete_item(Key={primary!r})\n"
                )
    for group, streams in sorted(initial.logs.items()):
        if any(streams.values()) and all(state.logs.get(group) == streams for state in readings):
            return head + f"_boto3.client('logs').delete_log_group(logGroupName={group!r})\n"
    raise VerifierError("the template leaves nothing untouched to delete by mistake")
