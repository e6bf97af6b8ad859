"""The OpenAPI description, fuzzed against a real server: no 500, no hang, and every answer is
one the description allows (its status documented, its body matching the schema). Once for a
server on loopback without a token, once for one with a token, whose description says so."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from assay.sandbox import PoolSandbox
from assay.server import openapi
from assay.tasks import Task
from tests.server.conftest import running

pytestmark = pytest.mark.sandbox
TOKEN = "fuzz-token"  # noqa: S105 - the test's token
OPEN = schemathesis.openapi.from_dict(openapi(secured=False))
SECURED = schemathesis.openapi.from_dict(openapi(secured=True))
# A schema-valid request may still be refused (422) for what JSON Schema does not say: exactly one
# of task_id and sample, a curriculum's low not above its high, some weight positive.
BEYOND_THE_SCHEMA = [schemathesis.checks.positive_data_acceptance]
FUZZ = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def open_url(pool: PoolSandbox, median_tasks: list[Task]) -> Iterator[str]:
    with running(median_tasks, pool) as live:
        yield live.url


@pytest.fixture(scope="module")
def secured_url(pool: PoolSandbox, median_tasks: list[Task]) -> Iterator[str]:
    with running(median_tasks, pool, token=TOKEN) as live:
        yield live.url


def test_each_server_serves_its_own_description(open_url: str, secured_url: str) -> None:
    assert httpx.get(f"{open_url}/openapi.json").json() == openapi(secured=False)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    served = httpx.get(f"{secured_url}/openapi.json", headers=headers).json()
    assert served == openapi(secured=True)


@OPEN.parametrize()
@FUZZ
def test_the_open_description_holds(case: schemathesis.Case, open_url: str) -> None:
    response = case.call(base_url=open_url, timeout=30)
    assert response.status_code < 500, response.text
    case.validate_response(response, excluded_checks=BEYOND_THE_SCHEMA)


@SECURED.parametrize()
@FUZZ
def test_the_secured_description_holds(case: schemathesis.Case, secured_url: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    response = case.call(base_url=secured_url, headers=headers, timeout=30)
    assert response.status_code < 500, response.text
    case.validate_response(response, headers=headers, excluded_checks=BEYOND_THE_SCHEMA)
