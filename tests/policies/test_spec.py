"""Policy specs parse to policies; bad specs get one line naming the forms accepted."""

from __future__ import annotations

import pytest

from assay.errors import PolicySpecError
from assay.policies import OpenAIPolicy, ScriptedPolicy, parse_policy


def test_specs_name_their_policies() -> None:
    model = parse_policy("openai:qwen3-8b", base_url="http://127.0.0.1:1/v1", concurrency=3)
    assert isinstance(model, OpenAIPolicy)
    assert (model.model, model.concurrency, model.spec) == ("qwen3-8b", 3, "openai:qwen3-8b")
    for spec in ("reference", "empty", "bad:off-by-one"):
        policy = parse_policy(spec)
        assert isinstance(policy, ScriptedPolicy)
        assert policy.spec == spec
        assert policy.identity().spec == spec
    assert parse_policy("bad:bad-unsorted").spec == "bad:unsorted"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "",
            "policy: unknown policy '' (use one of: openai:MODEL, reference, bad:LABEL, empty, "
            "mix:SEED, replay:RUN)",
        ),
        (
            "gpt-4",
            "policy: unknown policy 'gpt-4' (use one of: openai:MODEL, reference, "
            "bad:LABEL, empty, mix:SEED, replay:RUN)",
        ),
        ("openai:", "policy: openai needs a model name (write openai:MODEL)"),
        ("replay:", "policy: 'replay:' needs the name of a run (write replay:RUN)"),
        (
            "replay:old",
            "policy: replay:RUN reads a run from a results store, and none was given (run it "
            "through `assay run`, which opens the store)",
        ),
        ("openai:  ", "policy: openai needs a model name (write openai:MODEL)"),
        (
            "bad:",
            "policy: 'bad:' needs the label of a known-bad solution (write bad:LABEL, e.g. "
            "bad:off-by-one)",
        ),
        (
            "bad:Off By One",
            "policy: 'bad:Off By One' needs the label of a known-bad solution "
            "(write bad:LABEL, e.g. bad:off-by-one)",
        ),
        ("reference:x", "policy: reference takes no argument (write reference)"),
        ("empty:", "policy: empty takes no argument (write empty)"),
    ],
)
def test_bad_specs_are_one_line(spec: str, message: str) -> None:
    with pytest.raises(PolicySpecError) as caught:
        parse_policy(spec)
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


def test_model_policy_options_are_checked() -> None:
    with pytest.raises(PolicySpecError, match="concurrency must be at least 1"):
        parse_policy("openai:m", concurrency=0)


@pytest.mark.parametrize("url", ["http://x/\n", "http://[::1", "ftp://x/v1", "http://:8000/v1"])
def test_a_base_url_no_request_can_go_to_is_one_line_naming_it(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(PolicySpecError) as given:
        OpenAIPolicy("m", base_url=url)
    assert str(given.value).startswith(f"--base-url: {url!r} is not a URL")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(PolicySpecError) as configured:
        OpenAIPolicy("m")
    assert str(configured.value).startswith(f"OPENAI_BASE_URL: {url!r} is not a URL")
    assert "\n" not in str(configured.value).replace(repr(url), "")
