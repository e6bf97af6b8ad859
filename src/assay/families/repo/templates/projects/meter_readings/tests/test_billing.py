import unittest

from meterread.billing import apportion, bill
from meterread.consumption import advance


def reading(date, value, estimated=False):
    return {"meter": "M1", "date": date, "value": value, "estimated": estimated}


class AdvanceTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(advance(100, 350), 250)

    def test_rollover(self):
        self.assertEqual(advance(99990, 12), 22)

    def test_six_dials(self):
        self.assertEqual(advance(999990, 12, 6), 22)

    def test_estimate_corrected(self):
        self.assertEqual(advance(5000, 4800, previous_estimated=True), -200)


class BillingTest(unittest.TestCase):
    def test_shared_by_days(self):
        spans = [{"start": "2024-03-22", "end": "2024-04-11", "kwh": 200}]
        self.assertEqual(apportion(spans, "2024-01-01", "2024-03-31"), 100)

    def test_bill(self):
        readings = [reading("2024-01-01", 1000), reading("2024-03-01", 1600, estimated=True)]
        self.assertEqual(
            bill(readings, "2024-01-01", "2024-03-31"), {"kwh": 600, "estimated": True}
        )


if __name__ == "__main__":
    unittest.main()
