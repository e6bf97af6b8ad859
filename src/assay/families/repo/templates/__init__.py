"""The bank of project templates behind ``assay generate repo``.

Adding a template
-----------------

1. Write the project, correct and working, under ``templates/projects/<name>/``: a package or
   two, a ``README.md``, a ``pyproject.toml``, a command line whose ``main(argv)`` returns the
   exit code, data or configuration files, and visible tests that pass with
   ``python -m unittest`` (standard library only). Give it the quirks real projects have: a
   deprecated helper still in use, a vendored module, a comment that lies, a locale's formats.
   Name no top-level module like a standard-library one: the harness would import the
   standard library's.
2. Write ``templates/<name>.py`` defining ``TEMPLATE = ProjectTemplate(...)`` with its
   :class:`Change` list. A change says, as exact :class:`Replace` edits of the correct files,
   how the workspace differs (``undo``: the bug put in, or the feature and its tests taken out);
   gives the report's words (:class:`Report`); draws the reporter's call (``example``) and the
   hidden calls that must change (``fail_to_pass``, other inputs than the example) and must not
   (``pass_to_pass``), each a :class:`Probe` (a function call, or the command line with argv,
   stdin and input files); and lists realistic wrong fixes (``known_bad``: edits of the
   workspace, e.g. a fix that breaks a pass-to-pass case). Vague requests may add ``readings``.
3. Add the module to :data:`TEMPLATES` below and run
   ``.venv/bin/pytest tests/families/repo/test_generator.py``: it generates a task from every
   change (keeping as fail-to-pass the calls the workspace gets wrong and as pass-to-pass those
   it gets right) and checks that every reference passes and every known-bad fails. Then
   ``assay generate repo`` and ``assay audit`` a few dozen tasks: the mutation check's
   survivors show which near misses of the fix the cases cannot tell apart.

Expected outcomes are never written by hand: the generator runs the reference and the workspace
in the sandbox. Each call the visible tests make into the project becomes a pass-to-pass case by
itself (:mod:`assay.families.repo.visible`), its arguments as the test built them (with helpers,
in ``setUp``, as keywords) where they are plain data; what a test passes that is not (a
``datetime.date``), and what it checks through the command line's entry point (files in a
temporary directory), the template's ``pass_to_pass`` must probe.
Generic known-bad solutions come for free: doing nothing, editing the tests
instead of the code, special-casing the reporter's call, and swallowing the exception.
"""

from __future__ import annotations

from assay.families.repo.templates import (
    billing,
    claims,
    clinic,
    expenses,
    grades,
    invoices,
    ledger,
    logs,
    meters,
    payroll,
    picks,
    reorder,
    retention,
    shifts,
    shipping,
    vat,
)
from assay.families.repo.templates._model import Change, Probe, ProjectTemplate, Replace, Report

TEMPLATES: tuple[ProjectTemplate, ...] = (
    invoices.TEMPLATE,
    shifts.TEMPLATE,
    ledger.TEMPLATE,
    logs.TEMPLATE,
    claims.TEMPLATE,
    retention.TEMPLATE,
    billing.TEMPLATE,
    payroll.TEMPLATE,
    vat.TEMPLATE,
    grades.TEMPLATE,
    picks.TEMPLATE,
    meters.TEMPLATE,
    shipping.TEMPLATE,
    reorder.TEMPLATE,
    expenses.TEMPLATE,
    clinic.TEMPLATE,
)

__all__ = ["TEMPLATES", "Change", "Probe", "ProjectTemplate", "Replace", "Report"]
