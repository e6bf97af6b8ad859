"""The ``code`` family: implement one Python function.

Task layout: ``task.toml`` with a ``[code]`` table (``function``, optional ``entrypoint``,
``compare``, ``float_tolerance``, ``checker``); ``hidden/cases.json`` with the inputs and, for each,
the reference's output or the exception type it must raise (:mod:`.casefile`);
``solutions/*/solution.py``. A candidate runs inside the sandbox on the case inputs only; its
outputs come back as bounded JSON records (:mod:`.outputs`) and are judged in the trusted process.
A task's checker is task code and runs in a sandbox job of its own (:mod:`.checking`).
"""

from assay.families.code.config import Case, CodeConfig
from assay.families.code.family import CodeFamily, run_cases

__all__ = ["Case", "CodeConfig", "CodeFamily", "run_cases"]
