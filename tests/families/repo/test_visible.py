"""What the project's visible tests promise is checked by hidden pass-to-pass cases: a fix that
breaks it fails, even where the change's own cases do not look."""

from __future__ import annotations

import json

import pytest

from assay.families.repo import RepoFamily
from assay.families.repo.generator import LIMITS, PATHS, make_task
from assay.families.repo.templates import TEMPLATES, Probe
from assay.families.repo.visible import VisibleProbe, visible_probes
from assay.sandbox import PoolSandbox
from assay.tasks import Task
from assay.verdicts import Status

PRICES = b"""
def parse(text):
    if not text[:1].isdigit():
        raise ValueError(text)
    return int(text.replace(",", ""))


def net(gross, rate=19, rounding="down"):
    return gross * 100 // (100 + rate)


def total(lines, config):
    return sum(parse(quantity) for _, quantity in lines) + config["extra"]


def load(text):
    return {"extra": parse(text)}


def weekday(day):
    return day.weekday()
"""

TESTS = b"""
import datetime
import tempfile
import unittest

from shop.prices import load, net, parse, total, weekday
from shop.prices import parse as read_amount

BASE = load("5")


def line(name, quantity="1"):
    return [name, quantity]


class PricesTest(unittest.TestCase):
    def setUp(self):
        self.config = load("7")

    def test_values(self):
        self.assertEqual(parse("1,50"), 150)
        self.assertEqual(net(1190, rounding="down"), 1000)
        self.assertEqual(total([line("a", "2")], self.config), 9)

    def test_errors(self):
        with self.assertRaises(ValueError):
            parse("x")
        self.assertRaises(ValueError, read_amount, "y")

    def test_not_plain_data(self):
        self.assertEqual(weekday(datetime.date(2024, 1, 1)), 0)

    def test_scratch_files(self):
        with tempfile.TemporaryDirectory() as scratch:
            self.assertEqual(total([[scratch, "1"]], {"extra": 0}), 1)


def not_a_test():
    parse("never")
"""


def _seen(call: str, *args: object, raises: bool = False) -> VisibleProbe:
    return VisibleProbe(Probe(call=f"shop.prices:{call}", args=args), raises)


def test_the_calls_the_tests_make_are_recorded_with_their_arguments(pool: PoolSandbox) -> None:
    project = {
        "shop/__init__.py": b"",
        "shop/prices.py": PRICES,
        "tests/__init__.py": b"",
        "tests/test_prices.py": TESTS,
    }
    probes = visible_probes(project, pool, paths=PATHS, limits=LIMITS)
    assert probes == [
        _seen("load", "5"),  # a module constant
        _seen("load", "7"),  # setUp, once however many tests run it
        _seen("parse", "x", raises=True),
        _seen("parse", "y", raises=True),  # through assertRaises, by another name
        _seen("parse", "1,50"),
        _seen("net", 1190, 19, "down"),  # the keyword in its place, the skipped default too
        _seen("total", [["a", "2"]], {"extra": 7}),  # a helper's list and setUp's config
    ]  # not weekday's date, nor a path in the temporary directory (another on every run),
    # and none of the parse calls total and load make themselves


def test_a_project_whose_tests_import_nothing_of_it_gives_no_probes(pool: PoolSandbox) -> None:
    broken = {"tests/test_broken.py": b"def test(:\n", "tests/test_os.py": b"import os\n"}
    assert visible_probes(broken, pool, paths=PATHS, limits=LIMITS) == []


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


@pytest.mark.parametrize(
    "attack",
    [
        # large claims no longer flagged at the threshold (test_large_claims_are_flagged:
        # route(claim("auto", 5_000_000), self.config), the config read in setUp)
        (
            "claims-triage",
            "legacy-prio-key",
            "triage/moteur.py",
            '    if claim["amount"] >= fraud["threshold"]:',
            '    if claim["amount"] > fraud["threshold"]:',
            '"amount": 5000000',
        ),
        # the pre-3.0 `prio = 1` read as high (test_legacy_prio, through load_rules in setUp)
        (
            "claims-triage",
            "narrow-no-break-space",
            "triage/regles.py",
            'LEGACY_PRIO = {"1": "urgent"',
            'LEGACY_PRIO = {"1": "high"',
            "prio = 1",
        ),
        # the deprecated maxage dropped (test_deprecated_maxage reads setUp's load_config)
        (
            "log-retention",
            "dateext-names",
            "logkeep/config.py",
            '        if "maxage" in source:',
            '        if "maxage" in source and not source:',
            "maxage = 30",
        ),
        # Scottish holidays forgotten (test_regions_differ calls is_working_day with a date,
        # which no case can pass: the template probes it through send_times)
        (
            "clinic-reminders",
            "gsm-extension",
            "reminders/holidays.py",
            "    return day.weekday() < 5 and day.isoformat() not in holidays_for(region)\n",
            '    return day.weekday() < 5 and day.isoformat() not in holidays_for("england-and-'
            'wales")\n',
            "leith",
        ),
    ],
    ids=["fraud-threshold-exclusive", "legacy-prio-high", "maxage-dropped", "one-region"],
)
def test_the_fix_plus_breaking_what_a_test_builds_its_arguments_for_fails(
    pool: PoolSandbox, attack: tuple[str, str, str, str, str, str]
) -> None:
    template_id, change_id, path, old, new, case = attack
    template, change = _change(template_id, change_id)
    task = make_task((template, change, "ticket"), 1, 0, pool)  # type: ignore[arg-type]
    family = RepoFamily()
    assert family.verify(task, task.solutions["reference"], pool).status is Status.PASS
    harmed = dict(task.solutions["reference"])
    text = harmed[path].decode()
    assert text.count(old) == 1
    harmed[path] = text.replace(old, new).encode()
    verdict = family.verify(task, harmed, pool)
    assert verdict.status is Status.FAIL
    cases = {c["id"]: c for c in json.loads(task.hidden["cases.json"])["cases"]}
    failed = [c.name for c in verdict.criteria if not c.passed]
    assert any(
        cases[name]["kind"] == "pass-to-pass" and case in json.dumps(cases[name]["args"])
        for name in failed
    ), [cases[name] for name in failed]
