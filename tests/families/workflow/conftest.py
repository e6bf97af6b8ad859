"""Fixtures of the workflow family's tests: real emulators, the channel sandbox, the family and
the hand-written router task."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.families.workflow.channel import ChannelSandbox, channel_sandbox
from assay.families.workflow.emulator import Emulator, EmulatorFactory, emulators
from assay.families.workflow.family import WorkflowFamily
from assay.tasks import Task
from tests.families.workflow.tasks import router_task


@pytest.fixture(scope="session")
def factory() -> EmulatorFactory:
    return emulators()


@pytest.fixture
def emulator(factory: EmulatorFactory) -> Iterator[Emulator]:
    with factory.start() as started:
        yield started


@pytest.fixture(scope="session")
def channel() -> ChannelSandbox:
    return channel_sandbox()


@pytest.fixture(scope="module")
def family() -> WorkflowFamily:
    return WorkflowFamily()


@pytest.fixture(scope="module")
def task() -> Task:
    return router_task()
