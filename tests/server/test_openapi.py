"""The OpenAPI description handed to a caller is the caller's own: changing it (adding a
server, as tools that publish a description do) changes nothing another caller or the server
itself serves."""

from __future__ import annotations

import jsonschema
import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from assay.sandbox import PoolSandbox
from assay.server import SamplingSpec, SessionManager, create_app, openapi
from tests.conftest import make_median_task


@pytest.mark.sandbox
def test_a_description_changed_by_its_caller_changes_nothing_served(pool: PoolSandbox) -> None:
    mine = openapi(secured=False)
    mine["paths"].clear()
    mine["servers"] = [{"url": "https://example.org"}]
    app = create_app(SessionManager([make_median_task()], pool))
    with TestClient(app, base_url="http://127.0.0.1:8400") as http:
        served = http.get("/openapi.json").json()
    assert "/sessions" in served["paths"]
    assert "servers" not in served
    assert served == openapi(secured=False)
    assert "/sessions/{session_id}/step" in openapi(secured=False)["paths"]


@pytest.mark.parametrize("seed", [5, 5.0, -3.0, 1e20, 5.5, True, "5", None])
def test_a_seed_is_accepted_exactly_when_the_description_accepts_it(seed: object) -> None:
    """JSON has one kind of number: the description's ``integer`` takes 5.0, so must the
    server, and draw with it as with 5."""
    description = openapi(secured=False)
    schema = description["components"]["schemas"]["SamplingSpec"]["properties"]["seed"]
    described = jsonschema.Draft202012Validator(schema).is_valid(seed)
    try:
        spec = SamplingSpec.model_validate({"seed": seed})
    except ValidationError:
        accepted = False
    else:
        accepted = True
        assert spec.seed == seed
    assert accepted == described, seed
