import unittest

from shiprate.carriers import load_carrier
from shiprate.rates import band_price, quote, show
from shiprate.weights import chargeable_grams, volumetric_grams
from shiprate.zones import zone_for


class ZoneTest(unittest.TestCase):
    def test_zones(self):
        self.assertEqual(zone_for("BT7 1NN"), "ni")
        self.assertEqual(zone_for("B1 1AA"), "mainland")
        self.assertEqual(zone_for("HS1 2AB"), "highlands")


class WeightTest(unittest.TestCase):
    def test_volumetric(self):
        self.assertEqual(volumetric_grams(40, 30, 20, 5000), 4800)

    def test_chargeable_is_the_greater(self):
        self.assertEqual(chargeable_grams(1200, 40, 30, 20), 4800)
        self.assertEqual(chargeable_grams(9000, 40, 30, 20), 9000)


class RateTest(unittest.TestCase):
    def test_band_limit_is_included(self):
        bands = load_carrier("parcelline")["bands"]
        self.assertEqual(band_price(bands, "mainland", 2000), 495)
        self.assertEqual(band_price(bands, "mainland", 2001), 645)

    def test_quote(self):
        result = quote("SW1A 1AA", 850, "20x15x10")
        self.assertEqual(result["base"], 395)
        self.assertEqual(result["fuel"], 34)
        self.assertEqual(show(result["total"]), "£4.29")


if __name__ == "__main__":
    unittest.main()
