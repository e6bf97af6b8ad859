"""The workflow family: multi-step jobs against emulated cloud APIs, judged by final state.

A task directory::

    task.toml            family = "workflow"; [workflow] initial, expected, rerun (see config)
    prompt.md            the job, in words
    workspace/state.json the starting state (buckets, queues, tables, log groups): the emulator
                         is seeded with it, and the agent reads it as a description
    hidden/expected.json the state the account must end in, exactly (see state and judge)
    hidden/expected-<reading>.json   for a vague request, the state another reasonable
                         reading of it ends in (the verdict takes the reading that comes closest)
    solutions/reference/solution.py, solutions/reference-<reading>/solution.py,
    solutions/bad-<label>/solution.py

The cloud is moto's AWS emulation, one process per episode or verification (see emulator); agent
code reaches it from the sandbox through its socket and nothing else (see channel). A script
submission runs against a fresh emulator (twice, when its first run is right: the rerun check);
an episode's own emulator is judged after it. Either way the verdict is the final state, read
by the trusted side through the emulator's API: one criterion per resource (what it holds and
its settings: policies, ACLs, retention...; see resource_settings), the difference as evidence.
A resource that is to stay as it is (or was not there and must not be), a script that runs to
its end and one that makes few requests are met before anything is done: they scale the score
of the changes the task asks for and never add to it, so doing nothing scores 0. Lint refuses
a task whose prompt promises that a second run changes nothing while ``rerun`` leaves that
unchecked.

The generator (see generator, templates, prompts) writes tasks in English, German and French and
in several styles; the audit attacks the verifier with reward hacks (exploits), near misses of
the reference script (mutants) and changed expectations (probes).
"""

from assay.families.workflow.family import WorkflowFamily

__all__ = ["WorkflowFamily"]
