import unittest

from payroll.ausgabe import format_stunden
from payroll.berechnung import night_minutes, overtime_minutes
from payroll.regeln import is_holiday


class NightTest(unittest.TestCase):
    def test_overnight(self):
        self.assertEqual(night_minutes(21 * 60, 30 * 60), 480)

    def test_early_shift(self):
        self.assertEqual(night_minutes(4 * 60, 12 * 60), 120)

    def test_day_shift(self):
        self.assertEqual(night_minutes(8 * 60, 16 * 60), 0)


class OvertimeTest(unittest.TestCase):
    def test_weekly_limit(self):
        self.assertEqual(overtime_minutes([9 * 60] * 5, "DE-BY"), 5 * 60)

    def test_daily_limit_counts_once(self):
        self.assertEqual(overtime_minutes([10 * 60] * 5, "AT"), 10 * 60)


class HolidayTest(unittest.TestCase):
    def test_regional_holiday(self):
        self.assertTrue(is_holiday("2024-01-06", "DE-BY"))
        self.assertFalse(is_holiday("2024-01-06", "DE-NW"))


class FormatTest(unittest.TestCase):
    def test_hours(self):
        self.assertEqual(format_stunden(2490), "41,50")
        self.assertEqual(format_stunden(20), "0,33")


if __name__ == "__main__":
    unittest.main()
