"""The environment server under load, side by side with the same episodes run in-process.

**server**: ``assay serve --env-only`` in its own process on loopback (the warm pool behind it),
driven by ``--sessions`` concurrent clients (default 200) for ``--seconds`` (default 20). Each
client loops over episodes of the median task: create a session, ``write_file`` (its own
solution, carrying a marker unique to the episode), ``read_file`` (which must give back its own
marker: a session that saw another's file is counted), ``submit`` (the verification, a sandbox
job), close. Any refusal or transport error is counted; a bad run is one with any.

**in-process**: the same episodes through :class:`assay.episodes.Episode` in this process, with
as many threads as the pool has workers (no HTTP, no sessions, no JSON): the floor for the same
work.

Printed: ``step`` latency p50 and p99 for the calls without a sandbox job (write, read) and for
``submit``, episodes per second on both sides and their ratio, errors and isolation breaches.

Run: ``.venv/bin/python benchmarks/server.py [--sessions N] [--seconds S]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from _fixtures import CANDIDATE, median_task

from assay.episodes import Episode
from assay.families import harness_code
from assay.policies.messages import ToolCall
from assay.sandbox import PoolSandbox
from assay.tasks import save_task
from assay.verdicts import Status

TASKS = 20


class Tally:
    """Latencies and failures, shared by the clients."""

    def __init__(self) -> None:
        self.quick: list[float] = []
        self.submit: list[float] = []
        self.episodes = 0
        self.errors: list[str] = []
        self.breaches = 0


async def client(http: httpx.AsyncClient, index: int, deadline: float, tally: Tally) -> None:
    while time.monotonic() < deadline:
        marker = f"# episode {index}-{uuid.uuid4().hex}\n"
        try:
            created = await http.post("/sessions", json={"task_id": f"median-{index % TASKS}"})
            if created.status_code != 201:
                tally.errors.append(f"create {created.status_code}: {created.text[:200]}")
                continue
            session = created.json()["session_id"]
            calls = [
                ("write_file", {"path": "solution.py", "content": marker + CANDIDATE}),
                ("read_file", {"path": "solution.py"}),
                ("submit", {}),
            ]
            for tool, arguments in calls:
                started = time.perf_counter()
                answer = await http.post(
                    f"/sessions/{session}/step", json={"tool": tool, "arguments": arguments}
                )
                spent = time.perf_counter() - started
                if answer.status_code != 200:
                    tally.errors.append(f"{tool} {answer.status_code}: {answer.text[:200]}")
                    break
                body = answer.json()
                (tally.submit if tool == "submit" else tally.quick).append(spent)
                if tool == "read_file" and marker.strip() not in body["output"]:
                    tally.breaches += 1
                if tool == "submit":
                    if body["verdict"]["status"] != "pass":
                        tally.errors.append(f"verdict {body['verdict']['status']}")
                    else:
                        tally.episodes += 1
            await http.delete(f"/sessions/{session}")
        except httpx.HTTPError as exc:
            tally.errors.append(f"transport: {type(exc).__name__}: {exc}")


def start_server(root: Path, sessions: int) -> tuple[subprocess.Popen[str], str]:
    assay = Path(sys.executable).parent / "assay"
    process = subprocess.Popen(
        [
            *(str(assay), "serve", "--env-only", "--tasks", str(root), "--port", "0"),
            *("--max-sessions", str(sessions + 8), "--idle-timeout", "60"),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    if process.stderr is None:
        raise RuntimeError("no pipe from the server")
    for line in process.stderr:
        if line.startswith("serving "):
            url = line.split(" on ", 1)[1].split(" ", 1)[0]
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, url
    raise RuntimeError("the server did not start")


async def load(url: str, sessions: int, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as http:
        started = time.monotonic()
        deadline = started + seconds
        await asyncio.gather(*(client(http, i, deadline, tally) for i in range(sessions)))
        return tally, time.monotonic() - started


def in_process(seconds: float, workers: int) -> tuple[list[float], list[float], float]:
    tasks = [median_task(f"median-{i}") for i in range(TASKS)]
    quick: list[float] = []
    submits: list[float] = []
    lock = threading.Lock()
    with PoolSandbox(max_workers=workers, trusted_code=harness_code()) as pool:
        pool.warm(workers)
        deadline = time.monotonic() + seconds

        def loop(index: int) -> int:
            done = 0
            while time.monotonic() < deadline:
                episode = Episode(tasks[index % TASKS], pool)
                episode.reset()
                marker = f"# episode {index}-{uuid.uuid4().hex}\n"
                calls = [
                    (
                        "write_file",
                        json.dumps({"path": "solution.py", "content": marker + CANDIDATE}),
                    ),
                    ("read_file", json.dumps({"path": "solution.py"})),
                    ("submit", "{}"),
                ]
                for name, arguments in calls:
                    started = time.perf_counter()
                    episode.step(ToolCall(id="c", name=name, arguments=arguments))
                    if name == "submit":
                        verdict = episode.judge(None).verdict
                        if verdict.status is not Status.PASS:
                            raise RuntimeError(f"the reference did not pass: {verdict.summary}")
                    with lock:
                        (submits if name == "submit" else quick).append(
                            time.perf_counter() - started
                        )
                done += 1
            return done

        started = time.monotonic()
        with ThreadPoolExecutor(2 * workers) as threads:
            total = sum(threads.map(loop, range(2 * workers)))
        return quick, submits, total / (time.monotonic() - started)


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    cpus = os.cpu_count() or 1
    print(f"$ python benchmarks/server.py --sessions {args.sessions} --seconds {args.seconds:g}")
    print(
        f"{cpus} CPUs, Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}, "
        f"{args.sessions} concurrent sessions for {args.seconds:g} s"
    )
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "tasks"
        for index in range(TASKS):
            save_task(median_task(f"median-{index}"), root)
        process, url = start_server(root, args.sessions)
        try:
            tally, elapsed = asyncio.run(load(url, args.sessions, args.seconds))
        finally:
            process.terminate()
            process.wait(timeout=30)
    quick, submits, direct_rate = in_process(args.seconds, cpus)
    rate = tally.episodes / elapsed
    print(f"{'':24}{'p50 ms':>10}{'p99 ms':>10}{'episodes/s':>12}")
    print(f"{'server: write/read':24}{_p(tally.quick, 0.5):10.1f}{_p(tally.quick, 0.99):10.1f}")
    server = f"{_p(tally.submit, 0.5):10.1f}{_p(tally.submit, 0.99):10.1f}{rate:12.1f}"
    print(f"{'server: submit':24}{server}")
    print(f"{'in-process: write/read':24}{_p(quick, 0.5):10.1f}{_p(quick, 0.99):10.1f}")
    direct = f"{_p(submits, 0.5):10.1f}{_p(submits, 0.99):10.1f}{direct_rate:12.1f}"
    print(f"{'in-process: submit':24}{direct}")
    print(f"server / in-process, episodes/s: {rate / direct_rate:.2f}")
    print(
        f"episodes: {tally.episodes}; errors: {len(tally.errors)}; "
        f"isolation breaches: {tally.breaches}"
    )
    for error in sorted(set(tally.errors))[:10]:
        print(f"  {error}")
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0 if not tally.errors and not tally.breaches and tally.episodes else 1


if __name__ == "__main__":
    sys.exit(main())
