import unittest

from reconcile.matching import reconcile
from reconcile.money import parse_money, show_money


class MoneyTest(unittest.TestCase):
    def test_pounds(self):
        self.assertEqual(parse_money("£1,250.00"), 125000)

    def test_negative(self):
        self.assertEqual(parse_money("-23.99"), -2399)

    def test_show(self):
        self.assertEqual(show_money(-123456), "-1,234.56")


class MatchTest(unittest.TestCase):
    def test_same_day(self):
        line = {"id": "B1", "date": "2024-03-01", "description": "x", "amount": 500}
        entry = {"ref": "SI-1", "date": "2024-03-01", "amount": 500}
        result = reconcile([line], [entry])
        self.assertEqual(result["matched"], [["B1", "SI-1"]])


if __name__ == "__main__":
    unittest.main()
