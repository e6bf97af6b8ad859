import unittest

from invoicing.amounts import format_amount, parse_amount


class ParseAmountTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_amount("89,90"), 8990)

    def test_currency_sign(self):
        self.assertEqual(parse_amount("12,00 €"), 1200)

    def test_one_decimal(self):
        self.assertEqual(parse_amount("12,5"), 1250)

    def test_minus(self):
        self.assertEqual(parse_amount("-3,10"), -310)

    def test_parentheses(self):
        self.assertEqual(parse_amount("(45,00)"), -4500)

    def test_rubbish(self):
        with self.assertRaises(ValueError):
            parse_amount("zwölf")


class FormatAmountTest(unittest.TestCase):
    def test_grouping(self):
        self.assertEqual(format_amount(123456789), "1.234.567,89")

    def test_negative(self):
        self.assertEqual(format_amount(-5), "-0,05")


if __name__ == "__main__":
    unittest.main()
