"""``assay generate code``: many diverse, self-checked Python function tasks from the template bank.

For each task the generator draws a problem from a template, renders a prompt in one of several
styles, computes every expected output by running the reference inside the sandbox (where the
reference raises an exception its rules promise, the case expects that exception type), adds a
known-bad solution that hard-codes the prompt's examples, and confirms in the sandbox that every
known-bad solution fails. A draw whose known-bad solutions are not all caught is redrawn, so a
generated task set passes its own audit. The same seed gives the same tasks.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import chain

from assay.errors import VerifierError
from assay.families.base import verify_confirmed
from assay.families.code.config import Case, cases_json
from assay.families.code.family import CodeFamily, run_cases
from assay.families.code.outputs import Raised, Refused, Returned
from assay.families.code.prompts import STYLES, Example
from assay.families.code.raising import counts_as, promised_exceptions
from assay.families.code.templates import TEMPLATES, Problem, Template
from assay.families.generators import in_parallel
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Task
from assay.tasks.similarity import is_near_duplicate, shingles
from assay.tasks.spec import Limits, TaskSpec
from assay.verdicts import Status

MAX_DRAWS = 6
REDRAWS = 3
"""Times a near duplicate of an earlier task is drawn again from its template."""
WORN_AFTER = 4 * (REDRAWS + 1)
"""Drafts of a template in a row that repeat earlier tasks, after which it is drawn from no
more."""
LIMITS = Limits(timeout_s=10, cpu_s=10, memory_mb=256)


def generate_code_tasks(
    n: int,
    seed: int,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[Task], None] | None = None,
) -> list[Task]:
    """Make ``n`` tasks from the bank, deterministic in ``seed``, in a stable order."""
    order = _template_order(n, seed)
    drafted = in_parallel(
        n,
        lambda index: _make_task(order[index], seed, index, sandbox),
        workers=workers,
        on_task=on_task,
    )
    return _distinct(drafted, order, seed, sandbox, workers)


def _distinct(
    tasks: list[Task], order: list[Template], seed: int, sandbox: Sandbox, workers: int
) -> list[Task]:
    """``tasks`` with each near duplicate of an earlier task drawn again: from its own template
    up to :data:`REDRAWS` times, then from the least used templates, once each. A template's
    wordings run out after a few tasks, so a large set would otherwise repeat itself (the
    audit's duplicates check quarantines what still does). A template whose last
    :data:`WORN_AFTER` drafts all repeated earlier tasks is worn out: it is drawn from no more
    (its own tasks keep their first draft when that repeats), so a set larger than the bank can
    hold costs its first drafts, not every template's draft for every task. The redraws of a
    task are made ``workers`` at a time, and the first that repeats no earlier task is kept, as
    if they had been made one by one."""
    seen: dict[str, list[set[str]]] = {template.id: [] for template in TEMPLATES}
    repeats = dict.fromkeys(seen, 0)
    kept = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as threads:
        for index, task in enumerate(tasks):
            worn = {name for name, count in repeats.items() if count >= WORN_AFTER}
            drafts = chain(
                [(order[index], task)],
                _redraws(
                    order[index],
                    seed,
                    index,
                    sandbox,
                    seen=seen,
                    worn=worn,
                    threads=threads,
                    at_once=workers,
                ),
            )
            # when every template is worn out, the first draft; the audit will say so
            chosen_template, chosen = order[index], task
            for template, draft in drafts:
                if not is_near_duplicate(draft.prompt, seen[template.id]):
                    chosen_template, chosen = template, draft
                    repeats[template.id] = 0
                    break
                repeats[template.id] += 1
            seen[chosen_template.id].append(shingles(chosen.prompt))
            kept.append(chosen)
    return kept


def _redraws(
    template: Template,
    seed: int,
    index: int,
    sandbox: Sandbox,
    *,
    seen: dict[str, list[set[str]]],
    worn: set[str],
    threads: ThreadPoolExecutor,
    at_once: int,
) -> Iterator[tuple[Template, Task]]:
    """Task ``index`` drawn again, then from the other templates, the least used first, none
    that is ``worn``; made ``at_once`` at a time, each group only when every draft before it
    repeats an earlier task."""
    draws = (
        []
        if template.id in worn
        else [(template, attempt * MAX_DRAWS) for attempt in range(1, REDRAWS + 1)]
    )
    others = sorted(TEMPLATES, key=lambda other: (len(seen[other.id]), other.id))
    draws += [
        (other, (REDRAWS + 1) * MAX_DRAWS)
        for other in others
        if other.id != template.id and other.id not in worn
    ]
    for start in range(0, len(draws), max(1, at_once)):
        group = draws[start : start + max(1, at_once)]
        made = threads.map(
            lambda draw: _make_task(draw[0], seed, index, sandbox, first_draw=draw[1]), group
        )
        yield from zip((t for t, _ in group), made, strict=True)


def _template_order(n: int, seed: int) -> list[Template]:
    """Every template once per round, each round shuffled, so the bank is covered evenly."""
    rng = random.Random(f"assay-code-order:{seed}")
    order: list[Template] = []
    while len(order) < n:
        batch = list(TEMPLATES)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:n]


def _make_task(
    template: Template, seed: int, index: int, sandbox: Sandbox, *, first_draw: int = 0
) -> Task:
    family = CodeFamily()
    for draw in range(first_draw, first_draw + MAX_DRAWS):
        rng = random.Random(f"assay-code:{seed}:{index}:{draw}")
        task = _draft(template, rng, seed, index, sandbox)
        if _known_bad_fail(family, task, sandbox):
            return task
    raise VerifierError(
        f"template {template.id}: known-bad solutions passed in {MAX_DRAWS} draws "
        f"(seed {seed}, task {index}); the template's cases need the edge cases that catch them"
    )


def _known_bad_fail(family: CodeFamily, task: Task, sandbox: Sandbox) -> bool:
    """Whether every known-bad solution of ``task`` fails (verified in a batch, a pass there
    verified again alone: :func:`verify_confirmed`)."""
    items = [(task, files) for files in task.known_bad().values()]
    return all(
        verdict.status is Status.FAIL for verdict in verify_confirmed(family, items, sandbox)
    )


def _draft(template: Template, rng: random.Random, seed: int, index: int, sandbox: Sandbox) -> Task:
    problem = template.build(rng)
    examples = list(dict.fromkeys(_key(args) for args in problem.examples))
    hidden = [
        key for key in dict.fromkeys(_key(args) for args in problem.cases) if key not in examples
    ]
    outputs = _reference_outputs(template, problem, examples + hidden, sandbox)
    shown: list[Example] = [(json.loads(k), _returned(template, outputs[k])) for k in examples]
    style = rng.choice(sorted(STYLES))
    cases = [_case(f"case-{number:02d}", key, outputs[key]) for number, key in enumerate(hidden, 1)]
    config: dict[str, object] = {"function": problem.function, "compare": problem.compare}
    if problem.float_tolerance is not None:
        config["float_tolerance"] = problem.float_tolerance
    if problem.inputs != "any":
        config["inputs"] = problem.inputs
    digest = hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:8]
    spec = TaskSpec(
        id=f"code-{template.id}-{digest}",
        family="code",
        tags=(template.category, template.id, f"style:{style}", *problem.tags),
        locale=problem.locale,
        difficulty=template.difficulty,
        limits=LIMITS,
        config=config,
    )
    solutions = {"reference": {"solution.py": _source(problem.reference)}}
    for label, source in sorted(problem.bad.items()):
        solutions[f"bad-{label}"] = {"solution.py": _source(source)}
    solutions["bad-hardcoded-examples"] = {"solution.py": _hardcoded(problem, shown)}
    return Task(
        spec=spec,
        prompt=STYLES[style](problem, shown, rng),
        hidden={"cases.json": cases_json(cases)},
        solutions=solutions,
    )


def _case(case_id: str, key: str, outcome: Returned | Expecting) -> Case:
    if isinstance(outcome, Expecting):
        return Case(id=case_id, args=json.loads(key), raises=outcome.name)
    return Case(id=case_id, args=json.loads(key), expected=outcome.value)


def _returned(template: Template, outcome: Returned | Expecting) -> object:
    if isinstance(outcome, Expecting):
        raise VerifierError(f"template {template.id}: an example raises {outcome.name}")
    return outcome.value


@dataclass(frozen=True)
class Expecting:
    """The reference raised an exception its rules promise: the case expects that type."""

    name: str


def _reference_outputs(
    template: Template, problem: Problem, keys: list[str], sandbox: Sandbox
) -> dict[str, Returned | Expecting]:
    """What the reference did on each input: a value, or an exception its rules promise."""
    promised = sorted(promised_exceptions(" ".join(problem.rules)))
    ran = run_cases(
        sandbox,
        workspace={},
        solution={"solution.py": _source(problem.reference)},
        function=problem.function,
        entrypoint="solution.py",
        cases=[(key, json.loads(key)) for key in keys],
        limits=LIMITS,
    )
    outputs: dict[str, Returned | Expecting] = {}
    for key in keys:
        outcome = ran.outcomes.get(key)
        if isinstance(outcome, Returned):
            outputs[key] = outcome
            continue
        if isinstance(outcome, Raised):
            kept = [name for name in promised if counts_as(name, outcome.builtins)]
            if kept:
                outputs[key] = Expecting(kept[0])
                continue
        reason = (
            ran.import_error
            or ran.tampered
            or (outcome.message if isinstance(outcome, Raised) else None)
            or (outcome.reason if isinstance(outcome, Refused) else None)
            or ran.missing_reason()
        )
        raise VerifierError(f"template {template.id}: the reference failed on {key}: {reason}")
    return outputs


def _hardcoded(problem: Problem, shown: list[Example]) -> bytes:
    """A solution that memorised the prompt's examples and knows nothing else."""
    table = json.dumps([[args, output] for args, output in shown], ensure_ascii=False)
    return _source(
        "import json\n\n"
        f"_SEEN = json.loads({table!r})\n\n\n"
        f"def {problem.function}(*args):\n"
        "    for known, answer in _SEEN:\n"
        "        if list(args) == known:\n"
        "            return answer\n"
        "    return None\n"
    )


def _key(args: tuple[object, ...]) -> str:
    return json.dumps(list(args), sort_keys=True, ensure_ascii=False)


def _source(text: str) -> bytes:
    return (text.strip("\n") + "\n").encode()
