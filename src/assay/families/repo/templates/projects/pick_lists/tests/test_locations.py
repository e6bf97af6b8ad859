import unittest

from picking._compat import normalise_label
from picking.locations import parse_location, walk_order


class LocationTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_location("A03-12"), (3, 12))

    def test_old_labels(self):
        self.assertEqual(normalise_label("3-12"), "A03-12")

    def test_walk(self):
        labels = ["A02-01", "A01-09", "A02-08", "A01-02", "A03-05"]
        self.assertEqual(walk_order(labels), ["A01-02", "A01-09", "A02-08", "A02-01", "A03-05"])

    def test_bad_label(self):
        with self.assertRaises(ValueError):
            parse_location("dock 4")


if __name__ == "__main__":
    unittest.main()
