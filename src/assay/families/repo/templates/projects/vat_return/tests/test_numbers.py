import unittest

from vatreturn.numbers import format_amount, format_euros, parse_amount, parse_date


class NumbersTest(unittest.TestCase):
    def test_amount(self):
        self.assertEqual(parse_amount("1.250,00"), 125000)

    def test_trailing_minus(self):
        self.assertEqual(parse_amount("150,00-"), -15000)

    def test_format(self):
        self.assertEqual(format_amount(-123456), "-1.234,56")

    def test_whole_euros(self):
        self.assertEqual(format_euros(123499), "1.234")

    def test_date(self):
        self.assertEqual(parse_date("28.03.2024"), "2024-03-28")


if __name__ == "__main__":
    unittest.main()
