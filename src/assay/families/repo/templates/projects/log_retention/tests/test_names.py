import unittest

from logkeep.names import parse_rotated
from logkeep.sizes import parse_size


class ParseRotatedTest(unittest.TestCase):
    def test_dashed(self):
        self.assertEqual(
            parse_rotated("builder.log.2024-03-09.gz"),
            {"base": "builder.log", "date": "2024-03-09", "compressed": True},
        )

    def test_dateext(self):
        self.assertEqual(
            parse_rotated("audit.log-20240102"),
            {"base": "audit.log", "date": "2024-01-02", "compressed": False},
        )

    def test_live_log(self):
        self.assertIsNone(parse_rotated("builder.log"))


class ParseSizeTest(unittest.TestCase):
    def test_bytes(self):
        self.assertEqual(parse_size("500"), 500)

    def test_units(self):
        self.assertEqual(parse_size("64K"), 65536)
        self.assertEqual(parse_size("10 MiB"), 10 * 1024 * 1024)

    def test_rubbish(self):
        with self.assertRaises(ValueError):
            parse_size("big")


if __name__ == "__main__":
    unittest.main()
