import unittest

from billing.cycles import cycle_for


class CycleTest(unittest.TestCase):
    def test_mid_month_anchor(self):
        self.assertEqual(
            cycle_for("2024-03-15", "2024-04-01"),
            {"start": "2024-03-15", "end": "2024-04-15", "days": 31},
        )

    def test_end_of_month_anchor(self):
        self.assertEqual(
            cycle_for("2023-10-31", "2024-02-10"),
            {"start": "2024-01-31", "end": "2024-02-29", "days": 29},
        )

    def test_leap_february(self):
        self.assertEqual(cycle_for("2024-01-30", "2024-03-01")["start"], "2024-02-29")


if __name__ == "__main__":
    unittest.main()
