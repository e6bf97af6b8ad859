import unittest

from logkeep.config import load_config
from logkeep.plan import freed_bytes, plan

CONFIG = """
[*]
max_size = 1K
keep_days = 7

[app.log]

[old.log]
maxage = 30
"""


class PlanTest(unittest.TestCase):
    def setUp(self):
        self.config = load_config(CONFIG)

    def test_deprecated_maxage(self):
        self.assertEqual(self.config["old.log"]["keep_days"], 30)
        self.assertEqual(self.config["app.log"]["keep_days"], 7)

    def test_rotates_big_logs(self):
        actions = plan({"app.log": 4096}, self.config, "2024-03-10")
        self.assertEqual(
            actions,
            [
                ["rotate", "app.log", "app.log.2024-03-10"],
                ["compress", "app.log.2024-03-10", "app.log.2024-03-10.gz"],
            ],
        )

    def test_prunes_old_files(self):
        listing = {"app.log": 10, "app.log.2024-03-01.gz": 50, "app.log.2024-03-05.gz": 50}
        actions = plan(listing, self.config, "2024-03-10")
        self.assertEqual(actions, [["delete", "app.log.2024-03-01.gz", None]])

    def test_freed_bytes(self):
        listing = {"app.log.2024-01-01.gz": 300, "app.log.2024-01-02.gz": 200}
        actions = plan(listing, self.config, "2024-03-10")
        self.assertEqual(freed_bytes(actions, listing), 500)


if __name__ == "__main__":
    unittest.main()
