import unittest

from triage.moteur import route
from triage.regles import load_rules

RULES = """
[regle petits]
categorie = auto
max_amount = 1 500,00
queue = fast-track

[regle gros]
categorie = auto
min_amount = 1 500,00
queue = expert-auto
priority = high

[regle corporel]
categorie = corporel
queue = medical
prio = 1
"""


def claim(category, amount, start="2020-01-01", incident="2024-03-01"):
    return {
        "id": "S-1",
        "category": category,
        "amount": amount,
        "policy_start": start,
        "incident": incident,
    }


class RouteTest(unittest.TestCase):
    def setUp(self):
        self.config = load_rules(RULES)

    def test_small_auto_claim(self):
        routed = route(claim("auto", 64000), self.config)
        self.assertEqual((routed["queue"], routed["priority"]), ("fast-track", "normal"))

    def test_threshold_goes_to_the_upper_band(self):
        self.assertEqual(route(claim("auto", 150000), self.config)["queue"], "expert-auto")

    def test_legacy_prio(self):
        self.assertEqual(route(claim("corporel", 100), self.config)["priority"], "urgent")

    def test_unmatched(self):
        self.assertEqual(route(claim("voyage", 100), self.config)["queue"], "general")

    def test_large_claims_are_flagged(self):
        self.assertTrue(route(claim("auto", 5_000_000), self.config)["fraud"])

    def test_recent_policy_is_flagged(self):
        routed = route(claim("auto", 100, "2024-02-20", "2024-03-01"), self.config)
        self.assertTrue(routed["fraud"])


if __name__ == "__main__":
    unittest.main()
