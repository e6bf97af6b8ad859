import unittest

from billing.money import format_usd, parse_usd, to_cents
from billing.proration import prorate


class RoundingTest(unittest.TestCase):
    def test_bankers(self):
        self.assertEqual(to_cents(12.5), 12)
        self.assertEqual(to_cents(13.5), 14)

    def test_half_up(self):
        self.assertEqual(to_cents(12.5, "half-up"), 13)


class ProrateTest(unittest.TestCase):
    def test_upgrade_half_way(self):
        result = prorate(1900, 4900, "2024-04-10", "2024-04-25")
        self.assertEqual((result["credit"], result["charge"], result["due"]), (950, 2450, 1500))

    def test_half_up_mode(self):
        result = prorate(1901, 4901, "2024-04-10", "2024-04-25", "half-up")
        self.assertEqual((result["credit"], result["charge"]), (951, 2451))

    def test_downgrade_leaves_credit(self):
        result = prorate(4900, 1900, "2024-04-10", "2024-04-25")
        self.assertEqual((result["due"], result["balance"]), (0, 1500))


class ParseTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_usd("$1,299.00"), 129900)

    def test_no_cent_lost(self):
        self.assertEqual(parse_usd("19.99"), 1999)


class FormatTest(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_usd(129900), "$1,299.00")
        self.assertEqual(format_usd(-450), "-$4.50")


if __name__ == "__main__":
    unittest.main()
