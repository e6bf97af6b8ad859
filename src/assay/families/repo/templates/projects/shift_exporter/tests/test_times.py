import unittest

from rota.times import paid_minutes, parse_clock, shift_minutes


class ClockTest(unittest.TestCase):
    def test_formats(self):
        self.assertEqual(parse_clock("7:30"), 450)
        self.assertEqual(parse_clock("07:30"), 450)
        self.assertEqual(parse_clock("7.30"), 450)

    def test_rubbish(self):
        with self.assertRaises(ValueError):
            parse_clock("25:00")


class ShiftTest(unittest.TestCase):
    def test_day_shift(self):
        self.assertEqual(shift_minutes("6:00", "14:30"), 510)

    def test_short_shift_has_no_break(self):
        self.assertEqual(paid_minutes("8:00", "12:00"), 240)

    def test_long_shift_has_a_break(self):
        self.assertEqual(paid_minutes("6:00", "14:30"), 480)


if __name__ == "__main__":
    unittest.main()
