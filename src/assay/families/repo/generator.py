"""``assay generate repo``: self-checked tasks over the project templates.

Each task is one change of one template in one prompt style. The generator makes the workspace
from the correct project (the change's ``undo``), draws the reporter's call and the hidden calls,
runs the reference and the workspace on them in the sandbox, and keeps as fail-to-pass the calls
the workspace gets wrong and as pass-to-pass those it gets right; the reference's outcomes are
the expected ones. The calls the project's visible tests make (:mod:`.visible`, recorded by
running the tests on the correct project in the sandbox) are probed too, and kept as
pass-to-pass where the workspace gets them right.
It adds the known-bad solutions (doing nothing, tests edited instead of code,
the reporter's call special-cased, the error swallowed, the template's wrong fixes), then checks
in the sandbox that every reference passes and every known-bad fails; a draw that does not is
drawn again. The same seed gives the same tasks.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from itertools import product

from assay.errors import VerifierError
from assay.families.code._codec import decode, encode
from assay.families.code.compare import canonical
from assay.families.code.outputs import CaseOutputs, Outcome, Raised, Returned
from assay.families.code.raising import expectable
from assay.families.generators import in_parallel
from assay.families.repo.cases import (
    CASES_FILE,
    FAIL_TO_PASS,
    PASS_TO_PASS,
    CaseFile,
    Expect,
    RepoCase,
)
from assay.families.repo.family import RepoFamily, run_project
from assay.families.repo.prompts import STYLES, Seen, languages_of
from assay.families.repo.solutions import edited_tests, special_cased, swallowed
from assay.families.repo.templates import TEMPLATES, Change, Probe, ProjectTemplate
from assay.families.repo.templates._model import apply_all
from assay.families.repo.visible import VisibleProbe, visible_probes
from assay.sandbox.protocol import Sandbox
from assay.tasks.model import Files, Task
from assay.tasks.similarity import is_near_duplicate, shingles
from assay.tasks.spec import Limits, TaskSpec
from assay.verdicts import Status

MAX_DRAWS = 6
REDRAWS = 3
"""Times a near duplicate of an earlier task is drawn again."""
LIMITS = Limits(timeout_s=20, cpu_s=20, memory_mb=512)
PATHS = (".",)
Combo = tuple[ProjectTemplate, Change, str]


def generate_repo_tasks(
    n: int,
    seed: int,
    sandbox: Sandbox,
    *,
    workers: int = 2,
    on_task: Callable[[Task], None] | None = None,
) -> list[Task]:
    """Make ``n`` tasks, deterministic in ``seed``, in a stable order."""
    order = combo_order(n, seed)
    drafted = in_parallel(
        n,
        lambda index: make_task(order[index], seed, index, sandbox),
        workers=workers,
        on_task=on_task,
    )
    return _distinct(drafted, order, seed, sandbox)


def _distinct(tasks: list[Task], order: list[Combo], seed: int, sandbox: Sandbox) -> list[Task]:
    """``tasks`` with each near duplicate of an earlier task of its template drawn again (up to
    :data:`REDRAWS` times): another example, language and wording. What still repeats, the
    audit's duplicates check quarantines."""
    seen: dict[str, list[set[str]]] = {}
    kept = []
    for index, drafted in enumerate(tasks):
        mine = seen.setdefault(order[index][0].id, [])
        chosen = drafted
        for attempt in range(1, REDRAWS + 1):
            if not is_near_duplicate(chosen.prompt, mine):
                break
            chosen = make_task(order[index], seed, index, sandbox, first_draw=attempt * MAX_DRAWS)
        mine.append(shingles(chosen.prompt))
        kept.append(chosen)
    return kept


def combo_order(n: int, seed: int) -> list[Combo]:
    """Every (template, change, style) once a round, each round shuffled: the bank is covered
    evenly, and tasks repeat a combination only after all of them were used."""
    rng = random.Random(f"assay-repo-order:{seed}")
    combos = [
        (template, change, style)
        for template in TEMPLATES
        for change, style in product(template.changes, sorted(STYLES))
    ]
    order: list[Combo] = []
    while len(order) < n:
        batch = list(combos)
        rng.shuffle(batch)
        order.extend(batch)
    return order[:n]


def make_task(
    combo: Combo, seed: int, index: int, sandbox: Sandbox, *, first_draw: int = 0
) -> Task:
    """Task ``index`` of ``combo``, drawn until its references pass and its known-bad fail."""
    template, change, _ = combo
    family = RepoFamily()
    problems = []
    for draw in range(first_draw, first_draw + MAX_DRAWS):
        rng = random.Random(f"assay-repo:{seed}:{index}:{draw}")
        task = _draft(combo, rng, seed, index, sandbox)
        if isinstance(task, str):
            problems.append(task)
            continue
        wrong = [
            name
            for name, files in task.solutions.items()
            if (family.verify(task, files, sandbox).status is Status.PASS) != _must_pass(name)
        ]
        if not wrong:
            return task
        problems.append(f"{', '.join(wrong)} judged wrongly")
    raise VerifierError(
        f"template {template.id}, change {change.id}: no sound task in {MAX_DRAWS} draws "
        f"(seed {seed}, task {index}): {'; '.join(problems[-2:])}"
    )


def _must_pass(name: str) -> bool:
    return not name.startswith("bad-")


def _draft(combo: Combo, rng: random.Random, seed: int, index: int, sandbox: Sandbox) -> Task | str:
    """The task for one draw, or why the draw cannot make one."""
    template, change, style = combo
    project = template.files()
    try:
        workspace = apply_all(project, change.undo)
        readings = {name: apply_all(project, edits) for name, edits in change.readings.items()}
    except ValueError as exc:
        raise VerifierError(f"template {template.id}, change {change.id}: {exc}") from None
    example = change.example(rng)
    f2p = _unique(change.fail_to_pass(rng), [example])
    p2p = _unique([*template.pass_to_pass(rng), *change.pass_to_pass(rng)], [example, *f2p])
    tested = _tested(template, project, [example, *f2p, *p2p], sandbox)
    probes = [example, *f2p, *p2p, *(seen.probe for seen in tested)]
    drafts = [_case(f"probe-{i:02d}", FAIL_TO_PASS, p) for i, p in enumerate(probes)]
    first = len(probes) - len(tested)
    optional = {draft.id: seen.raises for draft, seen in zip(drafts[first:], tested, strict=True)}
    expected = _outcomes(sandbox, project, drafts, template, optional=optional)
    given = _outcomes(sandbox, workspace, drafts, template, reference=False, optional=optional)
    keys = [draft.id for draft in drafts]
    if _key(given[keys[0]]) == _key(expected[keys[0]]):
        return f"the workspace already gets the example {example.shown()} right"
    cases: list[RepoCase] = []
    for probe, key in zip(probes[1:], keys[1:], strict=True):
        if key not in expected or key not in given:
            continue  # a call of the visible tests whose outcome is not one to expect
        broken = _key(given[key]) != _key(expected[key])
        if broken != (probe in f2p):
            continue  # a guess that did not hold: a call the change does not touch, or does
        kind = FAIL_TO_PASS if broken else PASS_TO_PASS
        number = sum(case.kind == kind for case in cases) + 1
        prefix = "f2p" if broken else "p2p"
        cases.append(_case(f"{prefix}-{number:02d}", kind, probe, _expect(expected[key])))
    if not any(case.kind == FAIL_TO_PASS for case in cases):
        return "no hidden call the workspace gets wrong"
    cases = _with_readings(cases, readings, sandbox, template)
    seen = Seen(
        probe=example,
        got=_shown(given[keys[0]]),
        raised=isinstance(given[keys[0]], Raised),
        wanted=_shown(expected[keys[0]]),
    )
    if style == "traceback" and not seen.raised:
        style = "forwarded"
    language = rng.choice(languages_of(change))
    solutions: dict[str, Files] = {"reference": project}
    solutions |= {f"reference-{name}": files for name, files in readings.items()}
    solutions |= _known_bad(change, workspace, example, expected[keys[0]], seen.raised)
    digest = hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:8]
    spec = TaskSpec(
        id=f"repo-{template.id}-{change.id}-{digest}",
        family="repo",
        tags=(
            template.id,
            change.id,
            change.kind,
            f"style:{style}",
            f"lang:{language}",
            *template.tags,
        ),
        locale=template.locale,
        difficulty=template.difficulty,
        limits=LIMITS,
        config={"cli": template.cli},
    )
    case_file = CaseFile(readings=sorted(readings), cases=cases)
    return Task(
        spec=spec,
        prompt=STYLES[style](template, change, seen, language, rng),
        workspace=workspace,
        hidden={CASES_FILE: case_file.dumps()},
        solutions=solutions,
    )


def _known_bad(
    change: Change, workspace: Files, example: Probe, wanted: Outcome, raised: bool
) -> dict[str, Files]:
    bad = {
        "bad-does-nothing": dict(workspace),
        "bad-edited-tests": {**workspace, **edited_tests(workspace, "tests")},
        "bad-special-cases-report": special_cased(workspace, PATHS, example, wanted),
    }
    if raised:
        bad["bad-swallows-error"] = swallowed(workspace, PATHS, example)
    for label, edits in sorted(change.known_bad.items()):
        try:
            bad[f"bad-{label}"] = apply_all(workspace, edits)
        except ValueError as exc:
            raise VerifierError(f"change {change.id}, known-bad {label}: {exc}") from None
    return bad


def _with_readings(
    cases: list[RepoCase], readings: dict[str, Files], sandbox: Sandbox, template: ProjectTemplate
) -> list[RepoCase]:
    """``cases`` with what each other reading's reference gives, where it differs."""
    for name, files in sorted(readings.items()):
        outcomes = _outcomes(sandbox, files, cases, template)
        cases = [
            case
            if _expect(outcomes[case.id]) == case.expect
            else case.model_copy(
                update={"readings": {**case.readings, name: _expect(outcomes[case.id])}}
            )
            for case in cases
        ]
    return cases


def _tested(
    template: ProjectTemplate, project: Files, drawn: list[Probe], sandbox: Sandbox
) -> list[VisibleProbe]:
    """The calls the project's visible tests make (:mod:`.visible`) that are not drawn
    already; the command line's entry point is left to the template's own probes (it reads and
    writes files)."""
    return [
        seen
        for seen in visible_probes(project, sandbox, paths=PATHS, limits=LIMITS)
        if seen.probe.call != template.cli and seen.probe not in drawn
    ]


def _outcomes(
    sandbox: Sandbox,
    project: Files,
    cases: list[RepoCase],
    template: ProjectTemplate,
    *,
    reference: bool = True,
    optional: dict[str, bool] | None = None,
) -> dict[str, Outcome]:
    """What ``project`` gives on each case. A case in ``optional`` (a call of the visible
    tests, by whether its test expects a raise) is left out where its outcome is not that one
    to expect, instead of failing the draft."""
    ran: CaseOutputs = run_project(sandbox, project, cases, paths=PATHS, limits=LIMITS)
    outcomes: dict[str, Outcome] = {}
    optional = optional or {}
    for case in cases:
        outcome = ran.outcomes.get(case.id)
        usable = isinstance(outcome, Returned) or (
            isinstance(outcome, Raised) and _builtin(outcome) is not None
        )
        if case.id in optional:
            if reference and (not usable or isinstance(outcome, Raised) != optional[case.id]):
                continue
            if outcome is None:
                continue
        if outcome is None or (reference and not usable):
            why = ran.tampered or (outcome or ran.missing_reason())
            which = "the reference" if reference else "the workspace"
            raise VerifierError(f"template {template.id}: {which} failed on {case.id}: {why}")
        outcomes[case.id] = outcome
    return outcomes


def _builtin(outcome: Raised) -> str | None:
    """The most specific builtin exception type the raised one derives from, if expectable."""
    return next((name for name in outcome.builtins if expectable(name)), None)


def _expect(outcome: Outcome) -> Expect:
    if isinstance(outcome, Raised):
        return Expect(raises=_builtin(outcome))
    if isinstance(outcome, Returned):
        return Expect(value=outcome.value)
    raise VerifierError(f"an outcome that cannot be expected: {outcome}")


def _key(outcome: Outcome) -> str:
    if isinstance(outcome, Returned):
        return "=" + canonical(outcome.value)
    if isinstance(outcome, Raised):
        return f"!{outcome.type_name}"
    return "?"


def _shown(outcome: Outcome) -> str:
    if isinstance(outcome, Raised):
        return outcome.message
    value = decode(outcome.value) if isinstance(outcome, Returned) else None
    if isinstance(value, dict) and set(value) == {"exit", "stdout", "files"}:
        text = str(value["stdout"]).strip() or "(no output)"
        return f"exit code {value['exit']}, output:\n\n```\n{text[:1200]}\n```"
    return f"`{value!r}`"[:1200]


def _case(case_id: str, kind: str, probe: Probe, expect: Expect | None = None) -> RepoCase:
    data: dict[str, object] = {"id": case_id, "kind": kind, "expect": expect or Expect()}
    if probe.call is not None:
        data |= {"call": probe.call, "args": encode(list(probe.args))}
    else:
        data |= {"cli": probe.cli, "argv": list(probe.argv), "stdin": probe.stdin}
        data["files"] = dict(probe.files)
    return RepoCase.model_validate(data)


def _unique(probes: list[Probe], seen: list[Probe]) -> list[Probe]:
    kept: list[Probe] = []
    for probe in probes:
        if probe not in seen and probe not in kept:
            kept.append(probe)
    return kept
