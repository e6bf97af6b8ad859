import unittest

from reorder.planning import order_quantity, reorder_point
from reorder.suppliers import read_suppliers
from reorder.units import to_pounds


def terms(lead_time_days, moq, pack_size):
    return {"lead_time_days": lead_time_days, "moq": moq, "pack_size": pack_size}


class UnitTest(unittest.TestCase):
    def test_pounds(self):
        self.assertEqual(to_pounds("1,250.5", "lb"), 1250.5)

    def test_kilos(self):
        self.assertEqual(to_pounds("100", "kg"), 220.46)


class PlanningTest(unittest.TestCase):
    def test_reorder_point(self):
        self.assertEqual(reorder_point(10, 7, 5), 120)

    def test_nothing_above_the_reorder_point(self):
        self.assertEqual(order_quantity(121, 10, terms(7, 0, 50)), 0)

    def test_whole_packs(self):
        # 120 + 140 - 100 = 160 lb needed: four 50 lb bags
        self.assertEqual(order_quantity(100, 10, terms(7, 0, 50)), 200)

    def test_minimum_order(self):
        self.assertEqual(order_quantity(100, 10, terms(7, 500, 50)), 500)


class SupplierTest(unittest.TestCase):
    def test_current_file(self):
        found = read_suppliers("sku,supplier,lead_time_days,moq,pack_size\nA,Acme,6,100,25\n")
        self.assertEqual(found["A"]["lead_time_days"], 6)

    def test_old_erp_minimum(self):
        found = read_suppliers("sku,supplier,lead_time_days,min_qty,pack_size\nA,Acme,6,100,25\n")
        self.assertEqual(found["A"]["moq"], 100)


if __name__ == "__main__":
    unittest.main()
