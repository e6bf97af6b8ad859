import unittest

from triage.montants import format_amount, parse_amount


class ParseAmountTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_amount("640,00"), 64000)

    def test_grouped(self):
        self.assertEqual(parse_amount("12 480,50 €"), 1248050)

    def test_no_break_space(self):
        self.assertEqual(parse_amount("3\u00a0250,00"), 325000)

    def test_old_portal(self):
        self.assertEqual(parse_amount("3250.5"), 325050)

    def test_rubbish(self):
        with self.assertRaises(ValueError):
            parse_amount("douze")


class FormatAmountTest(unittest.TestCase):
    def test_grouping(self):
        self.assertEqual(format_amount(1248050), "12 480,50 €")


if __name__ == "__main__":
    unittest.main()
