import unittest

from gradebook.export import read_sheet, registrar_csv, registrar_rows
from gradebook.schemes import german_grade, letter_grade, shown_grade

COURSE = {
    "scheme": "de",
    "components": [
        {"name": "exam", "columns": ["K"], "max": 60.0, "weight": 1.0, "drop_lowest": 0}
    ],
}
SHEET = "Matrikelnr;Name;Vorname;K\n4700002;Weber;Anna;46\n4700001;Lang;Tom;32\n"


class SchemesTest(unittest.TestCase):
    def test_german(self):
        self.assertEqual(german_grade(87.5), 1.7)
        self.assertEqual(german_grade(50), 4.0)
        self.assertEqual(german_grade(49.9), 5.0)

    def test_letter(self):
        self.assertEqual(letter_grade(88), "B+")
        self.assertEqual(letter_grade(59.5), "F")

    def test_shown(self):
        self.assertEqual(shown_grade(91, "de"), "1,3")


class ExportTest(unittest.TestCase):
    def test_csv(self):
        rows = registrar_rows(read_sheet(SHEET), COURSE)
        self.assertEqual(
            registrar_csv(rows),
            "Matrikelnummer;Name;Vorname;Note\r\n4700001;Lang;Tom;4,0\r\n"
            "4700002;Weber;Anna;2,3\r\n",
        )


if __name__ == "__main__":
    unittest.main()
