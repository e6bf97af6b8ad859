"""The ``terminal`` family: Terminal-Bench and Harbor task directories, read but not run here.

A terminal task is an instruction, a container to work in (a Dockerfile or a compose file, or an
image), a test script run in the container afterwards, and a reference script. assay reads them
(:mod:`assay.families.terminal.importers`), keeps their metadata, lints them statically
(:mod:`assay.families.terminal.lint`) and audits them with the checks that need no container;
verifying one needs a container backend, which assay does not have, and says so in one line.
"""

from assay.families.terminal.family import TerminalConfig, TerminalFamily

__all__ = ["TerminalConfig", "TerminalFamily"]
