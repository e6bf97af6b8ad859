"""``assay generate config``: diverse, self-checked Kubernetes configuration tasks from the
template bank.

For each task the generator draws a problem from a template (NetworkPolicy, RBAC, resource
limits, security contexts, Services), a locale and a prompt style, writes the cluster, the
expectations and the solutions, and verifies in the sandbox that every reference passes, every
known-bad solution fails and doing nothing fails. A draw that does not is redrawn, so a
generated task set passes its own audit; a template that keeps failing is an error naming it.
The same seed gives the same tasks.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import tomli_w
import yaml

from assay.errors import VerifierError
from assay.families.config.family import ConfigFamily
from assay.families.config.prompts import STYLES, styles_for
from assay.families.config.spec import EXPECTED_FILE, READING_PREFIX
from assay.families.config.templates import LOCALES, TEMPLATES, Template
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.spec import Limits, TaskSpec
from assay.verdicts import Status

MAX_DRAWS = 4
KUBERNETES = "1.33"
CLUSTER_FILE = "cluster.yaml"
SOLUTION_FILE = "objects.yaml"
LIMITS = Limits(timeout_s=20, cpu_s=20, memory_mb=512)


def generate_config_tasks(
    count: int,
    seed: int,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[Task], None] | None = None,
) -> list[Task]:
    """Make ``count`` tasks from the bank, deterministic in ``seed``, in a stable order.
    Raises :class:`VerifierError` when a template cannot make a sound task."""
    order = _template_order(count, seed)

    def make(index: int) -> Task:
        task = _make_task(order[index], seed, index, sandbox)
        if on_task is not None:
            on_task(task)
        return task

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(make, range(count)))


def _template_order(count: int, seed: int) -> list[Template]:
    """Every template once per round, each round shuffled, so the bank is covered evenly."""
    rng = random.Random(f"assay-config-order:{seed}")
    order: list[Template] = []
    while len(order) < count:
        batch = list(TEMPLATES)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:count]


def _make_task(template: Template, seed: int, index: int, sandbox: Sandbox) -> Task:
    family = ConfigFamily()
    problems = []
    for draw in range(MAX_DRAWS):
        rng = random.Random(f"assay-config:{seed}:{index}:{draw}")
        task = draft(template, rng, seed, index)
        problems = self_check(family, task, sandbox)
        if not problems:
            return task
    raise VerifierError(
        f"template {template.id} made no sound task in {MAX_DRAWS} draws (seed {seed}, task "
        f"{index}): {'; '.join(problems)[:500]}"
    )


def self_check(family: ConfigFamily, task: Task, sandbox: Sandbox) -> list[str]:
    """What is wrong with ``task``'s solutions: a reference that does not pass, a known-bad
    solution or nothing at all that does not fail. Empty when the task is sound."""
    problems = []
    for name, files in task.references().items():
        verdict = family.verify(task, files, sandbox)
        if verdict.status is not Status.PASS:
            problems.append(f"{name} gives {verdict.status.value}: {_why(verdict.criteria)}")
    for name, files in [*task.known_bad().items(), ("empty", family.empty_solution(task))]:
        verdict = family.verify(task, files, sandbox)
        if verdict.status is not Status.FAIL:
            problems.append(f"{name} gives {verdict.status.value}: {verdict.summary}")
    return problems


def draft(
    template: Template,
    rng: random.Random,
    seed: int,
    index: int,
    *,
    style: str | None = None,
    locale: str | None = None,
) -> Task:
    """One task drawn from ``template`` (not yet checked), in ``style`` and ``locale`` when
    given (drawn otherwise)."""
    problem = template.build(rng)
    drawn_locale = rng.choice(LOCALES)
    drawn_style = rng.choice(styles_for(problem))
    locale = locale or drawn_locale
    style = style or drawn_style
    context = {
        "file": CLUSTER_FILE,
        "kinds": ", ".join(problem.kinds),
        "version": KUBERNETES,
    }
    digest = hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:8]
    spec = TaskSpec(
        id=f"config-{template.id}-{digest}",
        family="config",
        tags=tuple(
            dict.fromkeys((template.category, template.id, f"style:{style}", *problem.tags))
        ),
        locale=locale,
        difficulty=template.difficulty,
        limits=LIMITS,
        config={"kubernetes": KUBERNETES, "cluster": CLUSTER_FILE, "kinds": list(problem.kinds)},
    )
    hidden = {EXPECTED_FILE: _toml(problem.expected)}
    solutions: dict[str, Files] = {"reference": _yaml_files(problem.reference)}
    if style == "vague":
        for reading in problem.readings:
            hidden[f"{READING_PREFIX}{reading.name}.toml"] = _toml(reading.expected)
            solutions[f"reference-{reading.name}"] = _yaml_files(reading.reference)
    for label, objects in sorted(problem.bad.items()):
        solutions[f"bad-{label}"] = _yaml_files(objects)
    return Task(
        spec=spec,
        prompt=STYLES[style](problem, locale, context, rng),
        workspace={CLUSTER_FILE: _yaml(problem.cluster)},
        hidden=hidden,
        solutions=solutions,
    )


def _why(criteria: Sequence[Any]) -> str:
    return "; ".join(f"{c.name}: {c.evidence}" for c in criteria if not c.passed)[:300]


def _yaml(objects: Sequence[dict[str, Any]]) -> bytes:
    return str(yaml.safe_dump_all(objects, sort_keys=False, allow_unicode=True)).encode()


def _yaml_files(objects: Sequence[dict[str, Any]]) -> Files:
    return {SOLUTION_FILE: _yaml(objects)}


def _toml(data: dict[str, Any]) -> bytes:
    return tomli_w.dumps(data).encode()
