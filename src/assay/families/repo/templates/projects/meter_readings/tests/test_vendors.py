import unittest

from meterread.vendors import read_quadra, read_voltmark


class VendorTest(unittest.TestCase):
    def test_voltmark(self):
        [reading] = read_voltmark(
            "MeterID,ReadDate,Reading,ReadType\nM1,31/01/2024,00412,ESTIMATE\n"
        )
        self.assertEqual(
            reading, {"meter": "M1", "date": "2024-01-31", "value": 412, "estimated": True}
        )

    def test_quadra(self):
        text = "HDR QUADRA 2.1\nQ7-004411   20240318000873390C\nTRL 000001\n"
        [reading] = read_quadra(text)
        self.assertEqual(
            reading,
            {"meter": "Q7-004411", "date": "2024-03-18", "value": 873390, "estimated": False},
        )


if __name__ == "__main__":
    unittest.main()
