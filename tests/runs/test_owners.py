"""Who holds a lease, and when its holder is known to be gone: only a process of this host and of
this PID namespace that no longer exists. Containers that share the host's name (host
networking) and a store each see their own process ids; a runner alive in one must not look
dead from the other, or its episodes would be taken from it and run again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from assay.runs._owners import known_dead, new_owner


def _in_new_pid_namespace(code: str) -> subprocess.CompletedProcess[str]:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare here")
    command = [unshare, "--pid", "--fork", "--mount-proc", sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0 and "unshare failed" in done.stderr:
        pytest.skip(f"cannot make a PID namespace here: {done.stderr.strip()}")
    return done


def test_a_live_runner_of_another_pid_namespace_is_not_taken_for_dead() -> None:
    owner = new_owner()  # this process: alive, but no process of the new namespace has its id
    done = _in_new_pid_namespace(
        f"from assay.runs._owners import known_dead; print(known_dead({owner!r}))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_runner_of_this_namespace_that_is_gone_is_known_dead() -> None:
    child = subprocess.run(
        [sys.executable, "-c", "from assay.runs._owners import new_owner; print(new_owner())"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert known_dead(child.stdout.strip())
    assert not known_dead(new_owner())


def test_an_owner_written_before_namespaces_were_kept_is_read_as_before() -> None:
    host, pid, nonce = new_owner().split(":")[:3]
    assert int(pid) == os.getpid()
    assert not known_dead(f"{host}:{pid}:{nonce}")
    assert not known_dead(f"elsewhere:{pid}:{nonce}")


def test_an_owner_whose_pid_no_process_can_have_is_not_taken_for_dead() -> None:
    host, _, nonce, namespace = new_owner().split(":")
    # a store another program wrote may hold any digits; past a C long, os.kill overflows
    assert not known_dead(f"{host}:99999999999999999999:{nonce}:{namespace}")
