import unittest

from payroll.stundenzettel import parse_pause, parse_zeit, readTimesheet

EXPORT = "Mitarbeiter;Datum;Beginn;Ende;Pause\r\nEmre Demir;04.03.2024;22:00;6:00;30\r\n"


class TimesheetTest(unittest.TestCase):
    def test_reads_overnight_shift(self):
        [entry] = readTimesheet(EXPORT)
        self.assertEqual(entry["date"], "2024-03-04")
        self.assertEqual((entry["start"], entry["end"], entry["break"]), (1320, 1800, 30))

    def test_times(self):
        self.assertEqual(parse_zeit("7:30"), 450)
        self.assertEqual(parse_zeit("24:00"), 1440)

    def test_pause(self):
        self.assertEqual(parse_pause("45"), 45)
        self.assertEqual(parse_pause("0,75 h"), 45)

    def test_rubbish(self):
        with self.assertRaises(ValueError):
            parse_zeit("7.30")


if __name__ == "__main__":
    unittest.main()
