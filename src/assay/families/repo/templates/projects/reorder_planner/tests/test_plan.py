import unittest

from reorder.export import purchasing_csv
from reorder.plan import plan_files

STOCK = "sku,description,on_hand,on_order,unit,daily_usage\nRM-1,Salt,10,0,lb,10\n"
SUPPLIERS = "sku,supplier,lead_time_days,moq,pack_size\nRM-1,Acme,7,0,50\n"


class PlanTest(unittest.TestCase):
    def test_plan(self):
        (line,) = plan_files(STOCK, [SUPPLIERS])
        self.assertEqual(line["quantity_lb"], 250)
        self.assertEqual(line["packs"], 5)
        self.assertTrue(line["urgent"])

    def test_export(self):
        text = purchasing_csv(plan_files(STOCK, [SUPPLIERS]))
        self.assertEqual(text.splitlines()[1], "Acme,RM-1,Salt,250,5,YES")


if __name__ == "__main__":
    unittest.main()
