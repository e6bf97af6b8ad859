import unittest

from invoicing.importer import load_export, parse_date
from invoicing.totals import invoice_totals

EXPORT = "invoice_no;customer;date;amount\nR-1;Kanzlei Vogt;11.03.2024;240,00\n"


class ImporterTest(unittest.TestCase):
    def test_reads_rows(self):
        [row] = load_export(EXPORT.encode())
        self.assertEqual(row["customer"], "Kanzlei Vogt")
        self.assertEqual(row["date"], "2024-03-11")
        self.assertEqual(row["amount"], 24000)

    def test_date(self):
        self.assertEqual(parse_date("01.12.2023"), "2023-12-01")

    def test_totals(self):
        self.assertEqual(invoice_totals([10000], "19"), {"net": 10000, "vat": 1900, "gross": 11900})


if __name__ == "__main__":
    unittest.main()
