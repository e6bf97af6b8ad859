import unittest

from rota.export import hours_text, payroll_lines
from rota.roster import read_roster

ROSTER = "employee;date;start;end\nLisa Brandt;05.12.2024;7.30;12.00\n"


class ExportTest(unittest.TestCase):
    def test_hours_text(self):
        self.assertEqual(hours_text(450), "7,50")

    def test_payroll(self):
        lines = payroll_lines(read_roster(ROSTER))
        self.assertEqual(lines[1], "Lisa Brandt;05.12.2024;4,50")


if __name__ == "__main__":
    unittest.main()
