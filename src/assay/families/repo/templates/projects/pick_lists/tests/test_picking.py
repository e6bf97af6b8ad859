import unittest

from picking.picklist import batch, render
from picking.stock import allocate, quantity

STOCK = [
    {"sku": "HX", "location": "A03-14", "qty": 6, "description": ""},
    {"sku": "HX", "location": "A01-02", "qty": 3, "description": ""},
]


class AllocateTest(unittest.TestCase):
    def test_first_bin_on_the_route(self):
        result = allocate([{"order": "SO-1", "sku": "HX", "qty": 5}], STOCK)
        self.assertEqual(
            [(pick["location"], pick["qty"]) for pick in result["picks"]],
            [("A01-02", 3), ("A03-14", 2)],
        )

    def test_partial(self):
        result = allocate([{"order": "SO-1", "sku": "HX", "qty": 11}], STOCK)
        self.assertEqual(sum(pick["qty"] for pick in result["picks"]), 9)
        self.assertEqual(result["backorders"], [{"order": "SO-1", "sku": "HX", "qty": 2}])


class QuantityTest(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(quantity(" 12"), 12)

    def test_thousands(self):
        self.assertEqual(quantity("1,200"), 1200)


class PickListTest(unittest.TestCase):
    def test_batch(self):
        picks = [
            {"order": "SO-1", "sku": "HX", "location": "A01-02", "qty": 1},
            {"order": "SO-2", "sku": "HX", "location": "A01-02", "qty": 2},
        ]
        self.assertEqual(
            batch(picks), [{"order": "SO-1,SO-2", "sku": "HX", "location": "A01-02", "qty": 3}]
        )

    def test_render(self):
        text = render([{"order": "SO-1", "sku": "HX", "location": "A01-02", "qty": 3}], [], {})
        self.assertIn("A01-02    HX             3  SO-1", text)

    def test_total(self):
        picks = [
            {"order": "SO-1", "sku": "HX", "location": "A01-02", "qty": 3},
            {"order": "SO-2", "sku": "BR", "location": "A02-07", "qty": 4},
        ]
        self.assertIn("\nTOTAL" + " " * 20 + "7\n", render(picks, [], {}))


if __name__ == "__main__":
    unittest.main()
