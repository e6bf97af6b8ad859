"""The ``repo`` family: fix or extend a small, real-looking Python project.

A task directory::

    task.toml              family = "repo"; [repo] paths, tests, cli (see cases.RepoConfig)
    prompt.md              a bug report or ticket, as people write them
    workspace/             the whole project: packages, README, pyproject.toml, its own tests,
                           a command line, data files, and the quirks real code has
    hidden/cases.json      the hidden cases (see cases): calls into the project's functions and
                           its command line, each fail-to-pass or pass-to-pass, with the
                           reference's outcome (and other readings' outcomes, where they differ)
    solutions/reference/   the project after the change; reference-<reading>/ for each other
                           reasonable reading of a vague request
    solutions/bad-<label>/ wrong projects: doing nothing, tests edited, the report special-cased

A submission is the changed project (a directory) or a unified diff against the workspace (one
``*.patch`` or ``*.diff`` file, applied on the host by :mod:`.patches`). Verification runs the
hidden cases' inputs in a fresh sandbox holding only the project and the trusted harness
(:mod:`._harness`, ``python -I -S``: no ``sitecustomize``, no ``conftest``, no test runner, the
standard library imported before the project can shadow it) and compares the outcomes outside
it, as the code family does. The project's visible tests are for the agent, never the verdict.

Episodes give the code family's tools plus ``search`` and ``list_files`` (:mod:`.tools`); a
single-turn answer is a fenced ``diff`` block. Tasks are generated from project templates
(:mod:`.templates`, whose docstring says how to add one) by :mod:`.generator`.
"""

from assay.families.repo.family import RepoFamily

__all__ = ["RepoFamily"]
