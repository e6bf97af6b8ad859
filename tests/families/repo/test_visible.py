"""What the project's visible tests promise is checked by hidden pass-to-pass cases: a fix that
breaks it fails, even where the change's own cases do not look."""

from __future__ import annotations

import json

import pytest

from assay.families.repo import RepoFamily
from assay.families.repo.generator import make_task
from assay.families.repo.templates import TEMPLATES, Probe
from assay.families.repo.visible import VisibleProbe, visible_probes
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status

TESTS = b"""
import unittest

from shop.prices import net, parse
from shop.prices import total as sum_of

RATE = 19
LINES = [["a", 2]]


def helper():
    return {"x": 1}


class PricesTest(unittest.TestCase):
    def test_values(self):
        self.assertEqual(parse("1,50"), 150)
        self.assertEqual(net(-1190, RATE), -1000)
        self.assertEqual(sum_of(LINES, 60 * 2)["total"], 2)
        rows = [1, 2]
        self.assertEqual(sum_of(rows, [0] * 3), 3)

    def test_errors(self):
        with self.assertRaises(ValueError):
            parse("x")
        self.assertRaises(ValueError, parse, "y")
        self.assertRaisesRegex(ValueError, "z", parse, "z")

    def test_not_read(self):
        self.assertEqual(net(helper(), 1), 1)
        self.assertEqual(net(1, rate=RATE), 1)
        self.assertEqual(parse(unittest.__name__), 1)


def not_a_test():
    parse("never")
"""


def test_literal_calls_of_the_project_are_read_from_its_tests() -> None:
    probes = visible_probes({"tests/test_prices.py": TESTS, "shop/prices.py": b"x = 1\n"})
    assert probes == [
        VisibleProbe(Probe(call="shop.prices:parse", args=("1,50",)), raises=False),
        VisibleProbe(Probe(call="shop.prices:net", args=(-1190, 19)), raises=False),
        VisibleProbe(Probe(call="shop.prices:total", args=([["a", 2]], 120)), raises=False),
        VisibleProbe(Probe(call="shop.prices:total", args=([1, 2], [0, 0, 0])), raises=False),
        VisibleProbe(Probe(call="shop.prices:parse", args=("x",)), raises=True),
        VisibleProbe(Probe(call="shop.prices:parse", args=("y",)), raises=True),
        VisibleProbe(Probe(call="shop.prices:parse", args=("z",)), raises=True),
    ]


def test_tests_that_do_not_parse_give_no_probes() -> None:
    assert visible_probes({"tests/test_broken.py": b"def test(:\n"}) == []


def _change(template_id: str, change_id: str) -> tuple[object, object]:
    [template] = [t for t in TEMPLATES if t.id == template_id]
    [change] = [c for c in template.changes if c.id == change_id]
    return template, change


@pytest.fixture(scope="module")
def quarters(pool: PoolSandbox) -> Task:
    template, change = _change("vat-return", "quarter-of-month")
    return make_task((template, change, "ticket"), 1, 0, pool)  # type: ignore[arg-type]


def _harmed(task: Task, old: str, new: str) -> dict[str, bytes]:
    """The reference with one more edit of vatreturn/numbers.py."""
    files = dict(task.solutions["reference"])
    text = files["vatreturn/numbers.py"].decode()
    assert text.count(old) == 1
    files["vatreturn/numbers.py"] = text.replace(old, new).encode()
    return files


@pytest.mark.parametrize(
    ("old", "new", "case"),
    [
        # SAP's trailing minus read as a positive amount (the visible test_trailing_minus)
        (
            "        negative = True\n        cleaned = cleaned[:-1]",
            "        cleaned = cleaned[:-1]",
            "150,00-",
        ),
        # whole euros rounded where the docstring says the cents are dropped, never rounded up
        ('f"{abs(cents) // 100:,}"', 'f"{(abs(cents) + 50) // 100:,}"', "123499"),
    ],
    ids=["trailing-minus-positive", "whole-euros-rounded"],
)
def test_the_fix_plus_breaking_documented_behaviour_fails(
    quarters: Task, pool: PoolSandbox, old: str, new: str, case: str
) -> None:
    family = RepoFamily()
    assert family.verify(quarters, quarters.solutions["reference"], pool).status is Status.PASS
    verdict = family.verify(quarters, _harmed(quarters, old, new), pool)
    assert verdict.status is Status.FAIL
    cases = {c["id"]: c for c in json.loads(quarters.hidden["cases.json"])["cases"]}
    failed = [c.name for c in verdict.criteria if not c.passed]
    assert any(
        cases[name]["kind"] == "pass-to-pass" and case in json.dumps(cases[name]["args"])
        for name in failed
    )
