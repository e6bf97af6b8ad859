"""Fixtures of the workflow family's tests: real emulators and the channel sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.families.workflow.channel import ChannelSandbox, channel_sandbox
from assay.families.workflow.emulator import Emulator, EmulatorFactory, emulators


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
