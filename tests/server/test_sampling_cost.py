"""A sampling spec's size costs the server once per draw, not once per task offered: the draw
runs on the event loop, where every other request waits for it."""

from __future__ import annotations

from assay.server import SamplingSpec, draw
from tests.conftest import make_median_task

TASKS = [make_median_task(f"median-{n}", tags=("stats", "lists")) for n in range(50)]
REPEATS = 20_000


class _Counted(str):
    """A tag that counts how often it is compared."""

    __slots__ = ()
    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_tag_repeated_many_times_is_compared_a_bounded_number_of_times() -> None:
    tag = _Counted("stats")
    spec = SamplingSpec.model_construct(tags=(tag,) * REPEATS, weights={}, seed=1)
    _Counted.compared = 0
    assert draw(TASKS, spec, {}).id.startswith("median-")
    assert _Counted.compared < REPEATS, f"{_Counted.compared} comparisons for {len(TASKS)} tasks"
