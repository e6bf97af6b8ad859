"""`assay serve` as a user runs it: it says where it listens, serves, and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from assay.client import EnvClient
from assay.server import listen
from assay.tasks import save_task
from tests.conftest import REFERENCE, make_median_task

pytestmark = pytest.mark.sandbox
TOKEN = "t0k3n"  # noqa: S105 - the test's token


def test_assay_serve_serves_until_interrupted(tmp_path: Path) -> None:
    save_task(make_median_task(), tmp_path / "tasks")
    env = {key: value for key, value in os.environ.items() if key != "ASSAY_TOKEN"}
    command = [sys.executable, "-m", "assay", "serve", "--env-only", "--tasks"]
    command += [str(tmp_path / "tasks"), "--port", "0", "--workers", "1", "--token", TOKEN]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        line = ""
        while "serving" not in line:
            line = process.stderr.readline()
            assert line, "the server ended before it listened"
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found is not None, line
        assert line.startswith("serving 1 tasks on ")
        with EnvClient(found.group(0), token=TOKEN) as client:
            with client.session("median-1") as session:
                session.step("write_file", {"path": "solution.py", "content": REFERENCE.decode()})
                assert session.submit().reward == 1.0
            assert client.health().sessions == 0
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130  # interrupted, as every command
        assert "interrupted" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def test_a_port_in_use_is_one_line_of_bad_input(tmp_path: Path, run_cli: object) -> None:
    import socket  # noqa: PLC0415

    save_task(make_median_task(), tmp_path / "tasks")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = run_cli("serve", "--env-only", "--tasks", str(tmp_path / "tasks"), "--port", port)  # type: ignore[operator]
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_without_env_only_it_says_what_exists(tmp_path: Path, run_cli: object) -> None:
    save_task(make_median_task(), tmp_path / "tasks")
    result = run_cli("serve", "--tasks", str(tmp_path / "tasks"))  # type: ignore[operator]
    assert result.exit_code == 2
    assert "--env-only" in result.output


def test_the_curriculum_reads_a_stored_profile(
    tmp_path: Path, run_cli: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assay.server  # noqa: PLC0415

    save_task(make_median_task(), tmp_path / "tasks")
    tasks = str(tmp_path / "tasks")
    profiled = run_cli("profile", tasks, "--policy", "reference", "--k", "2", "--run", "p1")  # type: ignore[operator]
    assert profiled.exit_code == 0
    seen: dict[str, object] = {}

    class _Server:
        def run(self, sockets: object) -> None:
            seen["ran"] = True

    def build(tasks: object, sandbox: object, **options: object) -> _Server:
        seen.update(options)
        return _Server()

    monkeypatch.setattr(assay.server, "build_server", build)
    served = run_cli("serve", "--env-only", "--tasks", tasks, "--port", "0", "--profile", "p1")  # type: ignore[operator]
    assert served.exit_code == 0, served.output
    assert seen["pass_rates"] == {"median-1": 1.0}
    assert seen["ran"] is True
    missing = run_cli("serve", "--env-only", "--tasks", tasks, "--profile", "nope")  # type: ignore[operator]
    assert missing.exit_code == 2
    assert "no rollout run 'nope'" in missing.output


def test_the_listening_socket_turns_nagle_off_for_every_connection() -> None:
    """asyncio sets TCP_NODELAY only on sockets that name TCP as their protocol: without it each
    answer on a kept-alive connection waited for the client's delayed acknowledgement."""
    sock = listen("127.0.0.1", 0)
    with sock, socket.create_connection(sock.getsockname()[:2]):
        accepted, _ = sock.accept()
        with accepted:
            assert accepted.proto == socket.IPPROTO_TCP
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
