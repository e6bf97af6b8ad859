import unittest

from vatreturn.rates import quarter_of, rate_for
from vatreturn.report import sales_box, summarise, tax_cents


def line(country="DE", vat_id="", code="S", net=10000, date="2024-02-01"):
    return {
        "date": date,
        "document": "X",
        "country": country,
        "vat_id": vat_id,
        "code": code,
        "net": net,
    }


class ReportTest(unittest.TestCase):
    def test_rates(self):
        self.assertEqual(rate_for("S", "2024-01-01"), 19)
        self.assertEqual(rate_for("R", "2020-08-01"), 5)

    def test_quarter(self):
        self.assertEqual(quarter_of("2024-03-31"), "2024-Q1")

    def test_boxes(self):
        self.assertEqual(sales_box(line()), "81")
        self.assertEqual(sales_box(line("AT", "ATU12345678")), "41")
        self.assertEqual(sales_box(line("CH")), "43")

    def test_tax(self):
        self.assertEqual(tax_cents(1150, 7), 81)
        self.assertEqual(tax_cents(-1150, 7), -81)

    def test_summary(self):
        boxes = summarise([line()], [line(code="RC", net=5000)], "2024-Q1")
        self.assertEqual(boxes["81"], {"base": 10000, "tax": 1900})
        self.assertEqual(boxes["46"], {"base": 5000, "tax": 950})
        self.assertEqual(boxes["83"]["tax"], 1900)

    def test_total_rounding(self):
        lines = [line(net=150), line(net=150)]
        self.assertEqual(summarise(lines, [], "2024-Q1")["81"]["tax"], 58)
        self.assertEqual(summarise(lines, [], "2024-Q1", "total")["81"]["tax"], 57)


if __name__ == "__main__":
    unittest.main()
