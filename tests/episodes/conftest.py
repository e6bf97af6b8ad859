"""Episode fixtures: a generated code task, a loopback model server, a driver for episodes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from assay.episodes import Trajectory, run_episode
from assay.families.code.generator import generate_code_tasks
from assay.policies import OpenAIPolicy, Policy
from assay.sandbox import PoolSandbox, Sandbox
from assay.tasks import Task
from tests.policies.server import ModelServer, serve


@pytest.fixture(scope="module")
def generated_task(pool: PoolSandbox) -> Task:
    """A task made by the code family's generator, with its reference and known-bad solutions."""
    return generate_code_tasks(1, 17, pool)[0]


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    yield from serve()


def drive(task: Task, policy: Policy, sandbox: Sandbox, **options: Any) -> Trajectory:
    """Run one episode to its end, closing a model policy's client afterwards."""

    async def go() -> Trajectory:
        try:
            return await run_episode(task, policy, sandbox, **options)
        finally:
            if isinstance(policy, OpenAIPolicy):
                await policy.aclose()

    return asyncio.run(go())


def model_policy(server: ModelServer, **options: Any) -> OpenAIPolicy:
    """openai:test-model pointed at ``server``, with short backoffs for tests."""
    policy = OpenAIPolicy("test-model", base_url=server.base_url, **{"retries": 3, **options})
    policy.backoff_s = 0.01
    return policy
