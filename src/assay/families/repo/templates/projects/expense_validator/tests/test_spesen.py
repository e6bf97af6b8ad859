import unittest

from spesen.betraege import format_betrag, parse_betrag
from spesen.kurse import in_euro
from spesen.pruefung import pruefe
from spesen.tagegeld import tagessatz

KURSE = {"GBP": {"2024-03-04": "0.8556", "2024-03-05": "0.8546"}}


class BetragTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_betrag("1.234,56"), 123456)
        self.assertEqual(parse_betrag("89,5 €"), 8950)

    def test_format(self):
        self.assertEqual(format_betrag(123456), "1.234,56 €")


class KursTest(unittest.TestCase):
    def test_in_euro(self):
        self.assertEqual(in_euro(14900, "GBP", "2024-03-04", KURSE), 17415)

    def test_euro_bleibt(self):
        self.assertEqual(in_euro(14900, "EUR", "2024-03-04", KURSE), 14900)


class TagegeldTest(unittest.TestCase):
    def test_voller_tag(self):
        self.assertEqual(tagessatz("FR", 24), 5300)

    def test_halber_tag(self):
        self.assertEqual(tagessatz("DE", 10), 1400)

    def test_kurzer_tag(self):
        self.assertEqual(tagessatz("DE", 6), 0)


class PruefungTest(unittest.TestCase):
    def test_beispiel(self):
        with open("data/beispiel.csv", encoding="utf-8") as handle:
            ergebnis = pruefe(handle.read())
        self.assertEqual([beleg for beleg, _ in ergebnis["abgelehnt"]], ["B4", "B5"])


if __name__ == "__main__":
    unittest.main()
