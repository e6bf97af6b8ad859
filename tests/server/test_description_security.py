"""The description says a token is needed exactly when the server asks for one."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from assay.sandbox import PoolSandbox
from assay.server import SessionManager, create_app
from tests.conftest import make_median_task


@pytest.mark.parametrize(("token", "needed"), [(None, False), ("", False), ("s3cret", True)])
def test_the_description_asks_for_a_token_only_when_one_is_needed(
    pool: PoolSandbox, token: str | None, needed: bool
) -> None:
    manager = SessionManager([make_median_task()], pool)
    app = create_app(manager, token=token)
    with TestClient(app, base_url="http://127.0.0.1:8400") as http:  # a loopback Host
        asked = http.get("/health").status_code == 401
        description = http.get("/openapi.json", headers={"Authorization": f"Bearer {token}"})
    assert asked is needed
    assert ("security" in description.json()) is needed
    assert ("401" in description.json()["paths"]["/health"]["get"]["responses"]) is needed
