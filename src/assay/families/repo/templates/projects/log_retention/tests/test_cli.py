import contextlib
import io
import os
import tempfile
import unittest

from logkeep.cli import main

CONFIG = "[app.log]\nmax_size = 1K\nkeep_days = 7\n"


class DryRunTest(unittest.TestCase):
    def run_cli(self, *flags):
        with tempfile.TemporaryDirectory() as directory:
            config = os.path.join(directory, "rotate.conf")
            with open(config, "w", encoding="utf-8") as handle:
                handle.write(CONFIG)
            with open(os.path.join(directory, "app.log"), "w", encoding="utf-8") as handle:
                handle.write("x" * 2048)
            output = io.StringIO()
            argv = ["--config", config, "--dir", directory, "--today", "2024-03-10", *flags]
            with contextlib.redirect_stdout(output):
                code = main(argv)
            return code, output.getvalue(), sorted(os.listdir(directory))

    def test_dry_run_touches_nothing(self):
        code, output, names = self.run_cli("--dry-run")
        self.assertEqual(code, 0)
        self.assertIn("would rotate app.log -> app.log.2024-03-10", output)
        self.assertEqual(names, ["app.log", "rotate.conf"])

    def test_noop_is_a_dry_run(self):
        _, output, names = self.run_cli("--noop")
        self.assertIn("would rotate", output)
        self.assertEqual(names, ["app.log", "rotate.conf"])

    def test_real_run(self):
        _, _, names = self.run_cli()
        self.assertEqual(names, ["app.log", "app.log.2024-03-10.gz", "rotate.conf"])


if __name__ == "__main__":
    unittest.main()
