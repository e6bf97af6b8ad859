"""Durable runs, side by side with their baselines, measured in one run.

(a) **queue**: N scripted episodes (the reference policy in tools mode: ``write_file`` then
``submit``, then the verification in a fresh sandbox job) through the durable queue (a SQLite
store in a temporary directory, ``start_run`` then ``run_rollouts``) against the same
verifications called directly (``CodeFamily.verify`` from as many threads as the run has
sandboxes). The same warm pool serves both. After an untimed warm-up of each side, the two
alternate for four rounds, the side that goes first swapped each round, so that the machine's
drift hits both; the figures are the sums, with the machine's CPU per episode (``/proc/stat``)
beside the time. Target: the queue and the episode machinery add under 20% (in time).

(b) **model**: single-turn episodes, 200 at once, against an OpenAI-compatible server on
loopback (a separate process) that answers every request after 200 ms with a correct fenced
answer. Episodes per second against the ideal, the lower of the latency bound (200 / 0.2 s) and
the CPU bound measured in the same run (the CPUs the run had, less the time the virtual
machine's host took from them, divided by the CPU-seconds one episode cost: this process, the
sandbox workers and the server together; the share of the ideal with all the CPUs is printed
beside it). Target: at least 80% of the ideal. Also
shown: the same requests sent by the ``openai`` client alone (no episodes, no queue, no
verification), the machine's CPUs during the run (busy, and how much of that the CPU bound
counts; idle; stolen by the virtual machine's host), and the memory used.

Run: ``.venv/bin/python benchmarks/runner.py [--quick] [--only queue|model]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openai
from _fixtures import CANDIDATE, median_task

from assay.families import harness_code
from assay.families.code.family import CodeFamily
from assay.policies import OpenAIPolicy, parse_policy
from assay.runs import RunnerOptions, RunSpec, run_rollouts, start_run
from assay.sandbox import PoolSandbox
from assay.store import Store
from assay.tasks import Task
from assay.verdicts import Status

CPUS = os.cpu_count() or 1
SANDBOXES = 2 * CPUS
"""Sandboxes at once for both sides of (a) and for (b): the command line's default."""
QUEUE_EPISODES, QUICK_QUEUE_EPISODES = 2000, 200
QUEUE_ROUNDS = 4
"""Rounds of (a), each side once a round; the side that goes first alternates."""
MODEL_EPISODES, QUICK_MODEL_EPISODES = 1000, 200
CONCURRENT = 200
DELAY_S = 0.2
TARGET_QUEUE_OVERHEAD = 0.20
TARGET_MODEL_SHARE = 0.80
MODEL = "bench-model"


class BenchmarkError(RuntimeError):
    """An episode or a verification did not pass, so its timing would mean nothing."""


def make_tasks(count: int) -> list[Task]:
    """``count`` median tasks (10 hidden cases each), held in memory, with distinct ids."""
    return [median_task(f"bench-median-{index:03d}") for index in range(count)]


def split(episodes: int) -> tuple[int, int]:
    """Tasks and k for ``episodes`` episodes: up to 100 tasks, k the rest."""
    tasks = min(100, episodes)
    return tasks, max(1, episodes // tasks)


# --- (a) the queue against direct verifications -------------------------------------------------


def direct(tasks: Sequence[Task], k: int, pool: PoolSandbox) -> float:
    """Seconds to verify the reference of every task k times, from SANDBOXES threads."""
    family = CodeFamily()
    files = {"solution.py": CANDIDATE.encode()}

    def verify(task: Task) -> None:
        if family.verify(task, files, pool).status is not Status.PASS:
            raise BenchmarkError(f"{task.id}: the reference did not pass")

    started = time.perf_counter()
    with ThreadPoolExecutor(SANDBOXES) as threads:
        list(threads.map(verify, [task for _ in range(k) for task in tasks]))
    return time.perf_counter() - started


def queued(tasks: Sequence[Task], k: int, pool: PoolSandbox, name: str) -> float:
    """Seconds to run the same as reference episodes through the durable queue."""
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "q.db") as store:
        started = time.perf_counter()
        spec = RunSpec.of(tasks, root="bench", policy="reference", k=k, mode="tools")
        start_run(store, name, spec)
        counts = run_rollouts(
            store,
            name,
            tasks={task.id: task for task in tasks},
            policy=parse_policy("reference"),
            sandbox=pool,
            options=RunnerOptions(max_sandboxes=SANDBOXES, max_requests=SANDBOXES),
        )
        elapsed = time.perf_counter() - started
    if counts.passed != len(tasks) * k:
        raise BenchmarkError(f"{counts.passed} of {len(tasks) * k} episodes passed: {counts}")
    return elapsed


def bench_queue(episodes: int) -> bool:
    count, k = split(episodes)
    tasks = make_tasks(count)
    total = count * k
    print(f"\n(a) {total} scripted episodes ({count} tasks x k={k}), {SANDBOXES} sandboxes")
    sides: dict[str, Callable[[str], float]] = {
        "direct": lambda _name: direct(tasks, k, pool),
        "queue": lambda name: queued(tasks, k, pool, name),
    }
    wall = dict.fromkeys(sides, 0.0)
    cpu = dict.fromkeys(sides, 0.0)
    with PoolSandbox(max_workers=SANDBOXES, trusted_code=harness_code()) as pool:
        pool.warm(SANDBOXES)
        direct(tasks, 2, pool)  # warm-up of both sides, untimed
        queued(tasks, 2, pool, "bench-warm-up")
        for index in range(QUEUE_ROUNDS):  # alternated, the order swapped each round
            order = ("direct", "queue") if index % 2 == 0 else ("queue", "direct")
            figures = {}
            for side in order:
                busy = machine_cpu()[0]
                figures[side] = sides[side](f"bench-{index}")
                cpu[side] += machine_cpu()[0] - busy
                wall[side] += figures[side]
            print(
                f"  round {index + 1}: direct {figures['direct']:6.2f} s   queue "
                f"{figures['queue']:6.2f} s   {figures['queue'] / figures['direct'] - 1:+.1%}",
                file=sys.stderr,
            )
    episodes_run = QUEUE_ROUNDS * total
    overhead = wall["queue"] / wall["direct"] - 1
    print(f"  {'':28}{f's ({QUEUE_ROUNDS} rounds)':>14}{'episodes/s':>12}{'CPU ms/ep':>11}")
    for side, label in (("direct", "direct verifications"), ("queue", "durable queue + episodes")):
        rate = episodes_run / wall[side]
        print(f"  {label:28}{wall[side]:14.2f}{rate:12.1f}{cpu[side] / episodes_run * 1e3:11.2f}")
    met = overhead < TARGET_QUEUE_OVERHEAD
    print(
        f"  overhead: {overhead:+.1%} in time, {cpu['queue'] / cpu['direct'] - 1:+.1%} in the "
        f"machine's CPU (target under {TARGET_QUEUE_OVERHEAD:.0%} in time: "
        f"{'met' if met else 'NOT met'})"
    )
    return met


# --- (b) model episodes against a loopback server ----------------------------------------------


def serve(delay_s: float) -> None:
    """The loopback model server: prints its port, answers every chat request after delay_s."""
    answer = f"Here it is:\n```python\n{CANDIDATE}```\n"
    completion = json.dumps(
        {
            "id": "bench",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 60, "total_tokens": 160},
        }
    ).encode()
    models = json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}]}).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: object) -> None:
            """Quiet."""

        def do_GET(self) -> None:
            self._send(models)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            time.sleep(delay_s)
            self._send(completion)

        def _send(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024

    httpd = Server(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    base_url: str

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def model_server(delay_s: float) -> Iterator[ServerProcess]:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(delay_s)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None  # noqa: S101 - piped just above
        port = int(process.stdout.readline())
        yield ServerProcess(process, f"http://127.0.0.1:{port}/v1")
    finally:
        process.kill()
        process.communicate()


class PeakMemory:
    """The peak resident memory of this process while it runs, sampled every 20 ms."""

    def __init__(self) -> None:
        self.peak_mb = self.now_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def now_mb() -> float:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak_mb = max(self.peak_mb, self.now_mb())

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def client_only(base_url: str, requests: int) -> float:
    """Seconds for the openai client alone to send ``requests`` requests, CONCURRENT at once."""

    async def go() -> float:
        client = openai.AsyncOpenAI(  # as the policy sends: through the aiohttp transport
            base_url=base_url, api_key="x", max_retries=0, http_client=openai.DefaultAioHttpClient()
        )
        slots = asyncio.Semaphore(CONCURRENT)

        async def one() -> None:
            async with slots:
                await client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": "median"}]
                )

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(requests)))
        elapsed = time.perf_counter() - started
        await client.close()
        return elapsed

    return asyncio.run(go())


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_cpu() -> tuple[float, float, float]:
    """Seconds of the machine's CPUs so far: busy, idle (with I/O wait), and stolen by the host
    of this virtual machine (from ``/proc/stat``)."""
    with Path("/proc/stat").open(encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle, steal = fields[3] + fields[4], fields[7]
    busy = sum(fields[:8]) - idle - steal
    return busy / ticks, idle / ticks, steal / ticks


def bench_model(episodes: int) -> bool:
    count, k = split(episodes)
    tasks = make_tasks(count)
    total = count * k
    print(
        f"\n(b) {total} single-turn episodes ({count} tasks x k={k}), {CONCURRENT} at once, "
        f"server answers after {DELAY_S * 1000:.0f} ms, {SANDBOXES} sandboxes"
    )
    with (
        model_server(DELAY_S) as server,
        PoolSandbox(max_workers=SANDBOXES, trusted_code=harness_code()) as pool,
        tempfile.TemporaryDirectory() as scratch,
        Store(Path(scratch) / "m.db") as store,
    ):
        pool.warm(SANDBOXES)
        client_s = client_only(server.base_url, min(total, 4 * CONCURRENT))
        client_rate = min(total, 4 * CONCURRENT) / client_s
        policy = OpenAIPolicy(MODEL, base_url=server.base_url, concurrency=CONCURRENT)
        spec = RunSpec.of(tasks, root="bench", policy=policy.spec, k=k, mode="single")
        start_run(store, "model", spec)
        before = (cpu_self(), pool.worker_cpu_seconds(), server.cpu_seconds())
        machine_before = machine_cpu()
        rss_before = PeakMemory.now_mb()
        with PeakMemory() as memory:
            started = time.perf_counter()
            counts = run_rollouts(
                store,
                "model",
                tasks={task.id: task for task in tasks},
                policy=policy,
                sandbox=pool,
                options=RunnerOptions(max_sandboxes=SANDBOXES, max_requests=CONCURRENT),
            )
            elapsed = time.perf_counter() - started
        machine = [
            after - before for after, before in zip(machine_cpu(), machine_before, strict=True)
        ]
        workers = pool.worker_cpu_seconds()
        cpu = {
            "this process": cpu_self() - before[0],
            "sandbox workers": (workers - before[1]) if workers and before[1] else None,
            "server": server.cpu_seconds() - before[2],
        }
        worker_mb = pool.idle_worker_memory_mb() * pool.size
    if counts.passed != total:
        raise BenchmarkError(f"{counts.passed} of {total} episodes passed: {counts}")
    return report_model(
        total,
        elapsed,
        cpu=cpu,
        machine=machine,
        client_rate=client_rate,
        rss_before=rss_before,
        peak=memory.peak_mb,
        worker_mb=worker_mb,
    )


def report_model(
    total: int,
    elapsed: float,
    *,
    cpu: dict[str, float | None],
    machine: list[float],
    client_rate: float,
    rss_before: float,
    peak: float,
    worker_mb: float,
) -> bool:
    rate = total / elapsed
    latency_bound = CONCURRENT / DELAY_S
    spent = sum(value for value in cpu.values() if value is not None)
    busy, idle, steal = machine
    # The CPUs the run had: the virtual machine's host may take some of their time (steal).
    available = CPUS - steal / elapsed
    cpu_bound = available / (spent / total)
    ideal = min(latency_bound, cpu_bound)
    print(f"  {'':38}{'episodes/s':>12}")
    print(f"  {'latency bound (200 / 0.2 s)':38}{latency_bound:12.1f}")
    print(f"  {f'CPU bound ({available:.2f} CPUs, this run)':38}{cpu_bound:12.1f}")
    own = cpu["this process"]
    if own:
        print(f"  {'  this process alone (one core, GIL)':38}{total / own:12.1f}")
    print(f"  {'openai client alone, no episodes':38}{client_rate:12.1f}")
    print(f"  {'episodes through the durable queue':38}{rate:12.1f}")
    shares = ", ".join(
        f"{name} {'n/a' if value is None else f'{1000 * value / total:.1f}'}"
        for name, value in cpu.items()
    )
    print(f"  CPU ms per episode: {shares}")
    print(
        f"  the machine during the run: {busy / elapsed:.2f} CPUs busy ({spent / elapsed:.2f} "
        f"of them counted above), {idle / elapsed:.2f} idle, {steal / elapsed:.2f} stolen"
    )
    print(
        f"  memory: this process {rss_before:.0f} MB before, {peak:.0f} MB at its peak "
        f"({(peak - rss_before) * 1024 / CONCURRENT:.0f} KB per episode in flight); "
        f"sandbox workers {worker_mb:.0f} MB (PSS)"
    )
    share = rate / ideal
    met = share >= TARGET_MODEL_SHARE
    unstolen = rate / min(latency_bound, CPUS / (spent / total))
    print(
        f"  {share:.0%} of the ideal ({ideal:.1f}/s; target at least "
        f"{TARGET_MODEL_SHARE:.0%}: {'met' if met else 'NOT met'}); "
        f"{unstolen:.0%} of the ideal with all {CPUS} CPUs"
    )
    return met


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 200 episodes each")
    parser.add_argument("--only", choices=["queue", "model"], help="run one benchmark")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    print(f"$ {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(
        f"{CPUS} CPUs, Python {platform.python_version()}, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    benches: list[tuple[str, Callable[[int], bool], int]] = [
        ("queue", bench_queue, QUICK_QUEUE_EPISODES if args.quick else QUEUE_EPISODES),
        ("model", bench_model, QUICK_MODEL_EPISODES if args.quick else MODEL_EPISODES),
    ]
    met = [bench(n) for name, bench, n in benches if args.only in (None, name)]
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
