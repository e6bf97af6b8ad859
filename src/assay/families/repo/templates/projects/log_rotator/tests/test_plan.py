import unittest

from logrot.config import parse_size
from logrot.plan import rotation_plan


class PlanTest(unittest.TestCase):
    def test_first_rotation(self):
        plan = rotation_plan(["app.log"], "app.log", keep=3)
        self.assertEqual(plan["rename"], [["app.log", "app.log.1"]])

    def test_oldest_is_deleted(self):
        names = ["app.log", "app.log.1", "app.log.2.gz", "app.log.3.gz"]
        plan = rotation_plan(names, "app.log", keep=3)
        self.assertEqual(plan["delete"], ["app.log.3.gz"])
        self.assertEqual(plan["rename"][0], ["app.log.2.gz", "app.log.3.gz"])


class SizeTest(unittest.TestCase):
    def test_units(self):
        self.assertEqual(parse_size("10M"), 10 * 1024 * 1024)
        self.assertEqual(parse_size("512"), 512)


if __name__ == "__main__":
    unittest.main()
